package importer

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/ticketdb"
)

// relationChunk is how many staged tickets the relations pass reads at once.
const relationChunk = 2000

// relations is the last pass of an import, run by Finish once every ticket
// is in: it sets the parents and writes the links the document's tickets
// carry (the additive parent and links of version 1). Both ends are found
// through the key map of the import's source, so a reference to a ticket
// this source never brought in (a project export names tickets of other
// projects) is left out. Nothing is written twice: a parent is set only on
// a ticket without one, a link only when no link of that type joins the two
// tickets. A parent that would close a cycle or pass ticket.MaxDepth, a
// blocks link that would close a cycle of blocks, and a link beyond
// ticketdb.MaxLinks are left out too, as the API would refuse them.
func (r *Runner) relations(ctx context.Context, q store.Querier, row importdb.Row) (importdb.Counts, error) {
	var c importdb.Counts
	locked := false
	for from := 1; from <= row.TicketsTotal; from += relationChunk {
		items, err := importdb.Items(ctx, q, row.ID, from, min(from+relationChunk, row.TicketsTotal+1))
		if err != nil {
			return c, err
		}
		var todo []staged
		var keys []string
		for _, it := range items {
			var s staged
			if err := json.Unmarshal(it.Payload, &s); err != nil {
				return c, permanent("staged ticket %d does not decode: %v", it.Seq, err)
			}
			if s.Ticket.Parent == nil && len(s.Ticket.Links) == 0 {
				continue
			}
			todo = append(todo, s)
			keys = append(keys, ticketKey(s.Project, s.Ticket.Number))
			if s.Ticket.Parent != nil {
				keys = append(keys, refKey(*s.Ticket.Parent))
			}
			for _, l := range s.Ticket.Links {
				keys = append(keys, refKey(l.Ticket))
			}
		}
		if len(todo) == 0 {
			continue
		}
		if !locked {
			if err := ticketdb.LockOrgParents(ctx, q, row.OrgID); err != nil {
				return c, err
			}
			if err := ticketdb.LockOrgLinks(ctx, q, row.OrgID); err != nil {
				return c, err
			}
			locked = true
		}
		ids, err := importdb.Keys(ctx, q, row.OrgID, row.Source, importdb.KindTicket, slices.Compact(slices.Sorted(slices.Values(keys))))
		if err != nil {
			return c, err
		}
		set, err := setParents(ctx, q, todo, ids)
		if err != nil {
			return c, err
		}
		c.ParentsSet += set
		made, err := r.links(ctx, q, row, todo, ids)
		if err != nil {
			return c, err
		}
		c.LinksCreated += made
	}
	return c, nil
}

// refKey is the key-map key of a document reference (validated KEY-NUMBER).
func refKey(ref string) string {
	k, n, _ := ticket.ParseRef(ref)
	return strings.ToUpper(ticket.FormatRef(k, n))
}

// setParents sets the parents of a chunk's tickets in document order,
// checked against the tree around them read at once, and written in one
// statement; it returns how many it set.
func setParents(ctx context.Context, q store.Querier, todo []staged, ids map[string]uuid.UUID) (int, error) {
	var pairs []parentPair
	var children []uuid.UUID
	for _, s := range todo {
		self, ok := ids[ticketKey(s.Project, s.Ticket.Number)]
		if !ok || s.Ticket.Parent == nil {
			continue
		}
		if parent, ok := ids[refKey(*s.Ticket.Parent)]; ok {
			pairs = append(pairs, parentPair{child: self, parent: parent})
			children = append(children, self)
		}
	}
	if len(pairs) == 0 {
		return 0, nil
	}
	// Most children got their parent in their batch (parentsAtInsert); the
	// tree is read for the others only.
	orphans, err := importdb.Orphans(ctx, q, children)
	if err != nil {
		return 0, err
	}
	pairs = slices.DeleteFunc(pairs, func(p parentPair) bool { return !orphans[p.child] })
	if len(pairs) == 0 {
		return 0, nil
	}
	t, err := loadTree(ctx, q, pairs)
	if err != nil {
		return 0, err
	}
	children = children[:0]
	var parents []uuid.UUID
	for _, p := range pairs {
		if t.setParent(p.child, p.parent) {
			children, parents = append(children, p.child), append(parents, p.parent)
		}
	}
	return importdb.SetParents(ctx, q, children, parents)
}

// links writes the links a chunk's tickets carry, in document order,
// checked against the links around them read at once (see add), and
// written in one statement; it returns how many it wrote.
func (r *Runner) links(ctx context.Context, q store.Querier, row importdb.Row, todo []staged, ids map[string]uuid.UUID) (int, error) {
	var wants []linkWant
	for _, s := range todo {
		self, ok := ids[ticketKey(s.Project, s.Ticket.Number)]
		if !ok {
			continue
		}
		for _, l := range s.Ticket.Links {
			if other, ok := ids[refKey(l.Ticket)]; ok {
				wants = append(wants, linkWant{source: self, target: other, typ: l.Type})
			}
		}
	}
	if len(wants) == 0 {
		return 0, nil
	}
	g, err := loadLinks(ctx, q, wants)
	if err != nil {
		return 0, err
	}
	var rows []ticketdb.LinkRow
	for _, w := range wants {
		if g.add(w.source, w.target, w.typ) {
			rows = append(rows, ticketdb.LinkRow{ID: domain.NewID(), OrgID: row.OrgID, SourceID: w.source, TargetID: w.target,
				Type: w.typ, CreatedBy: row.RequestedBy, CreatedAt: r.now()})
		}
	}
	return len(rows), importdb.InsertLinks(ctx, q, rows)
}
