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

// LockOwners locks the org's Owner memberships (in user id order, so every
// path takes them alike) and returns the user ids of the active ones (not
// suspended), so two concurrent demotions, removals or SCIM deactivations
// cannot together leave the org without an active Owner.
func LockOwners(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := store.Select[struct {
		UserID uuid.UUID `db:"user_id"`
		Active bool      `db:"active"`
	}](ctx, q, store.SQL.Select("user_id", "suspended_at IS NULL AS active").From("memberships").
		Where(sq.Eq{"org_id": orgID, "role": "owner"}).OrderBy("user_id").Suffix("FOR UPDATE"))
	var active []uuid.UUID
	for _, r := range rows {
		if r.Active {
			active = append(active, r.UserID)
		}
	}
	return active, err
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
