package accountdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
)

// EnsureSystemUser creates the user row an integration acts as (inactive,
// without a password, so nobody can sign in as it) if it does not exist.
// Created on first use rather than by a migration, so a fresh install still
// counts zero users and offers onboarding.
func EnsureSystemUser(ctx context.Context, q store.Querier, id uuid.UUID, email, name string) error {
	_, err := q.Exec(ctx, `INSERT INTO users (id, email, display_name, password_hash, active)
		VALUES ($1, $2, $3, NULL, false) ON CONFLICT DO NOTHING`, id, email, name)
	return store.Translate(err)
}
