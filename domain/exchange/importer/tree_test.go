package importer

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

// newTree builds a tree from child → parent edges (uuid.Nil: a root).
func newTree(edges map[uuid.UUID]uuid.UUID, deleted ...uuid.UUID) *tree {
	t := &tree{parent: map[uuid.UUID]uuid.UUID{}, deleted: map[uuid.UUID]bool{}, kids: map[uuid.UUID][]uuid.UUID{}}
	for _, d := range deleted {
		t.deleted[d] = true
	}
	for c, p := range edges {
		t.parent[c] = p
		if p != uuid.Nil && !t.deleted[c] {
			t.kids[p] = append(t.kids[p], c)
		}
	}
	return t
}

func ids(n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = uuid.New()
	}
	return out
}

func TestTreeSetParentRefusesCyclesAndDepth(t *testing.T) {
	n := ids(ticket.MaxDepth + 2)
	// A chain n[0] ← n[1] ← … ← n[MaxDepth-1], and loose roots after it.
	edges := map[uuid.UUID]uuid.UUID{}
	for i, id := range n {
		edges[id] = uuid.Nil
		if i > 0 && i < ticket.MaxDepth {
			edges[id] = n[i-1]
		}
	}
	tr := newTree(edges)
	if tr.setParent(n[0], n[ticket.MaxDepth-1]) {
		t.Fatal("a parent closing a cycle was set")
	}
	if tr.setParent(n[ticket.MaxDepth], n[ticket.MaxDepth-1]) {
		t.Fatal("a parent passing the depth limit was set")
	}
	if !tr.setParent(n[ticket.MaxDepth], n[ticket.MaxDepth+1]) {
		t.Fatal("a parent between two roots was refused")
	}
	// n[MaxDepth+1] now has a child: under the chain's second-to-last
	// ticket, the tree would pass the limit.
	if tr.setParent(n[ticket.MaxDepth+1], n[ticket.MaxDepth-2]) {
		t.Fatal("a subtree passing the depth limit was set")
	}
	if tr.setParent(n[ticket.MaxDepth], n[0]) {
		t.Fatal("a ticket with a parent got another")
	}
	if tr.setParent(n[1], n[1]) {
		t.Fatal("a ticket became its own parent")
	}
}

func TestTreeSetParentSkipsDeletedAndUnknownChildren(t *testing.T) {
	n := ids(3)
	tr := newTree(map[uuid.UUID]uuid.UUID{n[0]: uuid.Nil, n[1]: uuid.Nil}, n[1])
	if tr.setParent(n[1], n[0]) {
		t.Fatal("a deleted ticket got a parent")
	}
	if tr.setParent(n[2], n[0]) {
		t.Fatal("a ticket that is not there got a parent")
	}
	if got := tr.height(n[0], ticket.MaxDepth+1); got != 0 {
		t.Fatalf("height = %d, want 0", got)
	}
}
