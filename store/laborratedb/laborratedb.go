// Package laborratedb holds the SQL of labor rates.
package laborratedb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a labor_rates row.
type Row struct {
	ID              uuid.UUID `db:"id"`
	OrgID           uuid.UUID `db:"org_id"`
	UserID          uuid.UUID `db:"user_id"`
	LoadedRateCents int64     `db:"loaded_rate_cents"`
	EffectiveDate   time.Time `db:"effective_date"`
	CreatedAt       time.Time `db:"created_at"`
	UpdatedAt       time.Time `db:"updated_at"`
}

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "user_id", "loaded_rate_cents", "effective_date", "created_at", "updated_at"}
}

// UniqueDate is the constraint of one rate per (org, user, effective date).
const UniqueDate = "labor_rates_org_user_date_key"

// Insert creates a rate; a second rate for the same day is store.ErrConflict.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("labor_rates").Columns(Columns()...).
		Values(r.ID, r.OrgID, r.UserID, r.LoadedRateCents, r.EffectiveDate, r.CreatedAt, r.UpdatedAt))
	return err
}

// ByID reads a rate of any org; the caller authorizes against its org.
func ByID(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("labor_rates").Where(sq.Eq{"id": id}))
}

// EffectiveOn is the user's rate in org on day: the latest effective date
// not after it.
func EffectiveOn(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, day time.Time) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("labor_rates").
		Where(sq.Eq{"org_id": orgID, "user_id": userID}).Where(sq.LtOrEq{"effective_date": day}).
		OrderBy("effective_date DESC").Limit(1))
}

// List pages a user's rates in org by id.
func List(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("labor_rates").Where(sq.Eq{"org_id": orgID, "user_id": userID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}
