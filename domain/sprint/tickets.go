package sprint

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/sprintdb"
)

// MaxBatch caps the ticket ids of one batch call.
const MaxBatch = 1000

// Ticket is the API's Ticket resource.
type Ticket = ticket.Ticket

// BatchAssign puts tickets of the sprint's project into the sprint (Member)
// and answers how many tickets moved into it (tickets already in it are not
// counted, so the call is idempotent). A Completed sprint takes no tickets.
// Each moved ticket gets an audit row (field sprint_id) and a ticket.updated
// event.
func (s *Service) BatchAssign(ctx context.Context, p domain.Principal, id uuid.UUID, ticketIDs []uuid.UUID) (int, error) {
	ids := domain.Dedupe(ticketIDs)
	if len(ids) > MaxBatch {
		return 0, domain.Invalid("ticket_ids: must have at most " + strconv.Itoa(MaxBatch) + " items")
	}
	var assigned int
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		sp, err := load(ctx, q, p, id, domain.RoleMember, sprintdb.ForChange)
		if err != nil {
			return err
		}
		if sp.Status == StatusCompleted {
			return domain.Conflict("the sprint is Completed; tickets cannot be added to it", "status: "+sp.Status)
		}
		found, err := sprintdb.LiveTickets(ctx, q, sp.OrgID, sp.ProjectID, ids)
		if err != nil {
			return err
		}
		if err := domain.RequireAll("ticket_ids", ids, found, func(t sprintdb.Ticket) uuid.UUID { return t.ID }, "is not a ticket of the sprint's project"); err != nil {
			return err
		}
		before := make(map[uuid.UUID]*uuid.UUID, len(found))
		var move []uuid.UUID
		for _, t := range found {
			if t.SprintID == nil || *t.SprintID != id {
				before[t.ID] = t.SprintID
				move = append(move, t.ID)
			}
		}
		if len(move) == 0 {
			return nil
		}
		moved, err := sprintdb.SetSprint(ctx, q, sp.OrgID, id, move, s.now())
		if err != nil {
			return err
		}
		data, err := ticket.Render(ctx, q, sp.OrgID, moved...)
		if err != nil {
			return err
		}
		for i, t := range moved {
			if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: sp.OrgID, ActorID: &p.UserID, EntityType: "ticket",
				EntityID: t.ID, Action: "updated", Changes: []domain.FieldChange{{Field: "sprint_id", Old: before[t.ID], New: id}},
				Events: []string{domain.EventTicketUpdated}, Data: data[i]}); err != nil {
				return err
			}
		}
		assigned = len(moved)
		return nil
	})
	return assigned, err
}
