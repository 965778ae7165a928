// Package labeldb holds the SQL of labels and of their links to tickets. A
// label is visible while deleted_at IS NULL; a link counts while its ticket
// and the ticket's project are live.
package labeldb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a labels row.
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	Name      string    `db:"name"`
	Color     string    `db:"color"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "name", "color", "created_at", "updated_at", "row_version"}
}

func prefixed(p string) []string { return store.Prefixed(p, Columns()) }

// NameConstraint is the unique index of a live label's name in its org
// (case-insensitive).
const NameConstraint = "labels_org_name_key"

// WithAccess is a label and the caller's standing in its org.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a live label with the caller's access, taking the row
// lock lock.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock Lock) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(prefixed("l")) + `, ` + store.Cols(store.AccessColumns("l.org_id", "", "$2")) + `
	        FROM labels l WHERE l.id = $1 AND l.deleted_at IS NULL`
	if lock != NoLock {
		sql += " " + string(lock) + " OF l"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Insert creates a label; a live label of the same name is a
// store.ErrConflict on NameConstraint.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("labels").Columns("id", "org_id", "name", "color", "created_at", "updated_at").
		Values(r.ID, r.OrgID, r.Name, r.Color, r.CreatedAt, r.UpdatedAt))
	return err
}

// List pages an org's live labels by id.
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("labels").Where(sq.Eq{"org_id": orgID, "deleted_at": nil})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes a label's name, color and updated_at, while it is at one of
// the versions v names (If-Match), and returns the row; no such row is
// store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, r Row, v store.Versions) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Update("labels").
		Set("name", r.Name).Set("color", r.Color).Set("updated_at", r.UpdatedAt).
		Where(sq.Eq{"org_id": r.OrgID, "id": r.ID, "deleted_at": nil}).Where(v.Where("row_version")).
		Suffix("RETURNING "+store.Cols(Columns())))
}

// Live returns the live labels of org among ids.
func Live(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns()...).From("labels").
		Where(sq.Eq{"org_id": orgID, "deleted_at": nil}).Where("id = ANY(?)", ids))
}

// CountTickets counts the visible tickets linked to a label: its dependents.
func CountTickets(ctx context.Context, q store.Querier, orgID, labelID uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("ticket_labels tl").
		Join("tickets t ON t.id = tl.ticket_id").Join("projects p ON p.id = t.project_id").
		Where(sq.Eq{"tl.org_id": orgID, "tl.label_id": labelID, "t.deleted_at": nil, "p.deleted_at": nil}))
}

// SoftDelete hides a label at one of the versions v names (the durable purge
// removes the row later); no such row is store.ErrNotFound.
func SoftDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, at time.Time) error {
	n, err := store.Exec(ctx, q, store.SQL.Update("labels").Set("deleted_at", at).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// HardDelete removes a label at one of the versions v names and any links
// left to it (only links to tickets already soft-deleted can remain when it
// has no dependents); no such label is store.ErrNotFound (the caller's
// transaction then rolls the links back).
func HardDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("ticket_labels").Where(sq.Eq{"org_id": orgID, "label_id": id})); err != nil {
		return err
	}
	n, err := store.Exec(ctx, q, store.SQL.Delete("labels").Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// Lock is the row lock a read for change takes.
type Lock string

// Row locks.
const (
	NoLock Lock = ""
	// ForChange blocks other changes of the row but not new references to it.
	ForChange Lock = "FOR NO KEY UPDATE"
	// ForDelete also blocks new references (foreign keys) to the row.
	ForDelete Lock = "FOR UPDATE"
)
