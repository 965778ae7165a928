package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/google/uuid"

	"tracker/internal/traceparent"
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
	// Via is what an integration acted through (JSON), nil for people.
	Via []byte `db:"via"`
}

// InsertAudit appends an audit row.
func InsertAudit(ctx context.Context, q Querier, r AuditRow) error {
	_, err := Exec(ctx, q, SQL.Insert("audit_log").
		Columns("id", "org_id", "actor_id", "entity_type", "entity_id", "action", "changes", "created_at", "via").
		Values(r.ID, r.OrgID, r.ActorID, r.EntityType, r.EntityID, r.Action, string(r.Changes), r.CreatedAt, viaArg(r.Via)))
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
	// Traceparent is the W3C traceparent of the request that wrote the row
	// (nil with tracing off): the relay's dispatch joins its trace. Inserts
	// take it from their context, not from this field.
	Traceparent *string `db:"traceparent"`
}

// InsertOutbox appends an outbox row; the relay is woken once the
// transaction commits.
func InsertOutbox(ctx context.Context, q Querier, r OutboxRow) error {
	return InsertChange(ctx, q, nil, []OutboxRow{r})
}

const (
	insertAuditSQL = `INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at, via)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	insertOutboxSQL = `INSERT INTO outbox (id, org_id, topic, payload, created_at, traceparent) VALUES ($1, $2, $3, $4, $5, $6)`
)

// InsertChange writes a change's audit row (if any) and outbox rows in one
// round trip (the rows carry the traceparent of ctx's span, if any): inside a transaction that holds a hot row lock (a project's
// ticket counter) every round trip saved shortens the queue behind it.
func InsertChange(ctx context.Context, q Querier, audit *AuditRow, outbox []OutboxRow) error {
	b := &pgx.Batch{}
	if audit != nil {
		r := audit
		b.Queue(insertAuditSQL, r.ID, r.OrgID, r.ActorID, r.EntityType, r.EntityID, r.Action, string(r.Changes), r.CreatedAt, viaArg(r.Via))
	}
	tp := traceparent.Arg(ctx)
	for _, r := range outbox {
		b.Queue(insertOutboxSQL, r.ID, r.OrgID, r.Topic, string(r.Payload), r.CreatedAt, tp)
	}
	if b.Len() == 0 {
		return nil
	}
	br := q.SendBatch(ctx, b)
	for i := 0; i < b.Len(); i++ {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return translate(err)
		}
	}
	if err := br.Close(); err != nil {
		return translate(err)
	}
	if len(outbox) > 0 {
		return MarkOutbox(ctx, q)
	}
	return nil
}

// viaArg binds an audit row's via as jsonb text, NULL when absent.
func viaArg(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
