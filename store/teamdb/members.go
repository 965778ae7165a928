package teamdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Member is a team member listing item.
type Member struct {
	UserID      uuid.UUID `db:"user_id"`
	DisplayName string    `db:"display_name"`
	Email       string    `db:"email"`
	AddedAt     time.Time `db:"created_at"`
}

// ListMembers pages a team's members by user id.
func ListMembers(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID, p store.Page) (store.Paged[Member], error) {
	b := store.SQL.Select("tm.user_id", "u.display_name", "u.email", "tm.created_at").
		From("team_members tm").Join("users u ON u.id = tm.user_id").
		Where(sq.Eq{"tm.org_id": orgID, "tm.team_id": teamID})
	return store.SelectPage(ctx, q, b, "tm.user_id", p, func(m Member) uuid.UUID { return m.UserID })
}

// MemberIDs lists every member of the given teams, by team then user.
func MemberIDs(ctx context.Context, q store.Querier, orgID uuid.UUID, teamIDs []uuid.UUID) ([]Link, error) {
	return store.Select[Link](ctx, q, store.SQL.Select("team_id", "user_id").From("team_members").
		Where(sq.Eq{"org_id": orgID}).Where("team_id = ANY(?)", teamIDs).OrderBy("team_id", "user_id"))
}

// Link is one team membership.
type Link struct {
	TeamID uuid.UUID `db:"team_id"`
	UserID uuid.UUID `db:"user_id"`
}

// AddMembers adds users to a team, skipping those already in it, and
// returns the users newly added.
func AddMembers(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID, userIDs []uuid.UUID, at time.Time) ([]uuid.UUID, error) {
	return selectIDs(ctx, q, `INSERT INTO team_members (org_id, team_id, user_id, created_at)
		SELECT $1, $2, u, $4 FROM unnest($3::uuid[]) AS u
		ON CONFLICT (team_id, user_id) DO NOTHING RETURNING user_id`, orgID, teamID, userIDs, at)
}

// RemoveMembers removes users from a team and returns those removed.
func RemoveMembers(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID, userIDs []uuid.UUID) ([]uuid.UUID, error) {
	return selectIDs(ctx, q, `DELETE FROM team_members
		WHERE org_id = $1 AND team_id = $2 AND user_id = ANY($3) RETURNING user_id`, orgID, teamID, userIDs)
}

// ActiveMembers returns those of userIDs who are unsuspended members of org.
func ActiveMembers(ctx context.Context, q store.Querier, orgID uuid.UUID, userIDs []uuid.UUID) ([]uuid.UUID, error) {
	return selectIDs(ctx, q, `SELECT user_id FROM memberships
		WHERE org_id = $1 AND user_id = ANY($2) AND suspended_at IS NULL ORDER BY user_id`, orgID, userIDs)
}

// selectIDs runs a query whose rows are single ids.
func selectIDs(ctx context.Context, q store.Querier, sql string, args ...any) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, store.Translate(err)
	}
	defer rows.Close()
	ids := []uuid.UUID{}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, store.Translate(err)
		}
		ids = append(ids, id)
	}
	return ids, store.Translate(rows.Err())
}
