// Package domain holds the business rules shared by every feature: the
// closed error set, roles and scopes, the authorization mechanism, and the
// recording of audit and outbox rows. Feature packages (domain/account,
// domain/org, ...) build their use cases on it.
package domain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"tracker/store"
)

// Kind is one member of the closed error set; the API maps each to a status.
type Kind int

const (
	KindInternal Kind = iota
	KindValidation
	KindNotFound
	KindForbidden
	KindConflict
	KindUnauthorized
	KindBadRequest
	KindRateLimited
	KindUnavailable
	// KindTooLarge is a request body over its route's limit.
	KindTooLarge
	// KindPreconditionFailed is a conditional write (If-Match) on a stale
	// version (412).
	KindPreconditionFailed
)

// Error is the only error type the domain returns to callers on purpose.
type Error struct {
	Kind    Kind
	Message string
	Details []string
	// RetryAfter is the seconds after which a retry may succeed (the API
	// sends it as Retry-After); 0: none given.
	RetryAfter int
}

func (e *Error) Error() string {
	if len(e.Details) == 0 {
		return e.Message
	}
	return e.Message + ": " + strings.Join(e.Details, "; ")
}

// NotFound names what was not found; used for missing rows and for
// resources in orgs the caller is not a member of (existence is not revealed).
func NotFound(what string) error {
	return &Error{Kind: KindNotFound, Message: what + " not found"}
}

// Forbidden is a member below the required rights.
func Forbidden(msg string) error { return &Error{Kind: KindForbidden, Message: msg} }

// RequiresRole is the 403 that names the minimum role.
func RequiresRole(r Role) error {
	return Forbidden(fmt.Sprintf("this operation requires the %s role", r))
}

// Conflict lists dependents or duplicates in details such as "tickets: 3".
func Conflict(msg string, details ...string) error {
	return &Error{Kind: KindConflict, Message: msg, Details: nonNil(details)}
}

// Invalid is a 422 listing each field problem as "field: problem".
func Invalid(details ...string) error {
	return &Error{Kind: KindValidation, Message: "validation failed", Details: nonNil(details)}
}

// Invalidf is a 422 with its own message.
func Invalidf(format string, args ...any) error {
	return &Error{Kind: KindValidation, Message: fmt.Sprintf(format, args...), Details: []string{}}
}

// Unauthorized is a missing, invalid, expired or revoked credential.
func Unauthorized(msg string) error { return &Error{Kind: KindUnauthorized, Message: msg} }

// BadRequest is a request that cannot be read at all (malformed JSON).
func BadRequest(msg string) error { return &Error{Kind: KindBadRequest, Message: msg} }

// TooLarge is a request body over its route's limit (413).
func TooLarge(msg string) error { return &Error{Kind: KindTooLarge, Message: msg} }

// Unavailable is a feature that is not configured on this server.
func Unavailable(msg string) error { return &Error{Kind: KindUnavailable, Message: msg} }

func nonNil(d []string) []string {
	if d == nil {
		return []string{}
	}
	return d
}

// Problems collects field problems and turns them into one Invalid error.
type Problems []string

// Add records "field: problem".
func (p *Problems) Add(field, problem string) { *p = append(*p, field+": "+problem) }

// MaxDetails caps the problems one 422 lists: a body of a million bad
// entries answers a count of the rest, not a response as large as itself.
const MaxDetails = 100

// Err is nil when nothing was added; past MaxDetails problems the last
// detail counts the rest.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	if len(p) > MaxDetails {
		rest := len(p) - MaxDetails
		p = append(p[:MaxDetails:MaxDetails], fmt.Sprintf("… and %d more problems", rest))
	}
	return Invalid(p...)
}

// AsError finds the domain error in err, mapping the store's sentinels that
// escaped a use case: a missing row is a 404, a unique violation a 409.
// Anything else is internal.
func AsError(err error) *Error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &Error{Kind: KindNotFound, Message: "resource not found"}
	case errors.Is(err, store.ErrConflict):
		return &Error{Kind: KindConflict, Message: "resource already exists", Details: []string{}}
	case errors.Is(err, store.ErrInvalidRef):
		return &Error{Kind: KindValidation, Message: "a referenced resource does not exist", Details: []string{}}
	case store.IsInvalidInput(err):
		return &Error{Kind: KindValidation, Message: "a value is out of range or contains characters that cannot be stored", Details: []string{}}
	case store.IsStatementTimeout(err):
		return &Error{Kind: KindUnavailable, Message: StatementTimeoutMessage, Details: []string{}, RetryAfter: StatementTimeoutRetryAfter}
	case store.IsUnavailable(err):
		return &Error{Kind: KindUnavailable, Message: DatabaseUnavailableMessage, Details: []string{}, RetryAfter: DatabaseUnavailableRetryAfter}
	}
	return &Error{Kind: KindInternal, Message: "internal server error"}
}

// StatementTimeoutMessage is the 503 of a request whose database work ran
// past the statement timeout; the server's load may be the cause as much as
// the request's size.
const StatementTimeoutMessage = "the request took longer than the server allows; retry later, or ask for less (a shorter range, fewer filters)"

// StatementTimeoutRetryAfter is the Retry-After of that 503, in seconds: a
// retry at once meets the same load.
const StatementTimeoutRetryAfter = 30

// DatabaseUnavailableMessage is the 503 of a request that met the database
// unreachable (restarting, failing over, out of connections).
const DatabaseUnavailableMessage = "the service cannot reach its database right now; retry later"

// DatabaseUnavailableRetryAfter is the Retry-After of that 503, in seconds: a
// restart or a failover takes seconds, and the pool dials again on the next
// request.
const DatabaseUnavailableRetryAfter = 2

// NotFoundAs turns the store's ErrNotFound into NotFound(what) and passes
// other errors through.
func NotFoundAs(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return NotFound(what)
	}
	return err
}

// RequireAll is a 422 listing, under field, each id of want that found lacks
// ("<id> <problem>"); idOf reads a found item's id.
func RequireAll[T any](field string, want []uuid.UUID, found []T, idOf func(T) uuid.UUID, problem string) error {
	seen := make(map[uuid.UUID]bool, len(found))
	for _, f := range found {
		seen[idOf(f)] = true
	}
	var p Problems
	for _, id := range want {
		if !seen[id] {
			p.Add(field, id.String()+" "+problem)
		}
	}
	return p.Err()
}

// Dedupe drops repeated ids, keeping the first occurrence's order.
func Dedupe(ids []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ids))
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
