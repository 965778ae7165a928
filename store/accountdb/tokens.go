package accountdb

import (
	"context"
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
}

func refreshColumns() []string {
	return []string{"id", "user_id", "org_id", "family_id", "token_hash", "expires_at", "revoked_at", "created_at"}
}

// InsertRefreshToken stores a refresh token's hash.
func InsertRefreshToken(ctx context.Context, q store.Querier, t RefreshToken) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("refresh_tokens").Columns(refreshColumns()...).
		Values(t.ID, t.UserID, t.OrgID, t.FamilyID, t.TokenHash, t.ExpiresAt, t.RevokedAt, t.CreatedAt))
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
