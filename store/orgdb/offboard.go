package orgdb

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// MembershipForUpdate reads and locks one membership; none is
// store.ErrNotFound.
func MembershipForUpdate(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (Membership, error) {
	return store.Get[Membership](ctx, q, store.SQL.Select("org_id", "user_id", "role", "joined_at").
		From("memberships").Where(sq.Eq{"org_id": orgID, "user_id": userID}).Suffix("FOR UPDATE"))
}

// LockOwners locks the org's Owner memberships and counts them, so two
// concurrent demotions or removals cannot both leave the org without one.
func LockOwners(ctx context.Context, q store.Querier, orgID uuid.UUID) (int, error) {
	ids, err := store.Select[struct {
		UserID uuid.UUID `db:"user_id"`
	}](ctx, q, store.SQL.Select("user_id").From("memberships").
		Where(sq.Eq{"org_id": orgID, "role": "owner"}).Suffix("FOR UPDATE"))
	return len(ids), err
}

// UpdateRole changes a member's role.
func UpdateRole(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, role string) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("memberships").Set("role", role).
		Where(sq.Eq{"org_id": orgID, "user_id": userID}))
	return err
}

// Offboard removes a user from an org at once: the membership, the user's
// project and team assignments in the org and the API keys made in it. It returns
// how many keys were revoked.
func Offboard(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (int64, error) {
	for _, table := range []string{"project_members", "team_members"} {
		if _, err := store.Exec(ctx, q, store.SQL.Delete(table).Where(sq.Eq{"org_id": orgID, "user_id": userID})); err != nil {
			return 0, err
		}
	}
	keys, err := store.Exec(ctx, q, store.SQL.Delete("api_keys").Where(sq.Eq{"org_id": orgID, "user_id": userID}))
	if err != nil {
		return 0, err
	}
	_, err = store.Exec(ctx, q, store.SQL.Delete("memberships").Where(sq.Eq{"org_id": orgID, "user_id": userID}))
	return keys, err
}
