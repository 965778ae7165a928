package statusflowdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// WithAccess is a workflow and the caller's standing in its org, read in one
// query.
type WithAccess struct {
	Row
	store.AccessRow
}

func prefixed(alias string) []string { return store.Prefixed(alias, Columns()) }

// GetWithAccess reads a workflow with userID's access row; lock takes a row
// lock for a following write in the same transaction.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock bool) (WithAccess, error) {
	sql := `SELECT ` + strings.Join(prefixed("w"), ", ") + `, ` +
		strings.Join(store.AccessColumns("w.org_id", "", "$1"), ", ") +
		` FROM workflows w WHERE w.id = $2`
	if lock {
		sql += ` FOR UPDATE OF w`
	}
	return store.GetRaw[WithAccess](ctx, q, sql, userID, id)
}

// List pages an org's workflows by id (the Default, created with the org,
// comes first).
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("workflows").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// NameTaken reports whether another workflow of org (not except) has name in
// any case.
func NameTaken(ctx context.Context, q store.Querier, orgID uuid.UUID, name string, except uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr(
		"EXISTS (SELECT 1 FROM workflows WHERE org_id = ? AND lower(name) = lower(?) AND id <> ?)", orgID, name, except)))
}

// Update sets the given columns (and updated_at) on a workflow of org at one
// of the versions v names (If-Match) and returns the row after the change;
// no such row is store.ErrNotFound. JSON columns take JSON text.
func Update(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, set map[string]any, at time.Time) (Row, error) {
	set["updated_at"] = at
	return store.Get[Row](ctx, q, store.SQL.Update("workflows").SetMap(set).
		Where(sq.Eq{"id": id, "org_id": orgID}).Where(v.Where("row_version")).Suffix("RETURNING "+store.Cols(Columns())))
}

// ProjectsUsing counts the live projects assigned to a workflow.
func ProjectsUsing(ctx context.Context, q store.Querier, id uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("projects").
		Where(sq.Eq{"workflow_id": id}).Where("deleted_at IS NULL"))
}

// Delete removes a workflow of org at one of the versions v names (If-Match;
// no such row is store.ErrNotFound). Soft-deleted projects still pointing at
// it (awaiting their purge) are moved off it first: they are invisible, and
// would otherwise block the delete with a foreign key.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("projects").Set("workflow_id", nil).
		Where(sq.Eq{"workflow_id": id, "org_id": orgID}).Where("deleted_at IS NOT NULL")); err != nil {
		return err
	}
	n, err := store.Exec(ctx, q, store.SQL.Delete("workflows").Where(sq.Eq{"id": id, "org_id": orgID}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ForProject is the workflow that governs a live project's tickets: the one
// assigned to it, else its org's Default.
func ForProject(ctx context.Context, q store.Querier, projectID uuid.UUID) (Row, error) {
	return store.GetRaw[Row](ctx, q, `SELECT `+strings.Join(prefixed("w"), ", ")+`
		FROM projects p JOIN workflows w ON w.org_id = p.org_id
		WHERE p.id = $1 AND p.deleted_at IS NULL AND (w.id = p.workflow_id OR (p.workflow_id IS NULL AND w.name = $2))`,
		projectID, DefaultName)
}

// DefaultName is the name of the workflow every org receives on creation
// (domain/statusflow.DefaultName, repeated here because store cannot import
// domain).
const DefaultName = "Default"
