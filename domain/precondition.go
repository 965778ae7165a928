package domain

import (
	"context"
	"errors"
	"slices"

	"tracker/store"
)

// A conditional write (If-Match) carries the row versions the client
// accepts in its context; the use cases that support it compare them in
// the UPDATE's WHERE (or under the row lock of the read for a change), and
// refuse a stale one with PreconditionFailed.

type ifMatchKey struct{}

// WithIfMatch makes ctx's write conditional on the row being at one of
// versions (an empty list matches nothing).
func WithIfMatch(ctx context.Context, versions []int64) context.Context {
	return context.WithValue(ctx, ifMatchKey{}, versions)
}

// IfMatch is ctx's accepted versions; ok is false for an unconditional write.
func IfMatch(ctx context.Context) (versions []int64, ok bool) {
	versions, ok = ctx.Value(ifMatchKey{}).([]int64)
	return versions, ok
}

// CheckIfMatch refuses a conditional write of what whose current version
// (read under a row lock) is not one the client accepts.
func CheckIfMatch(ctx context.Context, what string, version int64) error {
	if want, ok := IfMatch(ctx); ok && !slices.Contains(want, version) {
		return PreconditionFailed(what)
	}
	return nil
}

// PreconditionFailed is a conditional write whose If-Match names a version
// the resource is no longer at (412).
func PreconditionFailed(what string) error {
	return &Error{Kind: KindPreconditionFailed, Message: what + " was changed since the version in If-Match; read it again and retry",
		Details: []string{}}
}

// Versions is ctx's If-Match as the condition of the store's UPDATE or
// DELETE (unconditional when the request named none).
func Versions(ctx context.Context) store.Versions {
	if want, ok := IfMatch(ctx); ok {
		return store.AtVersions(want)
	}
	return store.Versions{}
}

// StaleAs reads the outcome of a conditional write of a row the use case
// read (and locked) before in the same transaction: no row written
// (store.ErrNotFound) means, under If-Match, that the row is at another
// version (412); otherwise it is what's 404.
func StaleAs(ctx context.Context, err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		if _, ok := IfMatch(ctx); ok {
			return PreconditionFailed(what)
		}
		return NotFound(what)
	}
	return err
}

// Versioned is a resource sent with its row version as its ETag (the API
// sets the header from it on single-resource answers).
type Versioned interface {
	RowVersion() int64
}
