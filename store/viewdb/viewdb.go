// Package viewdb holds the SQL of saved views.
package viewdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a saved_views row.
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	OwnerID   uuid.UUID `db:"owner_id"`
	Name      string    `db:"name"`
	Q         string    `db:"q"`
	Sort      string    `db:"sort"`
	Columns   []string  `db:"columns"`
	Shared    bool      `db:"shared"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

var cols = []string{"id", "org_id", "owner_id", "name", "q", "sort", "columns", "shared", "created_at", "updated_at"}

// Insert writes a view.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("saved_views").Columns(cols...).
		Values(r.ID, r.OrgID, r.OwnerID, r.Name, r.Q, r.Sort, r.Columns, r.Shared, r.CreatedAt, r.UpdatedAt))
	return err
}

// Get reads a view by id.
func Get(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(cols...).From("saved_views").Where(sq.Eq{"id": id}))
}

// Page lists the views of orgID that userID may see (shared ones and their
// own), by id.
func Page(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(cols...).From("saved_views").Where(sq.Eq{"org_id": orgID}).
		Where(sq.Or{sq.Eq{"shared": true}, sq.Eq{"owner_id": userID}})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes a view's fields.
func Update(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("saved_views").
		SetMap(map[string]any{"name": r.Name, "q": r.Q, "sort": r.Sort, "columns": r.Columns, "shared": r.Shared, "updated_at": r.UpdatedAt}).
		Where(sq.Eq{"id": r.ID, "org_id": r.OrgID}))
	return err
}

// Delete removes a view.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	_, err := store.Exec(ctx, q, store.SQL.Delete("saved_views").Where(sq.Eq{"id": id, "org_id": orgID}))
	return err
}
