package sprint

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/sprintdb"
)

// Velocity is the API's project velocity: its last completed sprints,
// newest first.
type Velocity struct {
	Sprints []SprintVelocity `json:"sprints"`
}

// SprintVelocity is what one completed sprint committed and completed.
// Committed is the sprint's tickets (the tickets in it now: a ticket's
// sprint is not replayed from the audit trail); completed those of them
// in a done status at the end of the sprint's last day.
type SprintVelocity struct {
	SprintID          uuid.UUID     `json:"sprint_id"`
	Name              string        `json:"name"`
	StartDate         string        `json:"start_date"`
	EndDate           string        `json:"end_date"`
	CommittedEstimate civil.Decimal `json:"committed_estimate"`
	CompletedEstimate civil.Decimal `json:"completed_estimate"`
	CommittedTickets  int           `json:"committed_tickets"`
	CompletedTickets  int           `json:"completed_tickets"`
}

// DefaultVelocitySprints and MaxVelocitySprints bound ?sprints=.
const (
	DefaultVelocitySprints = 6
	MaxVelocitySprints     = 24
)

// Velocity reports the project's last n completed sprints (Viewer, as the
// burndown).
func (s *Service) Velocity(ctx context.Context, p domain.Principal, projectID uuid.UUID, n int) (Velocity, error) {
	if n < 1 || n > MaxVelocitySprints {
		return Velocity{}, domain.Invalid("sprints: must be between 1 and 24")
	}
	q := s.DB.Q()
	a, err := domain.ProjectAccess(ctx, q, p, projectID, domain.RoleViewer, "project")
	if err != nil {
		return Velocity{}, err
	}
	done, err := doneStatuses(ctx, q, a.OrgID, projectID)
	if err != nil {
		return Velocity{}, err
	}
	sprints, err := sprintdb.LastCompleted(ctx, q, a.OrgID, projectID, n)
	if err != nil {
		return Velocity{}, err
	}
	out := Velocity{Sprints: make([]SprintVelocity, 0, len(sprints))}
	for _, sp := range sprints {
		tickets, history, err := sprintHistory(ctx, q, sp)
		if err != nil {
			return Velocity{}, err
		}
		v := SprintVelocity{SprintID: sp.ID, Name: sp.Name, StartDate: sp.StartDate.String(),
			EndDate: sp.EndDate.String(), CommittedTickets: len(tickets)}
		end := sp.EndDate.AddDays(1).Time()
		for _, t := range tickets {
			e := estimateOf(t)
			v.CommittedEstimate += e
			if done[statusAt(t.Status, history[t.ID], end)] {
				v.CompletedTickets++
				v.CompletedEstimate += e
			}
		}
		out.Sprints = append(out.Sprints, v)
	}
	return out, nil
}

// doneStatuses are the names of the done category in the project's
// workflow ("Done" when it has none).
func doneStatuses(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) (map[string]bool, error) {
	statuses, err := workflowStatuses(ctx, q, orgID, projectID)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, st := range statuses {
		if st.Category == categoryDone {
			done[st.Name] = true
		}
	}
	if len(statuses) == 0 {
		done["Done"] = true // no workflow at all: the default name of finished work
	}
	return done, nil
}

// sprintHistory reads a sprint's tickets and their status changes.
func sprintHistory(ctx context.Context, q store.Querier, sp sprintdb.Row) ([]sprintdb.Ticket, map[uuid.UUID][]sprintdb.StatusChange, error) {
	tickets, err := sprintdb.SprintTickets(ctx, q, sp.OrgID, sp.ID)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]uuid.UUID, len(tickets))
	for i, t := range tickets {
		ids[i] = t.ID
	}
	changes, err := sprintdb.StatusChanges(ctx, q, sp.OrgID, ids)
	if err != nil {
		return nil, nil, err
	}
	history := make(map[uuid.UUID][]sprintdb.StatusChange, len(tickets))
	for _, c := range changes {
		history[c.TicketID] = append(history[c.TicketID], c)
	}
	return tickets, history, nil
}

// estimateOf is a ticket's estimate, 0 without one.
func estimateOf(t sprintdb.Ticket) civil.Decimal {
	if t.Estimate == nil {
		return 0
	}
	return *t.Estimate
}
