package label

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/labeldb"
)

// MaxBatch caps the ticket ids of one batch call.
const MaxBatch = 1000

// BatchAssign links a label to several tickets of its org (Member on each
// ticket's project). It is idempotent and answers how many tickets were newly
// linked.
func (s *Service) BatchAssign(ctx context.Context, p domain.Principal, labelID uuid.UUID, ticketIDs []uuid.UUID) (int, error) {
	ids := domain.Dedupe(ticketIDs)
	if len(ids) > MaxBatch {
		return 0, domain.Invalid("ticket_ids: must have at most " + itoa(MaxBatch) + " items")
	}
	var assigned int
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		l, err := labeldb.GetWithAccess(ctx, q, labelID, p.UserID, labeldb.ForChange)
		if err != nil {
			return domain.NotFoundAs(err, "label")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(l.AccessRow), domain.RoleMember, "label"); err != nil {
			return err
		}
		found, err := labeldb.TicketsWithAccess(ctx, q, l.Row.OrgID, ids, p.UserID)
		if err != nil {
			return err
		}
		if err := domain.RequireAll("ticket_ids", ids, found, func(t labeldb.Ticket) uuid.UUID { return t.ID }, "is not a ticket of the label's organization"); err != nil {
			return err
		}
		for _, t := range found {
			if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleMember, "ticket"); err != nil {
				return err
			}
		}
		before, err := labelSets(ctx, q, l.Row.OrgID, ids)
		if err != nil {
			return err
		}
		linked, err := labeldb.LinkMany(ctx, q, l.Row.OrgID, labelID, ids)
		if err != nil {
			return err
		}
		for _, t := range linked {
			old := before[t]
			if err := s.recordLabels(ctx, q, p, l.Row.OrgID, t, old, sorted(append(slices.Clone(old), labelID))); err != nil {
				return err
			}
		}
		assigned = len(linked)
		return nil
	})
	return assigned, err
}

// labelSets maps each ticket to its live label ids, sorted.
func labelSets(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	links, err := labeldb.LinksOf(ctx, q, orgID, ticketIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID][]uuid.UUID, len(ticketIDs))
	for _, id := range ticketIDs {
		out[id] = []uuid.UUID{}
	}
	for _, l := range links {
		out[l.TicketID] = append(out[l.TicketID], l.LabelID)
	}
	for id := range out {
		out[id] = sorted(out[id])
	}
	return out, nil
}

// recordLabels writes the ticket's audit row for a change of its labels;
// nothing when the set is unchanged.
func (s *Service) recordLabels(ctx context.Context, q store.Querier, p domain.Principal, orgID, ticketID uuid.UUID, old, new []uuid.UUID) error {
	if slices.Equal(old, new) {
		return nil
	}
	return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "ticket", EntityID: ticketID,
		Action: "updated", Changes: []domain.FieldChange{{Field: "labels", Old: old, New: new}}})
}

func sorted(ids []uuid.UUID) []uuid.UUID {
	out := slices.Clone(ids)
	if out == nil {
		out = []uuid.UUID{}
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return out
}

func minus(a, b []uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	for _, id := range a {
		if !slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}

func without(ids []uuid.UUID, drop uuid.UUID) []uuid.UUID {
	return sorted(minus(ids, []uuid.UUID{drop}))
}
