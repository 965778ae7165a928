package notificationdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/store"
)

// Due is a watcher of a ticket due soon.
type Due struct {
	OrgID     uuid.UUID  `db:"org_id"`
	ProjectID uuid.UUID  `db:"project_id"`
	TicketID  uuid.UUID  `db:"ticket_id"`
	UserID    uuid.UUID  `db:"user_id"`
	DueDate   civil.Date `db:"due_date"`
}

// DueOn lists the watchers of every live ticket due on day whose status is
// not of a closed category (done, cancelled) in its project's workflow
// (defaultStatuses: the Default workflow's statuses as JSON, for an org
// that has no Default row), who have not been told of it yet. Insert
// checks each one's access and settings.
func DueOn(ctx context.Context, q store.Querier, day civil.Date, defaultStatuses []byte) ([]Due, error) {
	return store.SelectRaw[Due](ctx, q, `SELECT t.org_id, t.project_id, t.id AS ticket_id, w.user_id, t.due_date
	    FROM tickets t
	    JOIN projects p ON p.id = t.project_id AND p.deleted_at IS NULL
	    JOIN ticket_watchers w ON w.ticket_id = t.id
	    LEFT JOIN workflows cw ON cw.id = COALESCE(p.workflow_id,
	        (SELECT d.id FROM workflows d WHERE d.org_id = p.org_id AND d.name = 'Default'))
	    WHERE t.due_date = $1 AND t.deleted_at IS NULL
	      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(cw.statuses, $2::jsonb)) cs
	          WHERE cs.value->>'name' = t.status AND cs.value->>'category' IN ('done', 'cancelled'))
	      AND NOT EXISTS (SELECT 1 FROM notifications n
	          WHERE n.user_id = w.user_id AND n.ticket_id = t.id AND n.due_on = t.due_date AND n.type = 'due_soon')
	    ORDER BY t.id, w.user_id`, day, string(defaultStatuses))
}
