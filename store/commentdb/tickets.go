package commentdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
)

// Ticket is the part of a visible ticket that comments need, with the
// caller's standing toward its project.
type Ticket struct {
	ID        uuid.UUID `db:"id"`
	ProjectID uuid.UUID `db:"project_id"`
	store.AccessRow
}

// TicketWithAccess reads a live ticket of a live project with the caller's
// access.
func TicketWithAccess(ctx context.Context, q store.Querier, ticketID, userID uuid.UUID) (Ticket, error) {
	sql := `SELECT t.id, t.project_id, ` + store.Cols(store.AccessColumns("t.org_id", "t.project_id", "$2")) + `
	        FROM tickets t JOIN projects p ON p.id = t.project_id
	        WHERE t.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	return store.GetRaw[Ticket](ctx, q, sql, ticketID, userID)
}
