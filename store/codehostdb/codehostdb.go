// Package codehostdb holds the SQL of code-host connections and of the
// record of processed deliveries.
package codehostdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Connection is a codehost_connections row.
type Connection struct {
	ID           uuid.UUID  `db:"id"`
	OrgID        uuid.UUID  `db:"org_id"`
	SecretEnc    []byte     `db:"secret_enc"`
	Repositories []string   `db:"repositories"`
	CreatedBy    *uuid.UUID `db:"created_by"`
	CreatedAt    time.Time  `db:"created_at"`
}

func columns() []string {
	return []string{"id", "org_id", "secret_enc", "repositories", "created_by", "created_at"}
}

// Insert adds a connection.
func Insert(ctx context.Context, q store.Querier, c Connection) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("codehost_connections").Columns(columns()...).
		Values(c.ID, c.OrgID, c.SecretEnc, c.Repositories, c.CreatedBy, c.CreatedAt))
	return err
}

// Get reads a connection by id alone: the webhook knows only the id in its
// URL, and the row names the org.
func Get(ctx context.Context, q store.Querier, id uuid.UUID) (Connection, error) {
	return store.Get[Connection](ctx, q, store.SQL.Select(columns()...).From("codehost_connections").Where(sq.Eq{"id": id}))
}

// GetInOrg reads a connection of orgID.
func GetInOrg(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Connection, error) {
	return store.Get[Connection](ctx, q, store.SQL.Select(columns()...).From("codehost_connections").
		Where(sq.Eq{"id": id, "org_id": orgID}))
}

// Page lists an org's connections in creation order.
func Page(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Connection], error) {
	b := store.SQL.Select(columns()...).From("codehost_connections").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(c Connection) uuid.UUID { return c.ID })
}

// Delete removes a connection of orgID.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("codehost_connections").Where(sq.Eq{"id": id, "org_id": orgID}))
}

// HasConnection reports whether orgID has a code-host connection: such an
// org is reached only through its connections' URLs.
func HasConnection(ctx context.Context, q store.Querier, orgID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr("EXISTS (SELECT 1 FROM codehost_connections WHERE org_id = ?)", orgID)))
}

// Claim records a delivery id in scope before it is processed, in the
// processing transaction. It returns false with the stored response when
// the id was processed already; a concurrent duplicate waits for the first
// to commit, then sees it.
func Claim(ctx context.Context, q store.Querier, scope, deliveryID string, orgID *uuid.UUID, at time.Time) (bool, []byte, error) {
	n, err := store.Exec(ctx, q, store.SQL.Insert("codehost_deliveries").
		Columns("scope", "delivery_id", "org_id", "created_at").Values(scope, deliveryID, orgID, at).
		Suffix("ON CONFLICT DO NOTHING"))
	if err != nil || n == 1 {
		return n == 1, nil, err
	}
	resp, err := store.Scalar[[]byte](ctx, q, store.SQL.Select("coalesce(response, '{}'::jsonb)::text::bytea").
		From("codehost_deliveries").Where(sq.Eq{"scope": scope, "delivery_id": deliveryID}))
	return false, resp, err
}

// Complete stores the response of a claimed delivery.
func Complete(ctx context.Context, q store.Querier, scope, deliveryID string, response []byte) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("codehost_deliveries").Set("response", sq.Expr("?::jsonb", string(response))).
		Where(sq.Eq{"scope": scope, "delivery_id": deliveryID}))
	return err
}
