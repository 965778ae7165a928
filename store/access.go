package store

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// MemberRole is the caller's role in org, "" when not a member. A suspended
// membership (SCIM deactivation) counts as none.
func MemberRole(ctx context.Context, q Querier, orgID, userID uuid.UUID) (string, error) {
	var role string
	err := q.QueryRow(ctx, `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2 AND suspended_at IS NULL`, orgID, userID).Scan(&role)
	if err != nil {
		if err = translate(err); errors.Is(err, ErrNotFound) {
			return "", nil
		}
		return "", err
	}
	return role, nil
}

// AccessRow is the caller's standing toward a resource, joined into the
// resource's own query: Role is "" for a non-member.
type AccessRow struct {
	OrgID     uuid.UUID  `db:"access_org_id"`
	Role      string     `db:"access_role"`
	ProjectID *uuid.UUID `db:"access_project_id"`
	Assigned  bool       `db:"access_assigned"`
}

// AccessColumns selects an AccessRow for a resource whose org id and project
// id are the given SQL expressions; the caller's user id is bound as $N where
// userParam is "$N". Join nothing: the columns are correlated subqueries.
func AccessColumns(orgExpr, projectExpr, userParam string) []string {
	cols := []string{
		orgExpr + " AS access_org_id",
		"COALESCE((SELECT m.role FROM memberships m WHERE m.org_id = " + orgExpr + " AND m.user_id = " + userParam + " AND m.suspended_at IS NULL), '') AS access_role",
	}
	if projectExpr == "" {
		return append(cols, "NULL::uuid AS access_project_id", "false AS access_assigned")
	}
	return append(cols,
		projectExpr+" AS access_project_id",
		"EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = "+projectExpr+" AND pm.user_id = "+userParam+") AS access_assigned",
	)
}

// ProjectMembership reads a live project's access row.
func ProjectMembership(ctx context.Context, q Querier, projectID, userID uuid.UUID) (AccessRow, error) {
	sql := `SELECT ` + strings.Join(AccessColumns("p.org_id", "p.id", "$2"), ", ") + `
	        FROM projects p WHERE p.id = $1 AND p.deleted_at IS NULL`
	return GetRaw[AccessRow](ctx, q, sql, projectID, userID)
}

// TicketAccess is the part of a live ticket that its comments, watchers
// and the like need, with the caller's standing toward its project.
type TicketAccess struct {
	ID        uuid.UUID `db:"id"`
	ProjectID uuid.UUID `db:"project_id"`
	AccessRow
}

// TicketWithAccess reads a live ticket of a live project with the caller's
// access.
func TicketWithAccess(ctx context.Context, q Querier, ticketID, userID uuid.UUID) (TicketAccess, error) {
	sql := `SELECT t.id, t.project_id, ` + Cols(AccessColumns("t.org_id", "t.project_id", "$2")) + `
	        FROM tickets t JOIN projects p ON p.id = t.project_id
	        WHERE t.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	return GetRaw[TicketAccess](ctx, q, sql, ticketID, userID)
}
