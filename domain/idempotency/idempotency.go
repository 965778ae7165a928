// Package idempotency gives POST requests made with an Idempotency-Key
// (draft-ietf-httpapi-idempotency-key-header, with Stripe's semantics) one
// effect however often they are retried: the first response is kept per
// principal and key for TTL; a retry with the same request gets it again,
// the same key with a different request is a 422, and a retry while the
// first is still running a 409.
//
// The request runs in one request-wide transaction (store.Request) that
// also stores its response, so a crash can neither keep the effect without
// the response nor the response without the effect.
package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"tracker/domain"
	"tracker/store"
	"tracker/store/idempotencydb"
)

// TTL is how long a response is kept.
const TTL = 24 * time.Hour

// MaxKeyLength bounds the header's value.
const MaxKeyLength = 255

// Response is a stored response.
type Response = idempotencydb.Response

// Service starts and finishes idempotent requests.
type Service struct {
	DB    *store.DB
	Clock domain.Clock
}

// New builds the service.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, Clock: clock} }

// Run is a request under way: its handler runs with Ctx, then Finish or
// Abort ends it.
type Run struct {
	Ctx       context.Context
	s         *Service
	req       *store.Request
	principal string
	key       string
	hash      []byte
}

// CheckKey refuses an unusable Idempotency-Key value.
func CheckKey(key string) error {
	if len(key) > MaxKeyLength {
		return domain.Invalid(fmt.Sprintf("Idempotency-Key: at most %d characters", MaxKeyLength))
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return domain.Invalid("Idempotency-Key: printable ASCII without spaces only")
		}
	}
	return nil
}

// Begin starts the request of principal with key whose method, path and
// body hash to hash. It returns the stored response when the request was
// made before (replay), a 422 when key was used for a different request, a
// 409 when the first request with key is still running, or else a Run.
func (s *Service) Begin(ctx context.Context, principal, key string, hash []byte) (*Run, *Response, error) {
	if err := CheckKey(key); err != nil {
		return nil, nil, err
	}
	rctx, req, err := s.DB.BeginRequest(ctx)
	if err != nil {
		return nil, nil, err
	}
	ok, err := idempotencydb.TryLock(ctx, req.Q(), principal, key)
	if err != nil {
		req.Rollback(ctx)
		return nil, nil, err
	}
	if !ok {
		req.Rollback(ctx)
		return nil, nil, domain.Conflict("a request with this Idempotency-Key is still being processed; retry later")
	}
	stored, resp, found, err := idempotencydb.Get(ctx, req.Q(), principal, key, s.Clock.Now())
	if err != nil {
		req.Rollback(ctx)
		return nil, nil, err
	}
	if found {
		req.Rollback(ctx)
		if !bytes.Equal(stored, hash) {
			return nil, nil, domain.Invalidf("this Idempotency-Key was used for a different request (method, path or body)")
		}
		return nil, &resp, nil
	}
	return &Run{Ctx: rctx, s: s, req: req, principal: principal, key: key, hash: hash}, nil, nil
}

// Finish stores resp (nil: commit without storing) with the request's
// writes in one commit. An error means nothing was committed.
func (r *Run) Finish(ctx context.Context, resp *Response) error {
	if resp != nil {
		now := r.s.Clock.Now()
		if err := idempotencydb.Put(ctx, r.req.Q(), r.principal, r.key, r.hash, *resp, now, now.Add(TTL)); err != nil {
			r.req.Rollback(ctx)
			return err
		}
	}
	return r.req.Commit(ctx)
}

// Abort discards the request's writes; nothing is stored, so a retry runs
// the request again.
func (r *Run) Abort(ctx context.Context) { r.req.Rollback(ctx) }

// Prune deletes expired responses in batches and returns how many.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	const batch = 1000
	now := s.Clock.Now()
	var total int64
	for {
		n, err := idempotencydb.Prune(ctx, s.DB.Q(), now, batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}
