package ticketdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// AuditRow is one entry of a ticket's activity feed.
type AuditRow struct {
	ID         uuid.UUID  `db:"id"`
	ActorID    *uuid.UUID `db:"actor_id"`
	EntityType string     `db:"entity_type"`
	Action     string     `db:"action"`
	Changes    []byte     `db:"changes"`
	CreatedAt  time.Time  `db:"created_at"`
	Via        []byte     `db:"via"`
}

// ActivityPage pages the audit rows of a ticket in id (creation) order: rows
// recorded on the ticket itself, and rows recorded on one of its comments
// (both by index audit_log_entity_idx).
func ActivityPage(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, p store.Page) (store.Paged[AuditRow], error) {
	b := store.SQL.Select("a.id", "a.actor_id", "a.entity_type", "a.action", "a.changes", "a.created_at", "a.via").
		From("audit_log a").
		Where(`a.org_id = ? AND ((a.entity_type = 'ticket' AND a.entity_id = ?)
		       OR (a.entity_type = 'comment' AND a.entity_id IN (SELECT c.id FROM comments c WHERE c.ticket_id = ?)))`,
			orgID, ticketID, ticketID)
	return store.SelectPage(ctx, q, b, "a.id", p, func(r AuditRow) uuid.UUID { return r.ID })
}
