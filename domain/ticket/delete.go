package ticket

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Dependents counts what a ticket delete would take with it.
type Dependents struct {
	Comments int64 `json:"comments"`
	// Links are removed with the ticket (they never block a delete).
	Links int64 `json:"links"`
}

// DeletePreview is the dry-run answer of a ticket delete.
type DeletePreview struct {
	TicketID   uuid.UUID  `json:"ticket_id"`
	Dependents Dependents `json:"dependents"`
}

// Delete removes a ticket (Admin). With comments and without cascade it is a
// 409 naming them; with cascade the ticket is hidden at once and its comments
// purged by a durable job; without comments it is deleted for real. dryRun
// only reports the dependents (the preview is non-nil then).
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID, cascade, dryRun bool) (*DeletePreview, error) {
	var preview *DeletePreview
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketdb.GetForChange(ctx, q, id, p.UserID, !dryRun)
		if err != nil {
			return domain.NotFoundAs(err, "ticket")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleAdmin, "ticket"); err != nil {
			return err
		}
		// The row is locked (FOR UPDATE) by the read: its version cannot
		// change before the delete commits.
		if err := domain.CheckIfMatch(ctx, "ticket", t.Row.RowVersion); err != nil {
			return err
		}
		counts, err := ticketdb.CommentCounts(ctx, q, []uuid.UUID{id})
		if err != nil {
			return err
		}
		n := counts[id]
		if dryRun {
			links, err := ticketdb.CountLinks(ctx, q, []uuid.UUID{id})
			if err != nil {
				return err
			}
			preview = &DeletePreview{TicketID: id, Dependents: Dependents{Comments: n, Links: links[id]}}
			return nil
		}
		if n > 0 && !cascade {
			return domain.Conflict("ticket has comments; delete with cascade=true to remove them", fmt.Sprintf("comments: %d", n))
		}
		return s.remove(ctx, q, p, t.Row, n)
	})
	return preview, err
}

// remove deletes one authorized ticket: soft, with a scheduled purge, when it
// has comments; for real otherwise, unless other records (time entries) still
// point at it: then it becomes a tombstone and the purge removes what may go
// (draft and submitted entries) and keeps it only for approved ones. The
// audit row commits with it.
func (s *Service) remove(ctx context.Context, q store.Querier, p domain.Principal, t ticketdb.Row, comments int64) error {
	now := s.now()
	soft := comments > 0
	// Links go at once, soft delete or not: a hidden ticket blocks nothing.
	if err := ticketdb.DeleteLinksOf(ctx, q, t.OrgID, t.ID); err != nil {
		return err
	}
	var err error
	if soft {
		err = ticketdb.SoftDelete(ctx, q, t.OrgID, t.ID, now)
	} else {
		soft, err = ticketdb.HardDelete(ctx, q, t.OrgID, t.ID, now)
	}
	if err != nil {
		return domain.NotFoundAs(err, "ticket")
	}
	if soft {
		if err := domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: t.OrgID, EntityType: "ticket", EntityID: t.ID}, now); err != nil {
			return err
		}
	}
	return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.OrgID, ActorID: &p.UserID, EntityType: "ticket",
		EntityID: t.ID, Action: ActionDeleted})
}

// Blocked is a ticket a batch delete left alone because of its dependents.
type Blocked struct {
	ID         uuid.UUID  `json:"id"`
	Dependents Dependents `json:"dependents"`
}

// BatchDeleteResult is the answer of a batch delete.
type BatchDeleteResult struct {
	Deleted []uuid.UUID `json:"deleted"`
	Blocked []Blocked   `json:"blocked"`
}

// BatchDelete deletes tickets (Admin on each) in one transaction: those with
// comments are blocked unless cascade. Every id must name a ticket the caller
// can see, else the whole call is a 422 listing the others. dryRun reports
// what would happen and changes nothing.
func (s *Service) BatchDelete(ctx context.Context, p domain.Principal, ids []string, cascade, dryRun bool) (BatchDeleteResult, error) {
	var out BatchDeleteResult
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		out = BatchDeleteResult{Deleted: []uuid.UUID{}, Blocked: []Blocked{}} // afresh on a retried transaction
		ts, err := loadAll(ctx, q, p, ids, domain.RoleAdmin, !dryRun)
		if err != nil {
			return err
		}
		tids := make([]uuid.UUID, len(ts))
		for i, t := range ts {
			tids[i] = t.Row.ID
		}
		counts, err := ticketdb.CommentCounts(ctx, q, tids)
		if err != nil {
			return err
		}
		links, err := ticketdb.CountLinks(ctx, q, tids)
		if err != nil {
			return err
		}
		for _, t := range ts {
			n := counts[t.Row.ID]
			if n > 0 && !cascade {
				out.Blocked = append(out.Blocked, Blocked{ID: t.Row.ID, Dependents: Dependents{Comments: n, Links: links[t.Row.ID]}})
				continue
			}
			if !dryRun {
				if err := s.remove(ctx, q, p, t.Row, n); err != nil {
					return err
				}
			}
			out.Deleted = append(out.Deleted, t.Row.ID)
		}
		return nil
	})
	if err != nil {
		return BatchDeleteResult{}, err
	}
	return out, nil
}
