package importer

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
	"tracker/store/ticketdb"
)

func TestLinkGraphAddRefusesDuplicatesCyclesAndFullTickets(t *testing.T) {
	n := ids(4)
	g := &linkGraph{have: map[linkEnds]bool{}, counts: map[uuid.UUID]int64{}, blocks: map[uuid.UUID][]uuid.UUID{}}
	if !g.add(n[0], n[1], ticket.LinkBlocks) || !g.add(n[1], n[2], ticket.LinkBlocks) {
		t.Fatal("a chain of blocks was refused")
	}
	if g.add(n[0], n[1], ticket.LinkBlocks) {
		t.Fatal("a link was written twice")
	}
	if g.add(n[2], n[0], ticket.LinkBlocks) {
		t.Fatal("a link closing a cycle of blocks was written")
	}
	if !g.add(n[2], n[0], ticket.LinkRelatesTo) || g.add(n[0], n[2], ticket.LinkRelatesTo) {
		t.Fatal("relates_to is one link whichever way it is listed")
	}
	if g.add(n[3], n[3], ticket.LinkDuplicates) {
		t.Fatal("a ticket was linked to itself")
	}
	g.counts[n[3]] = ticketdb.MaxLinks
	if g.add(n[0], n[3], ticket.LinkDuplicates) {
		t.Fatal("a ticket got more than MaxLinks links")
	}
	if g.counts[n[0]] != 2 || g.counts[n[2]] != 2 {
		t.Fatalf("counts = %v, want 2 for both ends of two links", g.counts)
	}
}
