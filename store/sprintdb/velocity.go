package sprintdb

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// LastCompleted lists a project's n most recent live Completed sprints,
// newest first (by end date, then id).
func LastCompleted(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, n int) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns()...).From("sprints").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID, "status": "Completed", "deleted_at": nil}).
		OrderBy("end_date DESC", "id DESC").Limit(uint64(n)))
}
