package chatdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// InstallState is a chat_install_states row: an install in flight.
type InstallState struct {
	StateHash []byte    `db:"state_hash"`
	OrgID     uuid.UUID `db:"org_id"`
	CreatedBy uuid.UUID `db:"created_by"`
	ExpiresAt time.Time `db:"expires_at"`
	CreatedAt time.Time `db:"created_at"`
}

// InsertInstallState records an install in flight and drops the ones that
// expired (nobody can finish them).
func InsertInstallState(ctx context.Context, q store.Querier, s InstallState) error {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("chat_install_states").Where(sq.Lt{"expires_at": s.CreatedAt})); err != nil {
		return err
	}
	_, err := store.Exec(ctx, q, store.SQL.Insert("chat_install_states").
		Columns("state_hash", "org_id", "created_by", "expires_at", "created_at").
		Values(s.StateHash, s.OrgID, s.CreatedBy, s.ExpiresAt, s.CreatedAt))
	return err
}

// ClaimInstallState deletes and returns the install of a state hash, so a
// state is spent on first use; unknown or spent is store.ErrNotFound.
func ClaimInstallState(ctx context.Context, q store.Querier, hash []byte) (InstallState, error) {
	return store.GetRaw[InstallState](ctx, q, `DELETE FROM chat_install_states WHERE state_hash = $1
		RETURNING state_hash, org_id, created_by, expires_at, created_at`, hash)
}
