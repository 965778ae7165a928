// Package outboxdb holds the relay's SQL over the transactional outbox: claim
// pending rows, mark them dispatched, read an event's payload.
package outboxdb

import (
	"bytes"
	"context"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Channel is the LISTEN/NOTIFY channel the store pokes after a transaction
// that wrote outbox rows commits.
const Channel = store.OutboxChannel

// Claimed is a row a relay took, with the attempts it already had.
type Claimed struct {
	store.OutboxRow
	Attempts int `db:"attempts"`
}

// due is the condition of a row a relay may take now: pending (neither
// dispatched nor parked) and not leased to a relay or backing off.
const due = `dispatched_at IS NULL AND dead_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= now())`

// Claim takes up to limit due rows, oldest first, and leases them for lease:
// other relays skip them until the lease ends, so a relay that dies
// mid-dispatch only delays its rows. It is one short statement (no Temporal
// call runs inside a transaction); SKIP LOCKED lets any number of relays
// claim side by side without waiting on each other.
func Claim(ctx context.Context, q store.Querier, limit int, lease time.Duration) ([]Claimed, error) {
	rows, err := store.SelectRaw[Claimed](ctx, q, `
		UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2)
		WHERE id IN (SELECT id FROM outbox WHERE `+due+` ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
		RETURNING id, org_id, topic, payload, created_at, dispatched_at, traceparent, attempts`, limit, lease.Seconds())
	slices.SortFunc(rows, func(a, b Claimed) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return rows, err
}

// MarkDispatched stamps rows as handed to Temporal.
func MarkDispatched(ctx context.Context, q store.Querier, ids ...uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := store.Exec(ctx, q, store.SQL.Update("outbox").Set("dispatched_at", sq.Expr("now()")).
		Set("next_attempt_at", nil).Where(sq.Eq{"id": ids}))
	return err
}

// Failed records a failed attempt at a row: attempts+1 and the error, and
// either its next attempt after wait (the database's clock) or, with park,
// the row parked dead.
func Failed(ctx context.Context, q store.Querier, id uuid.UUID, msg string, wait time.Duration, park bool) error {
	_, err := q.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = $2,
		next_attempt_at = CASE WHEN $4 THEN NULL ELSE now() + make_interval(secs => $3) END,
		dead_at = CASE WHEN $4 THEN now() END
		WHERE id = $1 AND dispatched_at IS NULL`, id, msg, wait.Seconds(), park)
	return store.Translate(err)
}

// Postpone hands a row back without counting an attempt (Temporal was
// unreachable, or the relay is stopping: not the row's fault), due again
// after wait.
func Postpone(ctx context.Context, q store.Querier, id uuid.UUID, msg string, wait time.Duration) error {
	_, err := q.Exec(ctx, `UPDATE outbox SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3)
		WHERE id = $1 AND dispatched_at IS NULL AND dead_at IS NULL`, id, msg, wait.Seconds())
	return store.Translate(err)
}

// DeadRow is a parked row, as an operator lists it.
type DeadRow struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	Topic     string    `db:"topic"`
	Attempts  int       `db:"attempts"`
	LastError *string   `db:"last_error"`
	CreatedAt time.Time `db:"created_at"`
	DeadAt    time.Time `db:"dead_at"`
}

// Dead lists parked rows, most recently parked first, at most limit.
func Dead(ctx context.Context, q store.Querier, limit int) ([]DeadRow, error) {
	return store.SelectRaw[DeadRow](ctx, q, `
		SELECT id, org_id, topic, attempts, last_error, created_at, dead_at
		FROM outbox WHERE dead_at IS NOT NULL ORDER BY dead_at DESC, id LIMIT $1`, limit)
}

// Retry puts a parked row back in line with a fresh count of attempts (its
// last error is kept until the next attempt). store.ErrNotFound: no parked
// row has the id.
func Retry(ctx context.Context, q store.Querier, id uuid.UUID) error {
	tag, err := q.Exec(ctx, `UPDATE outbox SET dead_at = NULL, attempts = 0, next_attempt_at = NULL
		WHERE id = $1 AND dead_at IS NOT NULL`, id)
	if err != nil {
		return store.Translate(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Stats is the outbox's backlog, for the relay's gauges.
type Stats struct {
	Pending   int64
	OldestAge time.Duration // of the oldest pending row; 0 with none
	Dead      int64
}

// ReadStats counts pending and parked rows and ages the oldest pending one.
func ReadStats(ctx context.Context, q store.Querier) (Stats, error) {
	var s Stats
	var age float64
	err := q.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM outbox WHERE dispatched_at IS NULL AND dead_at IS NULL),
		COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM outbox
			WHERE dispatched_at IS NULL AND dead_at IS NULL), 0)::float8,
		(SELECT count(*) FROM outbox WHERE dead_at IS NOT NULL)`).Scan(&s.Pending, &age, &s.Dead)
	s.OldestAge = time.Duration(age * float64(time.Second))
	return s, store.Translate(err)
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

// Pending counts rows not dispatched yet and not parked.
func Pending(ctx context.Context, q store.Querier) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("outbox").
		Where("dispatched_at IS NULL AND dead_at IS NULL"))
}

// Get reads one outbox row of an org (an event, for its webhook body).
func Get(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (store.OutboxRow, error) {
	return store.Get[store.OutboxRow](ctx, q, store.SQL.
		Select("id", "org_id", "topic", "payload", "created_at", "dispatched_at", "traceparent").From("outbox").
		Where(sq.Eq{"org_id": orgID, "id": id}))
}

// Listen holds one connection of db on LISTEN outbox and calls wake for
// every notification until ctx ends or the connection fails (the caller
// listens again).
func Listen(ctx context.Context, db *store.DB, wake func()) error {
	return store.Listen(ctx, db, Channel, wake, wake)
}
