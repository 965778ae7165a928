package api

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/domain"
)

// PathID reads a UUID path parameter; one that is not a UUID names nothing,
// so it is a 404 for what.
func PathID(c *fiber.Ctx, name, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Params(name))
	if err != nil {
		return uuid.Nil, domain.NotFound(what)
	}
	return id, nil
}

// QueryID reads an optional UUID query parameter (uuid.Nil when absent); a
// malformed one is a 422.
func QueryID(c *fiber.Ctx, name string) (uuid.UUID, error) {
	s := c.Query(name)
	if s == "" {
		return uuid.Nil, nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, domain.Invalid(name + ": must be a UUID")
	}
	return id, nil
}

// RequiredQueryID is QueryID for a required parameter.
func RequiredQueryID(c *fiber.Ctx, name string) (uuid.UUID, error) {
	if c.Query(name) == "" {
		return uuid.Nil, domain.Invalid(name + ": required")
	}
	return QueryID(c, name)
}

// QueryBool reads an optional boolean query parameter (false when absent).
func QueryBool(c *fiber.Ctx, name string) (bool, error) {
	s := c.Query(name)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, domain.Invalid(name + ": must be true or false")
	}
	return b, nil
}

// Paginated is the spec's list envelope.
type Paginated[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// PageParams reads `limit` (default def, over 100 clamped, below 1 a 422)
// and the opaque `cursor`.
func PageParams(c *fiber.Ctx, def int) (domain.Page, error) {
	p := domain.Page{Limit: def}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return p, domain.Invalid("limit: must be an integer")
		}
		if n < 1 {
			return p, domain.Invalid("limit: must be at least 1")
		}
		p.Limit = min(n, domain.MaxPageLimit)
	}
	if s := c.Query("cursor"); s != "" {
		id, ok := DecodeCursor(s)
		if !ok {
			return p, domain.Invalid("cursor: not a cursor returned by this list")
		}
		p.After = id
	}
	return p, nil
}

// EncodeCursor makes the opaque cursor of an id.
func EncodeCursor(id uuid.UUID) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// DecodeCursor reads a cursor made by EncodeCursor. One spelling per id:
// Strict refuses stray padding bits, and a CR or LF (which Go's base64
// decoder skips even in Strict mode) is refused here.
func DecodeCursor(s string) (uuid.UUID, bool) {
	if strings.ContainsAny(s, "\r\n") {
		return uuid.Nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 16 {
		return uuid.Nil, false
	}
	id, err := uuid.FromBytes(b)
	return id, err == nil && id != uuid.Nil
}

// PageOf renders a page of rows in the list envelope.
func PageOf[T any](p domain.Paged[T]) Paginated[T] {
	out := Paginated[T]{Items: p.Items, HasMore: p.Next != nil}
	if out.Items == nil {
		out.Items = []T{}
	}
	if p.Next != nil {
		s := EncodeCursor(*p.Next)
		out.NextCursor = &s
	}
	return out
}
