package label

import (
	"context"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/labeldb"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ticketFor loads a visible ticket and authorizes the caller on its project.
func ticketFor(ctx context.Context, q store.Querier, p domain.Principal, ticketID uuid.UUID, min domain.Role, lock bool) (labeldb.Ticket, error) {
	t, err := labeldb.TicketWithAccess(ctx, q, ticketID, p.UserID, lock)
	if err != nil {
		return t, domain.NotFoundAs(err, "ticket")
	}
	_, err = domain.Authorize(p, domain.MembershipFrom(t.AccessRow), min, "ticket")
	return t, err
}

// TicketLabels lists a ticket's labels by name (any member who sees it).
func (s *Service) TicketLabels(ctx context.Context, p domain.Principal, ticketID uuid.UUID) ([]Label, error) {
	q := s.DB.Q()
	t, err := ticketFor(ctx, q, p, ticketID, domain.RoleViewer, false)
	if err != nil {
		return nil, err
	}
	rows, err := labeldb.OfTicket(ctx, q, t.OrgID, ticketID)
	return toLabels(rows), err
}

// ReplaceTicketLabels sets a ticket's labels to exactly labelIDs (Member on
// the ticket's project) and returns them.
func (s *Service) ReplaceTicketLabels(ctx context.Context, p domain.Principal, ticketID uuid.UUID, labelIDs []uuid.UUID) ([]Label, error) {
	want := domain.Dedupe(labelIDs)
	var out []Label
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketFor(ctx, q, p, ticketID, domain.RoleMember, true)
		if err != nil {
			return err
		}
		live, err := labeldb.Live(ctx, q, t.OrgID, want)
		if err != nil {
			return err
		}
		if err := domain.RequireAll("label_ids", want, live, func(l labeldb.Row) uuid.UUID { return l.ID }, "is not a label of the ticket's organization"); err != nil {
			return err
		}
		before, err := labelSets(ctx, q, t.OrgID, []uuid.UUID{ticketID})
		if err != nil {
			return err
		}
		old := before[ticketID]
		if gone := minus(old, want); len(gone) > 0 {
			if _, err := labeldb.RemoveLabels(ctx, q, t.OrgID, ticketID, gone); err != nil {
				return err
			}
		}
		if added := minus(want, old); len(added) > 0 {
			if _, err := labeldb.AddLabels(ctx, q, t.OrgID, ticketID, added); err != nil {
				return err
			}
		}
		if err := s.recordLabels(ctx, q, p, t.OrgID, ticketID, old, sorted(want)); err != nil {
			return err
		}
		rows, err := labeldb.OfTicket(ctx, q, t.OrgID, ticketID)
		out = toLabels(rows)
		return err
	})
	return out, err
}

// AddTicketLabel links one label to a ticket (Member; idempotent) and
// returns the ticket's labels.
func (s *Service) AddTicketLabel(ctx context.Context, p domain.Principal, ticketID, labelID uuid.UUID) ([]Label, error) {
	var out []Label
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketFor(ctx, q, p, ticketID, domain.RoleMember, true)
		if err != nil {
			return err
		}
		live, err := labeldb.Live(ctx, q, t.OrgID, []uuid.UUID{labelID})
		if err != nil {
			return err
		}
		if len(live) == 0 {
			return domain.NotFound("label")
		}
		before, err := labelSets(ctx, q, t.OrgID, []uuid.UUID{ticketID})
		if err != nil {
			return err
		}
		n, err := labeldb.AddLabels(ctx, q, t.OrgID, ticketID, []uuid.UUID{labelID})
		if err != nil {
			return err
		}
		if n > 0 {
			old := before[ticketID]
			if err := s.recordLabels(ctx, q, p, t.OrgID, ticketID, old, sorted(append(slices.Clone(old), labelID))); err != nil {
				return err
			}
		}
		rows, err := labeldb.OfTicket(ctx, q, t.OrgID, ticketID)
		out = toLabels(rows)
		return err
	})
	return out, err
}

// RemoveTicketLabel unlinks a label from a ticket (Member); a label that is
// not on the ticket is a 404.
func (s *Service) RemoveTicketLabel(ctx context.Context, p domain.Principal, ticketID, labelID uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketFor(ctx, q, p, ticketID, domain.RoleMember, true)
		if err != nil {
			return err
		}
		before, err := labelSets(ctx, q, t.OrgID, []uuid.UUID{ticketID})
		if err != nil {
			return err
		}
		old := before[ticketID]
		if !slices.Contains(old, labelID) {
			return domain.NotFound("label on this ticket")
		}
		if _, err := labeldb.RemoveLabels(ctx, q, t.OrgID, ticketID, []uuid.UUID{labelID}); err != nil {
			return err
		}
		return s.recordLabels(ctx, q, p, t.OrgID, ticketID, old, without(old, labelID))
	})
}
