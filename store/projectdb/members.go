package projectdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Member is a project_members row.
type Member struct {
	OrgID     uuid.UUID `db:"org_id"`
	ProjectID uuid.UUID `db:"project_id"`
	UserID    uuid.UUID `db:"user_id"`
	CreatedAt time.Time `db:"created_at"`
}

func memberColumns() []string { return []string{"org_id", "project_id", "user_id", "created_at"} }

// InsertMember assigns a user to a project; an existing assignment is
// store.ErrConflict.
func InsertMember(ctx context.Context, q store.Querier, m Member) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("project_members").Columns(memberColumns()...).
		Values(m.OrgID, m.ProjectID, m.UserID, m.CreatedAt))
	return err
}

// ListMembers lists a project's members in the order they were added.
func ListMembers(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]Member, error) {
	return store.Select[Member](ctx, q, store.SQL.Select(memberColumns()...).From("project_members").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID}).OrderBy("created_at", "user_id"))
}

// DeleteMember removes an assignment; none is store.ErrNotFound.
func DeleteMember(ctx context.Context, q store.Querier, orgID, projectID, userID uuid.UUID) error {
	n, err := store.Exec(ctx, q, store.SQL.Delete("project_members").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID, "user_id": userID}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}
