package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// AuditRow is one recorded change.
type AuditRow struct {
	ID         uuid.UUID  `db:"id"`
	OrgID      uuid.UUID  `db:"org_id"`
	ActorID    *uuid.UUID `db:"actor_id"`
	EntityType string     `db:"entity_type"`
	EntityID   uuid.UUID  `db:"entity_id"`
	Action     string     `db:"action"`
	Changes    []byte     `db:"changes"`
	CreatedAt  time.Time  `db:"created_at"`
}

// InsertAudit appends an audit row.
func InsertAudit(ctx context.Context, q Querier, r AuditRow) error {
	_, err := Exec(ctx, q, SQL.Insert("audit_log").
		Columns("id", "org_id", "actor_id", "entity_type", "entity_id", "action", "changes", "created_at").
		Values(r.ID, r.OrgID, r.ActorID, r.EntityType, r.EntityID, r.Action, string(r.Changes), r.CreatedAt))
	return err
}

// OutboxRow is one event or durable job waiting for the relay.
type OutboxRow struct {
	ID           uuid.UUID  `db:"id"`
	OrgID        uuid.UUID  `db:"org_id"`
	Topic        string     `db:"topic"`
	Payload      []byte     `db:"payload"`
	CreatedAt    time.Time  `db:"created_at"`
	DispatchedAt *time.Time `db:"dispatched_at"`
}

// InsertOutbox appends an outbox row; the table's trigger NOTIFYs the relay
// when the transaction commits.
func InsertOutbox(ctx context.Context, q Querier, r OutboxRow) error {
	_, err := Exec(ctx, q, SQL.Insert("outbox").
		Columns("id", "org_id", "topic", "payload", "created_at").
		Values(r.ID, r.OrgID, r.Topic, string(r.Payload), r.CreatedAt))
	return err
}
