// Package sprintdb holds the SQL of sprints and of the sprint views of
// tickets (board, burndown, assignment). A sprint is visible while it and its
// project are live; its tickets while they are live.
package sprintdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is a sprints row; dates are midnight UTC.
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	ProjectID uuid.UUID `db:"project_id"`
	Name      string    `db:"name"`
	Goal      *string   `db:"goal"`
	StartDate time.Time `db:"start_date"`
	EndDate   time.Time `db:"end_date"`
	Status    string    `db:"status"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "project_id", "name", "goal", "start_date", "end_date", "status", "created_at", "updated_at",
		"row_version"}
}

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

// Insert creates a sprint.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("sprints").
		Columns("id", "org_id", "project_id", "name", "goal", "start_date", "end_date", "status", "created_at", "updated_at").
		Values(r.ID, r.OrgID, r.ProjectID, r.Name, r.Goal, r.StartDate, r.EndDate, r.Status, r.CreatedAt, r.UpdatedAt))
	return err
}

// ListByProject pages a project's live sprints by id.
func ListByProject(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("sprints").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID, "deleted_at": nil})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes a sprint's editable fields, status and updated_at while it
// is at one of the versions v names (If-Match); no such row is
// store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, r Row, v store.Versions) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Update("sprints").
		Set("name", r.Name).Set("goal", r.Goal).Set("start_date", r.StartDate).Set("end_date", r.EndDate).
		Set("status", r.Status).Set("updated_at", r.UpdatedAt).
		Where(sq.Eq{"org_id": r.OrgID, "id": r.ID}).Where(v.Where("row_version")).
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
