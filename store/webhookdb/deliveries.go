package webhookdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Delivery is a webhook_deliveries row: one HTTP attempt.
type Delivery struct {
	ID              uuid.UUID  `db:"id"`
	OrgID           uuid.UUID  `db:"org_id"`
	WebhookID       uuid.UUID  `db:"webhook_id"`
	EventID         uuid.UUID  `db:"event_id"`
	EventType       string     `db:"event_type"`
	DeliveryKey     uuid.UUID  `db:"delivery_key"`
	Redelivery      int        `db:"redelivery"`
	Attempt         int        `db:"attempt"`
	StatusCode      *int       `db:"status_code"`
	DurationMS      *int       `db:"duration_ms"`
	Error           *string    `db:"error"`
	ResponseExcerpt *string    `db:"response_excerpt"`
	CreatedAt       time.Time  `db:"created_at"`
	FinishedAt      *time.Time `db:"finished_at"`
}

// DeliveryColumns is the column list of Delivery.
func DeliveryColumns() []string {
	return []string{"id", "org_id", "webhook_id", "event_id", "event_type", "delivery_key", "redelivery", "attempt",
		"status_code", "duration_ms", "error", "response_excerpt", "created_at", "finished_at"}
}

// StartAttempt records the start of an attempt, or returns the row already
// recorded for the same (webhook, event, redelivery, attempt): a replayed
// activity never writes a second row. A new row costs one statement.
func StartAttempt(ctx context.Context, q store.Querier, d Delivery) (Delivery, error) {
	rows, err := store.Select[Delivery](ctx, q, store.SQL.Insert("webhook_deliveries").
		Columns("id", "org_id", "webhook_id", "event_id", "event_type", "delivery_key", "redelivery", "attempt", "created_at").
		Values(d.ID, d.OrgID, d.WebhookID, d.EventID, d.EventType, d.DeliveryKey, d.Redelivery, d.Attempt, d.CreatedAt).
		Suffix("ON CONFLICT ON CONSTRAINT webhook_deliveries_attempt_key DO NOTHING RETURNING "+strings.Join(DeliveryColumns(), ", ")))
	if err != nil || len(rows) == 1 {
		return first(rows), err
	}
	return store.Get[Delivery](ctx, q, store.SQL.Select(DeliveryColumns()...).From("webhook_deliveries").
		Where(sq.Eq{"org_id": d.OrgID, "webhook_id": d.WebhookID, "event_id": d.EventID,
			"redelivery": d.Redelivery, "attempt": d.Attempt}))
}

func first[T any](rows []T) (t T) {
	if len(rows) > 0 {
		t = rows[0]
	}
	return t
}

// Outcome is what an attempt ended with.
type Outcome struct {
	StatusCode      *int
	DurationMS      int
	Error           *string
	ResponseExcerpt *string
	FinishedAt      time.Time
}

// FinishAttempt records an attempt's outcome once. A 2xx also ends the
// webhook's failure streak and stamps its last success, in the same
// statement; a webhook already in good standing whose last success is less
// than a second old is left alone, so concurrent deliveries to one webhook
// do not queue on its row.
func FinishAttempt(ctx context.Context, q store.Querier, orgID, id uuid.UUID, o Outcome) error {
	ok := o.StatusCode != nil && *o.StatusCode >= 200 && *o.StatusCode < 300
	_, err := q.Exec(ctx, `
		WITH f AS (
			UPDATE webhook_deliveries SET status_code = $3, duration_ms = $4, error = $5, response_excerpt = $6, finished_at = $7
			WHERE org_id = $1 AND id = $2 AND finished_at IS NULL
			RETURNING webhook_id)
		UPDATE webhooks w SET consecutive_failures = 0, failing_since = NULL, last_success_at = $7
		FROM f WHERE $8 AND w.org_id = $1 AND w.id = f.webhook_id
			AND (w.consecutive_failures <> 0 OR w.failing_since IS NOT NULL OR w.last_success_at IS NULL
				OR w.last_success_at < $7::timestamptz - interval '1 second')`,
		orgID, id, o.StatusCode, o.DurationMS, o.Error, o.ResponseExcerpt, o.FinishedAt, ok)
	return store.Translate(err)
}

// MarkLost closes an attempt whose activity never reported back (the worker
// died or it timed out): the row is created if the attempt never got as far
// as recording itself, and a finished row is left alone.
func MarkLost(ctx context.Context, q store.Querier, d Delivery, reason string, at time.Time) error {
	_, err := q.Exec(ctx, `
		INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event_type, delivery_key, redelivery, attempt,
		                                error, created_at, finished_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
		ON CONFLICT ON CONSTRAINT webhook_deliveries_attempt_key
		DO UPDATE SET error = EXCLUDED.error, finished_at = EXCLUDED.finished_at
		WHERE webhook_deliveries.finished_at IS NULL`,
		d.ID, d.OrgID, d.WebhookID, d.EventID, d.EventType, d.DeliveryKey, d.Redelivery, d.Attempt, reason, at)
	return store.Translate(err)
}

// ListDeliveries pages a webhook's attempts, oldest first.
func ListDeliveries(ctx context.Context, q store.Querier, orgID, webhookID uuid.UUID, p store.Page) (store.Paged[Delivery], error) {
	b := store.SQL.Select(DeliveryColumns()...).From("webhook_deliveries").
		Where(sq.Eq{"org_id": orgID, "webhook_id": webhookID})
	return store.SelectPage(ctx, q, b, "id", p, func(d Delivery) uuid.UUID { return d.ID })
}

// GetDelivery reads one attempt of a webhook.
func GetDelivery(ctx context.Context, q store.Querier, orgID, webhookID, id uuid.UUID) (Delivery, error) {
	return store.Get[Delivery](ctx, q, store.SQL.Select(DeliveryColumns()...).From("webhook_deliveries").
		Where(sq.Eq{"org_id": orgID, "webhook_id": webhookID, "id": id}))
}
