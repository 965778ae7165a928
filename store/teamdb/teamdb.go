// Package teamdb holds the SQL of teams and their members. A team belongs to
// one org; its members must be (unsuspended) members of that org.
package teamdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a teams row.
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	Name      string    `db:"name"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// Columns is the column list of Row.
func Columns() []string { return []string{"id", "org_id", "name", "created_at", "updated_at"} }

func prefixed(p string) []string { return store.Prefixed(p, Columns()) }

// NameConstraint is the unique index of a team's name in its org (case
// insensitive).
const NameConstraint = "teams_org_name_key"

// WithAccess is a team and the caller's standing in its org.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a team with the caller's access; forUpdate locks it.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, forUpdate bool) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(prefixed("tm")) + `, ` + store.Cols(store.AccessColumns("tm.org_id", "", "$2")) + `
	        FROM teams tm WHERE tm.id = $1`
	if forUpdate {
		sql += " FOR UPDATE OF tm"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Get reads a team of org.
func Get(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("teams").Where(sq.Eq{"org_id": orgID, "id": id}))
}

// Insert creates a team; a name taken in the org is store.ErrConflict on
// NameConstraint.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("teams").Columns(Columns()...).
		Values(r.ID, r.OrgID, r.Name, r.CreatedAt, r.UpdatedAt))
	return err
}

// List pages an org's teams by id.
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("teams").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Filter narrows a team scan (SCIM): a case-insensitive exact name.
type Filter struct {
	Name *string
}

// All lists an org's teams by id, optionally by name.
func All(ctx context.Context, q store.Querier, orgID uuid.UUID, f Filter) ([]Row, error) {
	b := store.SQL.Select(Columns()...).From("teams").Where(sq.Eq{"org_id": orgID}).OrderBy("id")
	if f.Name != nil {
		b = b.Where("lower(name) = lower(?)", *f.Name)
	}
	return store.Select[Row](ctx, q, b)
}

// Update writes a team's name and updated_at and returns the row.
func Update(ctx context.Context, q store.Querier, r Row) (Row, error) {
	return store.GetRaw[Row](ctx, q, `UPDATE teams SET name = $3, updated_at = $4
		WHERE org_id = $1 AND id = $2 RETURNING `+store.Cols(Columns()), r.OrgID, r.ID, r.Name, r.UpdatedAt)
}

// ProjectRef is a live project assigned to a team: what a delete unassigns.
type ProjectRef struct {
	ID   uuid.UUID `db:"id"`
	Key  string    `db:"key"`
	Name string    `db:"name"`
}

// Projects lists the live projects of a team by key.
func Projects(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID) ([]ProjectRef, error) {
	return store.Select[ProjectRef](ctx, q, store.SQL.Select("id", "key", "name").From("projects").
		Where(sq.Eq{"org_id": orgID, "team_id": teamID, "deleted_at": nil}).OrderBy("key", "id"))
}

// Delete removes a team: its projects (deleted ones too) lose their team,
// its members and tags go with it.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("projects").Set("team_id", nil).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "team_id": id})); err != nil {
		return err
	}
	if _, err := store.Exec(ctx, q, store.SQL.Delete("entity_tags").
		Where(sq.Eq{"org_id": orgID, "entity_type": "team", "entity_id": id})); err != nil {
		return err
	}
	_, err := store.Exec(ctx, q, store.SQL.Delete("teams").Where(sq.Eq{"org_id": orgID, "id": id}))
	return err
}
