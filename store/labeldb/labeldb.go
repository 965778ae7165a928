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

// Content are a label's own values: what a create sets and a PATCH
// changes. The API's label (domain/label.Label) and the export document's
// (export.Label) embed it, so a new field of labels is a field here; its
// `db` tags are the columns, its `json` tags the API's and the document's
// keys.
type Content struct {
	Name  string `db:"name" json:"name"`
	Color string `db:"color" json:"color"`
}

// ContentFields is Content's column list (the export's SQLite table).
var ContentFields = store.FieldsOf[Content]()

// Row is a labels row: the one definition of its columns, which the column
// list, the scans, Insert, Update and the export read are built from.
type Row struct {
	ID    uuid.UUID `db:"id"`
	OrgID uuid.UUID `db:"org_id"`
	Content
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

var fields = store.FieldsOf[Row]()

// Columns is the column list of Row.
func Columns() []string { return fields.Names() }

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

// Insert creates a label (an API's or an import's); a live label of the
// same name is a store.ErrConflict on NameConstraint.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	return fields.InsertMany(ctx, q, "labels", []Row{r})
}

// Export lists the org's live labels by name (the export document's order).
func Export(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns()...).From("labels").
		Where(sq.Eq{"org_id": orgID, "deleted_at": nil}).OrderBy("lower(name)", "id"))
}

// List pages an org's live labels by id.
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("labels").Where(sq.Eq{"org_id": orgID, "deleted_at": nil})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes the columns set (a domain.Changeset's) and updated_at of a
// label, while it is at one of the versions v names (If-Match), and returns
// the row; no such row is store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, orgID, id uuid.UUID, set map[string]any, at time.Time, v store.Versions) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Update("labels").SetMap(set).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id, "deleted_at": nil}).Where(v.Where("row_version")).
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
