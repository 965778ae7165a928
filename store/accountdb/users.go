// Package accountdb holds the SQL of users, refresh tokens and API keys.
package accountdb

import (
	"context"
	"errors"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// User is a users row.
type User struct {
	ID           uuid.UUID `db:"id"`
	Email        string    `db:"email"`
	DisplayName  string    `db:"display_name"`
	PasswordHash *string   `db:"password_hash"`
	Active       bool      `db:"active"`
	// Placeholder marks an account nobody has claimed yet (an import's or
	// SCIM's): no password, never signed in; registering with the email
	// claims it.
	Placeholder bool      `db:"placeholder"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
}

func userColumns() []string {
	return []string{"id", "email", "display_name", "password_hash", "active", "placeholder", "created_at", "updated_at"}
}

// InsertUser creates a user; a taken email (any case) is store.ErrConflict.
func InsertUser(ctx context.Context, q store.Querier, u User) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("users").Columns(userColumns()...).
		Values(u.ID, u.Email, u.DisplayName, u.PasswordHash, u.Active, u.Placeholder, u.CreatedAt, u.UpdatedAt))
	return err
}

// ClaimPlaceholder turns the unclaimed account an import or SCIM made for
// the email into a real one: it sets the password and display name and
// clears the mark, keeping the id. No placeholder with that email is
// store.ErrNotFound. It returns the claimed user.
func ClaimPlaceholder(ctx context.Context, q store.Querier, email, displayName, passwordHash string, at time.Time) (User, error) {
	return store.Get[User](ctx, q, store.SQL.Update("users").
		Set("password_hash", passwordHash).Set("display_name", displayName).Set("placeholder", false).
		Set("updated_at", at).
		Where("lower(email) = lower(?) AND placeholder", email).
		Suffix("RETURNING "+strings.Join(userColumns(), ", ")))
}

// ClearPlaceholder marks a user as a real account (a placeholder claimed by
// another way in, e.g. single sign-on), so registering can no longer claim it.
func ClearPlaceholder(ctx context.Context, q store.Querier, id uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("users").Set("placeholder", false).Set("updated_at", at).
		Where(sq.Eq{"id": id, "placeholder": true}))
	return err
}

// UserByEmail finds a user by email, case-insensitively.
func UserByEmail(ctx context.Context, q store.Querier, email string) (User, error) {
	return store.Get[User](ctx, q, store.SQL.Select(userColumns()...).From("users").Where("lower(email) = lower(?)", email))
}

// UserByID finds a user.
func UserByID(ctx context.Context, q store.Querier, id uuid.UUID) (User, error) {
	return store.Get[User](ctx, q, store.SQL.Select(userColumns()...).From("users").Where(sq.Eq{"id": id}))
}

// Standing is what every request with an access token reads of its user.
type Standing struct {
	Active bool `db:"active"`
	// SSOOnlyOrgs are the orgs whose membership only the org's single
	// sign-on reaches.
	SSOOnlyOrgs []uuid.UUID `db:"sso_only_orgs"`
}

// StandingOf reads whether the user exists and is active, and the orgs
// only single sign-on reaches (one primary-key lookup and an index scan of
// the user's memberships, made on every request with an access token). A
// missing user is inactive.
func StandingOf(ctx context.Context, q store.Querier, id uuid.UUID) (Standing, error) {
	st, err := store.GetRaw[Standing](ctx, q, `SELECT u.active,
		ARRAY(SELECT m.org_id FROM memberships m WHERE m.user_id = u.id AND m.sso_only) AS sso_only_orgs
		FROM users u WHERE u.id = $1`, id)
	if errors.Is(err, store.ErrNotFound) {
		return Standing{}, nil
	}
	return st, err
}

// CountUsers counts every user (onboarding is needed while it is 0).
func CountUsers(ctx context.Context, q store.Querier) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("users"))
}
