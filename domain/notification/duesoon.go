package notification

import (
	"context"
	"encoding/json"
	"time"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/notificationdb"
)

var defaultStatuses, _ = json.Marshal(statusflow.DefaultStatuses())

// SweepDueSoon tells each watcher of a ticket due tomorrow (UTC, by the
// service's clock) that is not closed (a done or cancelled status), once
// per ticket and due date however often it runs, and returns how many it
// told. It is idempotent, so a scheduler may run it as often as it likes
// (hourly is the intent); a ticket whose due date moves to tomorrow again
// is told again.
func (s *Service) SweepDueSoon(ctx context.Context) (int, error) {
	now := s.now()
	day := civil.DateOf(now.UTC().AddDate(0, 0, 1))
	n := 0
	err := s.db.InTx(ctx, func(q store.Querier) error {
		due, err := notificationdb.DueOn(ctx, q, day, defaultStatuses)
		if err != nil || len(due) == 0 {
			return err
		}
		rows := make([]notificationdb.New, len(due))
		for i, d := range due {
			rows[i] = dueRow(d, now)
		}
		written, err := notificationdb.Insert(ctx, q, rows)
		n = len(written)
		return err
	})
	return n, err
}

func dueRow(d notificationdb.Due, at time.Time) notificationdb.New {
	project, ticket, due := d.ProjectID, d.TicketID, d.DueDate
	return notificationdb.New{ID: domain.NewID(), UserID: d.UserID, Type: TypeDueSoon, OrgID: d.OrgID, ProjectID: &project,
		TicketID: &ticket, Excerpt: "Due " + due.String(), CreatedAt: at.UTC(), DueOn: &due}
}
