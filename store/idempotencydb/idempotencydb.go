// Package idempotencydb keeps the responses of requests made with an
// Idempotency-Key (table idempotency_keys).
package idempotencydb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"tracker/store"
)

// Response is a stored first response.
type Response struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// TryLock takes the transaction-scoped advisory lock of (principal, key)
// without waiting: false means another request with the key is running.
func TryLock(ctx context.Context, q store.Querier, principal, key string) (bool, error) {
	sum := sha256.Sum256([]byte("idempotency\x00" + principal + "\x00" + key))
	var ok bool
	err := q.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", int64(binary.BigEndian.Uint64(sum[:8]))).Scan(&ok)
	return ok, store.Translate(err)
}

// Get reads the unexpired response stored for (principal, key) and the hash
// of the request that made it; found is false when there is none.
func Get(ctx context.Context, q store.Querier, principal, key string, now time.Time) (hash []byte, r Response, found bool, err error) {
	err = q.QueryRow(ctx, `SELECT request_hash, status, headers, body FROM idempotency_keys
		WHERE principal = $1 AND key = $2 AND expires_at > $3`, principal, key, now).
		Scan(&hash, &r.Status, &r.Headers, &r.Body)
	if err != nil {
		if err = store.Translate(err); errors.Is(err, store.ErrNotFound) {
			return nil, Response{}, false, nil
		}
		return nil, Response{}, false, err
	}
	return hash, r, true, nil
}

// Put stores the response of (principal, key) until expires, replacing an
// expired one.
func Put(ctx context.Context, q store.Querier, principal, key string, hash []byte, r Response, now, expires time.Time) error {
	if r.Headers == nil {
		r.Headers = map[string]string{}
	}
	if r.Body == nil {
		r.Body = []byte{}
	}
	_, err := q.Exec(ctx, `INSERT INTO idempotency_keys (principal, key, request_hash, status, headers, body, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (principal, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status,
			headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
		WHERE idempotency_keys.expires_at <= EXCLUDED.created_at`,
		principal, key, hash, r.Status, r.Headers, r.Body, now, expires)
	return store.Translate(err)
}

// Prune deletes up to limit responses expired before now and returns how
// many it deleted.
func Prune(ctx context.Context, q store.Querier, now time.Time, limit int) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM idempotency_keys WHERE ctid IN (
		SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`, now, limit)
	if err != nil {
		return 0, store.Translate(err)
	}
	return tag.RowsAffected(), nil
}
