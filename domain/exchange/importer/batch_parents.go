package importer

import (
	"github.com/google/uuid"

	"tracker/store/exchangedb/importdb"
	"tracker/store/ticketdb"
)

// parentsAtInsert gives each new ticket of the batch, in document order, its
// parent when that parent is in already: a ticket this source brought in
// before (known, by key: an earlier batch, an earlier import, a matched
// ticket) or an earlier row of this batch. The checks are the last pass's
// (tree.setParent: depth, cycles), on the tree above the known parents read
// at once. Then, in document order again, the tickets whose parent is a
// later row of this batch get it too: the rows go in with one statement,
// whose foreign-key check runs once all of them are in, and the tree holds
// every ticket of the batch with the parents just given. Setting the parent
// in the ticket's insert spares the second write of the row (every index
// entry of the ticket again) the last pass would make; a parent in a later
// batch is left to it, and it leaves a ticket that has a parent alone.
func (b *batchRun) parentsAtInsert(ins []*pending, known map[string]uuid.UUID) error {
	var up []uuid.UUID
	seen := map[uuid.UUID]bool{}
	wanted := false
	for _, p := range ins {
		if p.t.Parent == nil {
			continue
		}
		wanted = true
		if id, ok := known[refKey(*p.t.Parent)]; ok && !seen[id] {
			seen[id] = true
			up = append(up, id)
		}
	}
	if !wanted {
		return nil
	}
	var anc []importdb.TreeNode
	if len(up) > 0 {
		// Parents already in may have their own parents changed meanwhile
		// through the API, which takes the same lock.
		if err := ticketdb.LockOrgParents(b.ctx, b.q, b.row.OrgID); err != nil {
			return err
		}
		var err error
		if anc, _, err = importdb.ParentTree(b.ctx, b.q, up, nil); err != nil {
			return err
		}
	}
	t := treeOf(anc)
	here := make(map[string]uuid.UUID, len(ins))
	var later []*pending
	for _, p := range ins {
		t.parent[p.row.ID] = uuid.Nil
		if p.t.Parent != nil {
			ref := refKey(*p.t.Parent)
			id, ok := here[ref]
			if !ok {
				id, ok = known[ref]
			}
			if !ok {
				later = append(later, p)
			}
			// A known key whose ticket is gone (not read) is left out.
			if _, in := t.parent[id]; ok && in && t.setParent(p.row.ID, id) {
				p.row.ParentID = &id
				b.counts.ParentsSet++
			}
		}
		here[ticketKey(p.key, p.t.Number)] = p.row.ID
	}
	for _, p := range later {
		if id, ok := here[refKey(*p.t.Parent)]; ok && t.setParent(p.row.ID, id) {
			p.row.ParentID = &id
			b.counts.ParentsSet++
		}
	}
	return nil
}
