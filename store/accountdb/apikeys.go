package accountdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// APIKey is an api_keys row.
type APIKey struct {
	ID         uuid.UUID   `db:"id"`
	OrgID      uuid.UUID   `db:"org_id"`
	UserID     uuid.UUID   `db:"user_id"`
	Name       string      `db:"name"`
	KeyPrefix  string      `db:"key_prefix"`
	KeyHash    []byte      `db:"key_hash"`
	Scopes     []string    `db:"scopes"`
	ProjectIDs []uuid.UUID `db:"project_ids"`
	ExpiresAt  *time.Time  `db:"expires_at"`
	LastUsedAt *time.Time  `db:"last_used_at"`
	CreatedAt  time.Time   `db:"created_at"`
}

func keyColumns() []string {
	return []string{"id", "org_id", "user_id", "name", "key_prefix", "key_hash", "scopes", "project_ids", "expires_at", "last_used_at", "created_at"}
}

// InsertAPIKey stores a key's hash.
func InsertAPIKey(ctx context.Context, q store.Querier, k APIKey) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("api_keys").Columns(keyColumns()...).
		Values(k.ID, k.OrgID, k.UserID, k.Name, k.KeyPrefix, k.KeyHash, k.Scopes, k.ProjectIDs, k.ExpiresAt, k.LastUsedAt, k.CreatedAt))
	return err
}

// KeyPrincipal is an API key joined with its user, for authentication.
type KeyPrincipal struct {
	APIKey
	Email      string `db:"email"`
	UserActive bool   `db:"user_active"`
}

// KeyByHash finds a key with its user's email in one query.
func KeyByHash(ctx context.Context, q store.Querier, hash []byte) (KeyPrincipal, error) {
	cols := make([]string, 0, 13)
	for _, c := range keyColumns() {
		cols = append(cols, "k."+c)
	}
	cols = append(cols, "u.email", "u.active AS user_active")
	return store.Get[KeyPrincipal](ctx, q, store.SQL.Select(cols...).From("api_keys k").
		Join("users u ON u.id = k.user_id").Where(sq.Eq{"k.key_hash": hash}))
}

// TouchAPIKey records use at most once per interval, so a busy key does not
// write on every request.
func TouchAPIKey(ctx context.Context, q store.Querier, id uuid.UUID, now time.Time, interval time.Duration) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("api_keys").Set("last_used_at", now).
		Where(sq.Eq{"id": id}).Where(sq.Or{sq.Eq{"last_used_at": nil}, sq.Lt{"last_used_at": now.Add(-interval)}}))
	return err
}

// KeysOfUser lists a user's keys, oldest first.
func KeysOfUser(ctx context.Context, q store.Querier, userID uuid.UUID) ([]APIKey, error) {
	return store.Select[APIKey](ctx, q, store.SQL.Select(keyColumns()...).From("api_keys").
		Where(sq.Eq{"user_id": userID}).OrderBy("id"))
}

// KeyOfUser reads one of the user's keys; another's or none is
// store.ErrNotFound.
func KeyOfUser(ctx context.Context, q store.Querier, userID, id uuid.UUID) (APIKey, error) {
	return store.Get[APIKey](ctx, q, store.SQL.Select(keyColumns()...).From("api_keys").
		Where(sq.Eq{"id": id, "user_id": userID}))
}

// DeleteAPIKey deletes a user's own key; another's or none is store.ErrNotFound.
func DeleteAPIKey(ctx context.Context, q store.Querier, userID, id uuid.UUID) error {
	n, err := store.Exec(ctx, q, store.SQL.Delete("api_keys").Where(sq.Eq{"id": id, "user_id": userID}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// LiveProjectsIn counts how many of ids are live projects of org.
func LiveProjectsIn(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("projects").
		Where(sq.Eq{"org_id": orgID, "id": ids, "deleted_at": nil}))
}
