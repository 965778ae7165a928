package importer

import (
	"bytes"
	"context"
	"slices"

	"github.com/google/uuid"

	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/ticketdb"
)

// linkWant is a link a chunk's tickets carry.
type linkWant struct {
	source, target uuid.UUID
	typ            string
}

type linkEnds struct {
	source, target uuid.UUID
	typ            string
}

// linkGraph is the part of an org's links that a chunk of links can
// touch: the links already joining the pairs named, the link counts of
// their tickets, and every blocks link reachable from the targets of the
// blocks links named. Adding a link here keeps it whole (a blocks link
// added starts a path only into a target whose reachable links were read),
// so the chunk's checks need no query per link.
type linkGraph struct {
	have   map[linkEnds]bool
	counts map[uuid.UUID]int64
	blocks map[uuid.UUID][]uuid.UUID
}

func loadLinks(ctx context.Context, q store.Querier, wants []linkWant) (*linkGraph, error) {
	var sources, targets, ends, from []uuid.UUID
	for _, w := range wants {
		sources, targets = append(sources, w.source, w.target), append(targets, w.target, w.source)
		ends = append(ends, w.source, w.target)
		if w.typ == ticket.LinkBlocks {
			from = append(from, w.target)
		}
	}
	slices.SortFunc(ends, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	ends = slices.Compact(ends) // CountLinks counts an id once a time it is named
	g := &linkGraph{have: map[linkEnds]bool{}, blocks: map[uuid.UUID][]uuid.UUID{}}
	between, err := importdb.LinksBetween(ctx, q, sources, targets)
	if err != nil {
		return nil, err
	}
	for _, l := range between {
		g.have[linkEnds{l.SourceID, l.TargetID, l.Type}] = true
	}
	if g.counts, err = ticketdb.CountLinks(ctx, q, ends); err != nil {
		return nil, err
	}
	if len(from) > 0 {
		reach, err := importdb.BlocksFrom(ctx, q, from)
		if err != nil {
			return nil, err
		}
		for _, l := range reach {
			g.blocks[l.SourceID] = append(g.blocks[l.SourceID], l.TargetID)
		}
	}
	return g, nil
}

// blocksPath reports whether from blocks to, directly or through other tickets.
func (g *linkGraph) blocksPath(from, to uuid.UUID) bool {
	seen := map[uuid.UUID]bool{from: true}
	queue := []uuid.UUID{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == to {
			return true
		}
		for _, m := range g.blocks[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return false
}

// add takes a link from source to target unless one of the type joins them
// (either way for relates_to), it would close a cycle of blocks, or either
// ticket has ticketdb.MaxLinks links; it tells whether it did.
func (g *linkGraph) add(source, target uuid.UUID, typ string) bool {
	if source == target || g.have[linkEnds{source, target, typ}] ||
		typ == ticket.LinkRelatesTo && g.have[linkEnds{target, source, typ}] {
		return false
	}
	if typ == ticket.LinkBlocks && g.blocksPath(target, source) {
		return false
	}
	if g.counts[source] >= ticketdb.MaxLinks || g.counts[target] >= ticketdb.MaxLinks {
		return false
	}
	g.have[linkEnds{source, target, typ}] = true
	g.counts[source]++
	g.counts[target]++
	if typ == ticket.LinkBlocks {
		g.blocks[source] = append(g.blocks[source], target)
	}
	return true
}
