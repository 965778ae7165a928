package accountdb

import (
	"context"
	"errors"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// RefreshToken is a refresh_tokens row.
type RefreshToken struct {
	ID        uuid.UUID  `db:"id"`
	UserID    uuid.UUID  `db:"user_id"`
	OrgID     uuid.UUID  `db:"org_id"`
	FamilyID  uuid.UUID  `db:"family_id"`
	TokenHash []byte     `db:"token_hash"`
	ExpiresAt time.Time  `db:"expires_at"`
	RevokedAt *time.Time `db:"revoked_at"`
	CreatedAt time.Time  `db:"created_at"`
	// BoundToOrg: a session started by single sign-on, which reaches
	// OrgID only.
	BoundToOrg bool `db:"bound_to_org"`
}

func refreshColumns() []string {
	return []string{"id", "user_id", "org_id", "family_id", "token_hash", "expires_at", "revoked_at", "created_at", "bound_to_org"}
}

// InsertRefreshToken stores a refresh token's hash.
func InsertRefreshToken(ctx context.Context, q store.Querier, t RefreshToken) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("refresh_tokens").Columns(refreshColumns()...).
		Values(t.ID, t.UserID, t.OrgID, t.FamilyID, t.TokenHash, t.ExpiresAt, t.RevokedAt, t.CreatedAt, t.BoundToOrg))
	return err
}

// RefreshTokenForUpdate finds a token by hash and locks it, so two
// concurrent refreshes of one token cannot both succeed.
func RefreshTokenForUpdate(ctx context.Context, q store.Querier, hash []byte) (RefreshToken, error) {
	return store.Get[RefreshToken](ctx, q, store.SQL.Select(refreshColumns()...).From("refresh_tokens").
		Where(sq.Eq{"token_hash": hash}).Suffix("FOR UPDATE"))
}

// RevokeRefreshToken revokes one token.
func RevokeRefreshToken(ctx context.Context, q store.Querier, id uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("refresh_tokens").Set("revoked_at", at).
		Where(sq.Eq{"id": id, "revoked_at": nil}))
	return err
}

// RevokeFamily revokes every live token of a login family.
func RevokeFamily(ctx context.Context, q store.Querier, familyID uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("refresh_tokens").Set("revoked_at", at).
		Where(sq.Eq{"family_id": familyID, "revoked_at": nil}))
	return err
}

// SessionRole is the user's role in orgID for a session there, "" when
// none: a suspended membership counts as none, and so does one only the
// org's single sign-on reaches unless the session is bound to the org
// (started by that sign-on).
func SessionRole(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, bound bool) (string, error) {
	role, err := store.Scalar[string](ctx, q, store.SQL.Select("role").From("memberships").
		Where(sq.Eq{"org_id": orgID, "user_id": userID, "suspended_at": nil}).
		Where(sq.Or{sq.Expr("?::boolean", bound), sq.Eq{"sso_only": false}}))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return role, err
}
