package sprint

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/civil"
	"tracker/store/sprintdb"
)

// Burndown is the API's Sprint burndown.
type Burndown struct {
	SprintID uuid.UUID `json:"sprint_id"`
	Data     []Day     `json:"data"`
}

// Day is one daily entry of a burndown.
type Day struct {
	Date             string `json:"date"`
	TotalTickets     int    `json:"total_tickets"`
	CompletedTickets int    `json:"completed_tickets"`
	RemainingTickets int    `json:"remaining_tickets"`
	// The same of the tickets' estimates (a ticket without one counts 0).
	TotalEstimate     civil.Decimal `json:"total_estimate"`
	CompletedEstimate civil.Decimal `json:"completed_estimate"`
	RemainingEstimate civil.Decimal `json:"remaining_estimate"`
}

// Burndown reports, for every day from the sprint's start to its end date
// (UTC days), how many of the sprint's current tickets were in a status of
// the workflow's done category at the end of that day. Each ticket's status
// on a day is replayed from its audit trail; days still to come carry the
// current counts.
func (s *Service) Burndown(ctx context.Context, p domain.Principal, id uuid.UUID) (Burndown, error) {
	q := s.DB.Q()
	sp, err := load(ctx, q, p, id, domain.RoleViewer, sprintdb.NoLock)
	if err != nil {
		return Burndown{}, err
	}
	done, err := doneStatuses(ctx, q, sp.OrgID, sp.ProjectID)
	if err != nil {
		return Burndown{}, err
	}
	tickets, history, err := sprintHistory(ctx, q, sp)
	if err != nil {
		return Burndown{}, err
	}
	var total civil.Decimal
	for _, t := range tickets {
		total += estimateOf(t)
	}
	out := Burndown{SprintID: id, Data: []Day{}}
	for day := sp.StartDate.Time(); !day.After(sp.EndDate.Time()); day = day.AddDate(0, 0, 1) {
		endOfDay := day.AddDate(0, 0, 1)
		completed, estimate := 0, civil.Decimal(0)
		for _, t := range tickets {
			if done[statusAt(t.Status, history[t.ID], endOfDay)] {
				completed++
				estimate += estimateOf(t)
			}
		}
		out.Data = append(out.Data, Day{Date: day.Format(civil.DateLayout), TotalTickets: len(tickets),
			CompletedTickets: completed, RemainingTickets: len(tickets) - completed,
			TotalEstimate: total, CompletedEstimate: estimate, RemainingEstimate: total - estimate})
	}
	return out, nil
}

// statusAt is a ticket's status just before instant at: the new status of
// the last change before it; else the old status of the first change after
// it (the status the ticket had then); else, with no recorded change, its
// current status.
func statusAt(current string, changes []sprintdb.StatusChange, at time.Time) string {
	var last *sprintdb.StatusChange
	for i := range changes {
		if !changes[i].At.Before(at) {
			if last == nil {
				return deref(changes[i].Old)
			}
			break
		}
		last = &changes[i]
	}
	if last != nil {
		return deref(last.New)
	}
	return current
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
