// Package webhookdb holds the SQL of outbound webhooks and their delivery
// records. Every query is filtered by org (or by a webhook id read under one).
package webhookdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a webhooks row.
type Row struct {
	ID                  uuid.UUID  `db:"id"`
	OrgID               uuid.UUID  `db:"org_id"`
	URL                 string     `db:"url"`
	Secret              string     `db:"secret"`
	EventTypes          []string   `db:"event_types"`
	Active              bool       `db:"active"`
	ConsecutiveFailures int        `db:"consecutive_failures"`
	FailingSince        *time.Time `db:"failing_since"`
	LastSuccessAt       *time.Time `db:"last_success_at"`
	DisabledAt          *time.Time `db:"disabled_at"`
	DisabledReason      *string    `db:"disabled_reason"`
	CreatedBy           *uuid.UUID `db:"created_by"`
	CreatedAt           time.Time  `db:"created_at"`
	UpdatedAt           time.Time  `db:"updated_at"`
}

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "url", "secret", "event_types", "active", "consecutive_failures",
		"failing_since", "last_success_at", "disabled_at", "disabled_reason", "created_by", "created_at", "updated_at"}
}

func prefixed(alias string) []string { return store.Prefixed(alias, Columns()) }

// Insert creates a webhook.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("webhooks").
		Columns("id", "org_id", "url", "secret", "event_types", "active", "created_by", "created_at", "updated_at").
		Values(r.ID, r.OrgID, r.URL, r.Secret, r.EventTypes, r.Active, r.CreatedBy, r.CreatedAt, r.UpdatedAt))
	return err
}

// WithAccess is a webhook with the caller's membership in its org.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a webhook and, in the same query, the caller's
// membership in its org.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID) (WithAccess, error) {
	sql := `SELECT ` + strings.Join(prefixed("w"), ", ") + `, ` +
		strings.Join(store.AccessColumns("w.org_id", "", "$2"), ", ") + `
	        FROM webhooks w WHERE w.id = $1`
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Get reads one webhook of an org.
func Get(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("webhooks").
		Where(sq.Eq{"org_id": orgID, "id": id}))
}

// List pages an org's webhooks by id.
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("webhooks").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Delete removes a webhook and, by the foreign key, its delivery records.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("webhooks").Where(sq.Eq{"org_id": orgID, "id": id}))
}

// Subscribed lists the org's active webhooks subscribed to eventType, in id
// order.
func Subscribed(ctx context.Context, q store.Querier, orgID uuid.UUID, eventType string) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns()...).From("webhooks").
		Where(sq.Eq{"org_id": orgID}).Where("active AND ? = ANY (event_types)", eventType).OrderBy("id"))
}

// NextRedelivery bumps and returns the webhook's redelivery counter.
func NextRedelivery(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (int, error) {
	return store.Scalar[int](ctx, q, store.SQL.Update("webhooks").
		Set("redeliveries", sq.Expr("redeliveries + 1")).
		Where(sq.Eq{"org_id": orgID, "id": id}).Suffix("RETURNING redeliveries"))
}

// Disable switches a webhook off with a reason; disabling an inactive one
// changes nothing.
func Disable(ctx context.Context, q store.Querier, orgID, id uuid.UUID, reason string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("webhooks").
		Set("active", false).Set("disabled_at", at).Set("disabled_reason", reason).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id, "active": true}))
	return err
}

// RecordExhausted counts one more delivery that used up its attempts and
// returns the streak's length.
func RecordExhausted(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) (int, error) {
	n, err := store.Scalar[int](ctx, q, store.SQL.Update("webhooks").
		Set("consecutive_failures", sq.Expr("consecutive_failures + 1")).
		Set("failing_since", sq.Expr("COALESCE(failing_since, ?)", at)).
		Where(sq.Eq{"org_id": orgID, "id": id}).Suffix("RETURNING consecutive_failures"))
	return n, err
}
