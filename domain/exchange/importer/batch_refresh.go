package importer

import (
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/commentdb"
	"tracker/store/exchangedb/importdb"
)

// refresh brings a file of another tracker, imported before, up to date
// on the tickets it created then: their values as the file has them now,
// the labels they lack, and the comments not there yet (a comment is the
// same when its author, second and body are). A Tracker document's
// re-import skips them instead, as it always did.
func (b *batchRun) refresh(again []*pending) error {
	if len(again) == 0 {
		return nil
	}
	rs := make([]importdb.Refresh, len(again))
	ids := make([]uuid.UUID, len(again))
	for i, p := range again {
		rs[i] = importdb.Refresh{ID: p.row.ID, Content: p.row.Content, AssigneeID: p.row.AssigneeID, SprintID: p.row.SprintID,
			UpdatedAt: p.row.UpdatedAt}
		ids[i] = p.row.ID
	}
	changed, err := importdb.RefreshTickets(b.ctx, b.q, b.row.OrgID, rs)
	if err != nil {
		return err
	}
	have, err := importdb.CommentKeys(b.ctx, b.q, ids)
	if err != nil {
		return err
	}
	var comments []commentdb.Row
	var ltickets, labels []uuid.UUID
	for _, p := range again {
		for _, l := range p.t.Labels {
			if lid, ok := b.labels[strings.ToLower(l)]; ok {
				ltickets, labels = append(ltickets, p.row.ID), append(labels, lid)
			}
		}
		added := false
		for _, c := range p.t.Comments {
			author, err := b.user(c.Author)
			if err != nil {
				return err
			}
			at := orNow(c.CreatedAt, b.now)
			k := importdb.CommentKey(p.row.ID, author, at, c.Body)
			if have[k] {
				continue
			}
			have[k] = true
			added = true
			cm := commentdb.Row{ID: domain.NewID(), OrgID: b.row.OrgID, TicketID: p.row.ID, AuthorID: author, Content: c.Content,
				CreatedAt: at, RowVersion: 1}
			cm.UpdatedAt = orNow(c.UpdatedAt, cm.CreatedAt)
			comments = append(comments, cm)
		}
		if changed[p.row.ID] || added {
			b.counts.TicketsUpdated++
		} else {
			b.counts.TicketsSkipped++
		}
	}
	b.counts.CommentsCreated += len(comments)
	if err := importdb.InsertTicketLabels(b.ctx, b.q, b.row.OrgID, ltickets, labels, b.now); err != nil {
		return err
	}
	return commentdb.InsertMany(b.ctx, b.q, comments)
}
