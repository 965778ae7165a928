// Package sprintdb holds the SQL of sprints and of the sprint views of
// tickets (board, burndown, assignment). A sprint is visible while it and its
// project are live; its tickets while they are live.
package sprintdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/store"
)

// Content are a sprint's own values: what a create sets and a PATCH
// changes. The API's sprint (domain/sprint.Sprint) and the export
// document's (export.Sprint) embed it, so a new field of sprints is a field
// here (before the dates: the document's text dates follow Content); its
// `db` tags are the columns, its `json` tags the API's and the document's
// keys.
type Content struct {
	Name      string     `db:"name" json:"name"`
	Goal      *string    `db:"goal" json:"goal"`
	StartDate civil.Date `db:"start_date" json:"start_date"`
	EndDate   civil.Date `db:"end_date" json:"end_date"`
}

// ContentFields is Content's column list (the export's SQLite table).
var ContentFields = store.FieldsOf[Content]()

// Row is a sprints row: the one definition of its columns, which the
// column list, the scans, Insert, Update and the export read are built from.
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	ProjectID uuid.UUID `db:"project_id"`
	Content
	Status    string    `db:"status"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

var fields = store.FieldsOf[Row]()

// Columns is the column list of Row.
func Columns() []string { return fields.Names() }

// WithAccess is a sprint and the caller's standing toward its project.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a visible sprint with the caller's access, taking the
// row lock lock.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock Lock) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(store.Prefixed("s", Columns())) + `, ` + store.Cols(store.AccessColumns("s.org_id", "s.project_id", "$2")) + `
	        FROM sprints s JOIN projects p ON p.id = s.project_id
	        WHERE s.id = $1 AND s.deleted_at IS NULL AND p.deleted_at IS NULL`
	if lock != NoLock {
		sql += " " + string(lock) + " OF s"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// ProjectOrg is the org of a live project.
func ProjectOrg(ctx context.Context, q store.Querier, projectID uuid.UUID) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("org_id").From("projects").
		Where(sq.Eq{"id": projectID, "deleted_at": nil}))
}

// Insert creates a sprint (an API's or an import's).
func Insert(ctx context.Context, q store.Querier, r Row) error {
	return fields.InsertMany(ctx, q, "sprints", []Row{r})
}

// Export lists a project's live sprints in creation order.
func Export(ctx context.Context, q store.Querier, projectID uuid.UUID) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns()...).From("sprints").
		Where(sq.Eq{"project_id": projectID, "deleted_at": nil}).OrderBy("id"))
}

// ListByProject pages a project's live sprints by id.
func ListByProject(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("sprints").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID, "deleted_at": nil})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes the columns set (a domain.Changeset's, or the status) and
// updated_at of a sprint while it is at one of the versions v names
// (If-Match); no such row is store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, orgID, id uuid.UUID, set map[string]any, at time.Time, v store.Versions) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Update("sprints").SetMap(set).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")).
		Suffix("RETURNING "+store.Cols(Columns())))
}

// CountTickets counts a sprint's live tickets: its dependents.
func CountTickets(ctx context.Context, q store.Querier, orgID, sprintID uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("tickets").
		Where(sq.Eq{"org_id": orgID, "sprint_id": sprintID, "deleted_at": nil}))
}

// SoftDelete hides a sprint at one of the versions v names and its live
// tickets at once; the durable purge removes the rows later. No such sprint
// is store.ErrNotFound (the caller's transaction then rolls the tickets
// back).
func SoftDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, at time.Time) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("tickets").Set("deleted_at", at).
		Where(sq.Eq{"org_id": orgID, "sprint_id": id, "deleted_at": nil})); err != nil {
		return err
	}
	n, err := store.Exec(ctx, q, store.SQL.Update("sprints").Set("deleted_at", at).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// HardDelete removes a sprint at one of the versions v names without live
// tickets; tickets already soft-deleted that still point at it are detached
// first. No such sprint is store.ErrNotFound.
func HardDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("tickets").Set("sprint_id", nil).
		Where(sq.Eq{"org_id": orgID, "sprint_id": id})); err != nil {
		return err
	}
	n, err := store.Exec(ctx, q, store.SQL.Delete("sprints").Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")))
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
