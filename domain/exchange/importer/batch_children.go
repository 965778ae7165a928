package importer

import (
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/civil"
	"tracker/store/commentdb"
	"tracker/store/customfielddb"
	"tracker/store/exchangedb/importdb"
	"tracker/store/timeentrydb"
)

// children writes the labels, comments and time entries of the tickets the
// batch created, the key-map rows of every ticket it created or matched,
// and the audit rows of the tickets it created (with, for one the document
// says was resolved, its status change at that time).
func (b *batchRun) children(todo []*pending, matched map[string]uuid.UUID) error {
	var (
		keys             []importdb.Key
		ltickets, labels []uuid.UUID
		comments         []commentdb.Row
		entries          []timeentrydb.Row
		audTickets       []uuid.UUID
		resolved         []importdb.Resolution
		values           []customfielddb.Value
	)
	for k, id := range matched {
		keys = append(keys, importdb.Key{Kind: importdb.KindTicket, Key: k, ID: id})
	}
	for _, p := range todo {
		if !p.created {
			continue
		}
		id := p.row.ID
		keys = append(keys, importdb.Key{Kind: importdb.KindTicket, Key: ticketKey(p.key, p.t.Number), ID: id, Created: true})
		audTickets = append(audTickets, id)
		if p.t.ResolvedAt != nil {
			resolved = append(resolved, importdb.Resolution{Ticket: id, Status: p.row.Status, At: p.t.ResolvedAt.UTC()})
		}
		vals, err := b.customValues(p)
		if err != nil {
			return err
		}
		values = append(values, vals...)
		for _, l := range p.t.Labels {
			lid, ok := b.labels[strings.ToLower(l)]
			if !ok {
				return permanent("label %q is not part of the import", l)
			}
			ltickets, labels = append(ltickets, id), append(labels, lid)
		}
		ids := p.commentIDs
		for i, c := range p.t.Comments {
			author, err := b.user(c.Author)
			if err != nil {
				return err
			}
			cm := commentdb.Row{ID: ids[i], OrgID: b.row.OrgID, TicketID: id, AuthorID: author, Content: c.Content,
				CreatedAt: orNow(c.CreatedAt, b.now), RowVersion: 1}
			cm.UpdatedAt = orNow(c.UpdatedAt, cm.CreatedAt)
			if c.Parent != nil && *c.Parent >= 0 && *c.Parent < i {
				cm.ParentCommentID = &ids[*c.Parent]
			}
			comments = append(comments, cm)
		}
		for _, e := range p.t.TimeEntries {
			var err error
			if e.Content.Date, err = civil.ParseDate(e.Date); err != nil {
				return permanent("time entry date %q does not parse", e.Date)
			}
			te := timeentrydb.Row{ID: domain.NewID(), OrgID: b.row.OrgID, TicketID: id, ProjectID: p.row.ProjectID,
				Content: e.Content, Status: e.Status, ApprovedAt: e.ApprovedAt, CreatedAt: orNow(e.CreatedAt, b.now), RowVersion: 1}
			te.UpdatedAt = orNow(e.UpdatedAt, te.CreatedAt)
			if te.UserID, err = b.user(e.User); err != nil {
				return err
			}
			if te.ApprovedBy, te.SourceApprovedBy, err = b.approval(e); err != nil {
				return err
			}
			entries = append(entries, te)
		}
	}
	if err := b.periodsOpen(entries); err != nil {
		return err
	}
	b.counts.CommentsCreated += len(comments)
	b.counts.TimeEntriesCreated += len(entries)
	if err := importdb.InsertTicketLabels(b.ctx, b.q, b.row.OrgID, ltickets, labels, b.now); err != nil {
		return err
	}
	// One statement holds at most 65,535 parameters, nine a value.
	for len(values) > 0 {
		n := min(len(values), 5000)
		if err := customfielddb.Put(b.ctx, b.q, values[:n]); err != nil {
			return err
		}
		values = values[n:]
	}
	if err := commentdb.InsertMany(b.ctx, b.q, comments); err != nil {
		return err
	}
	if err := timeentrydb.InsertMany(b.ctx, b.q, entries); err != nil {
		return err
	}
	if err := importdb.PutKeys(b.ctx, b.q, b.row.OrgID, b.row.Source, b.row.ID, keys); err != nil {
		return err
	}
	if err := importdb.InsertResolutions(b.ctx, b.q, b.row.OrgID, b.row.RequestedBy, resolved, domain.NewID); err != nil {
		return err
	}
	return b.audit(audTickets)
}

// audit records the created tickets with the action "imported"; their
// comments and time entries came with them and share that record.
func (b *batchRun) audit(tickets []uuid.UUID) error {
	return importdb.InsertAudits(b.ctx, b.q, b.row.OrgID, b.row.RequestedBy, ActionImported, b.now,
		importdb.Audit{EntityType: "ticket", IDs: tickets}, domain.NewID)
}
