package importer

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
)

// tree is the part of an org's parent tree that a chunk of parents can
// touch: every ancestor of the children and parents named, and every live
// descendant of the children. Setting a parent here keeps it whole, since
// whatever a set parent joins was read with its own ancestors or
// descendants, so the chunk's checks need no query per ticket.
type tree struct {
	parent  map[uuid.UUID]uuid.UUID // uuid.Nil: a root
	deleted map[uuid.UUID]bool
	kids    map[uuid.UUID][]uuid.UUID // live children
}

type parentPair struct{ child, parent uuid.UUID }

func loadTree(ctx context.Context, q store.Querier, pairs []parentPair) (*tree, error) {
	up := make([]uuid.UUID, 0, 2*len(pairs))
	down := make([]uuid.UUID, 0, len(pairs))
	for _, p := range pairs {
		up = append(up, p.child, p.parent)
		down = append(down, p.child)
	}
	anc, desc, err := importdb.ParentTree(ctx, q, up, down)
	if err != nil {
		return nil, err
	}
	return treeOf(slices.Concat(anc, desc)), nil
}

// treeOf is the tree of the nodes read (the first read of a ticket wins).
func treeOf(nodes []importdb.TreeNode) *tree {
	t := &tree{parent: map[uuid.UUID]uuid.UUID{}, deleted: map[uuid.UUID]bool{}, kids: map[uuid.UUID][]uuid.UUID{}}
	seen := map[uuid.UUID]bool{}
	for _, n := range nodes {
		if seen[n.ID] {
			continue
		}
		seen[n.ID] = true
		p := uuid.Nil
		if n.ParentID != nil {
			p = *n.ParentID
		}
		t.parent[n.ID] = p
		if n.Deleted {
			t.deleted[n.ID] = true
		} else if p != uuid.Nil {
			t.kids[p] = append(t.kids[p], n.ID)
		}
	}
	return t
}

// ancestors is id with its ancestors, nearest first, at most limit (as
// ticketdb.Ancestors reads them).
func (t *tree) ancestors(id uuid.UUID, limit int) []uuid.UUID {
	var chain []uuid.UUID
	for len(chain) < limit {
		p, ok := t.parent[id]
		if !ok {
			break
		}
		chain = append(chain, id)
		if p == uuid.Nil {
			break
		}
		id = p
	}
	return chain
}

// height is the number of levels of id's live descendants, counted up to
// limit (as ticketdb.SubtreeHeight counts them).
func (t *tree) height(id uuid.UUID, limit int) int {
	h := 0
	level := []uuid.UUID{id}
	for h < limit {
		var next []uuid.UUID
		for _, n := range level {
			next = append(next, t.kids[n]...)
		}
		if len(next) == 0 {
			break
		}
		h++
		level = next
	}
	return h
}

// setParent makes parent the parent of child unless child has one (or is
// deleted or gone), or the tree would close a cycle or pass
// ticket.MaxDepth; it tells whether it did.
func (t *tree) setParent(child, parent uuid.UUID) bool {
	if child == parent {
		return false
	}
	if p, ok := t.parent[child]; !ok || p != uuid.Nil || t.deleted[child] {
		return false
	}
	chain := t.ancestors(parent, ticket.MaxDepth+1)
	if slices.Contains(chain, child) || len(chain)+1+t.height(child, ticket.MaxDepth+1) > ticket.MaxDepth {
		return false
	}
	t.parent[child] = parent
	t.kids[parent] = append(t.kids[parent], child)
	return true
}
