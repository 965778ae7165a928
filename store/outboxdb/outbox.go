// Package outboxdb holds the relay's SQL over the transactional outbox: claim
// pending rows, mark them dispatched, read an event's payload.
package outboxdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Channel is the LISTEN/NOTIFY channel the store pokes after a transaction
// that wrote outbox rows commits.
const Channel = store.OutboxChannel

// Claim locks up to limit pending rows, oldest first, for the caller's
// transaction. SKIP LOCKED lets any number of relays claim side by side
// without waiting on each other or taking the same row.
func Claim(ctx context.Context, q store.Querier, limit int) ([]store.OutboxRow, error) {
	return store.SelectRaw[store.OutboxRow](ctx, q, `
		SELECT id, org_id, topic, payload, created_at, dispatched_at
		FROM outbox WHERE dispatched_at IS NULL
		ORDER BY id LIMIT $1
		FOR UPDATE SKIP LOCKED`, limit)
}

// MarkDispatched stamps rows as handed to Temporal.
func MarkDispatched(ctx context.Context, q store.Querier, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := store.Exec(ctx, q, store.SQL.Update("outbox").Set("dispatched_at", sq.Expr("now()")).
		Where(sq.Eq{"id": ids}))
	return err
}

// PruneDispatched deletes up to limit rows dispatched before cutoff, oldest
// first, and returns how many it deleted. Pending rows are never touched.
func PruneDispatched(ctx context.Context, q store.Querier, cutoff time.Time, limit int) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM outbox WHERE id IN (
		SELECT id FROM outbox WHERE dispatched_at < $1 ORDER BY dispatched_at LIMIT $2)`, cutoff, limit)
	if err != nil {
		return 0, store.Translate(err)
	}
	return tag.RowsAffected(), nil
}

// Pending counts rows not dispatched yet.
func Pending(ctx context.Context, q store.Querier) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("outbox").Where("dispatched_at IS NULL"))
}

// Get reads one outbox row of an org (an event, for its webhook body).
func Get(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (store.OutboxRow, error) {
	return store.Get[store.OutboxRow](ctx, q, store.SQL.
		Select("id", "org_id", "topic", "payload", "created_at", "dispatched_at").From("outbox").
		Where(sq.Eq{"org_id": orgID, "id": id}))
}

// Listen holds one connection of db on LISTEN outbox and calls wake for
// every notification until ctx ends or the connection fails (the caller
// listens again). The connection is taken out of the pool for good, so it
// never returns to other users still subscribed.
func Listen(ctx context.Context, db *store.DB, wake func()) error {
	pc, err := db.Pool.Acquire(ctx)
	if err != nil {
		return store.Translate(err)
	}
	conn := pc.Hijack()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return store.Translate(err)
	}
	wake() // rows written while nobody listened
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		wake()
	}
}
