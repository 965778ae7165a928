package ticket

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Target is a ticket named in a request body (a link's ticket_id, a
// parent_id): a UUID, or a reference — KEY-NUMBER in any project of the
// org, or a bare NUMBER / #NUMBER in the project of the ticket it is for.
type Target struct {
	ID  uuid.UUID
	Ref string // set when the request named a reference; ID is then resolved
}

// ParseTarget reads a UUID or a ticket reference; anything else is a 422
// naming field.
func ParseTarget(field, s string) (Target, error) {
	if id, err := uuid.Parse(s); err == nil {
		return Target{ID: id}, nil
	}
	if _, _, ok := ParseRef(s); ok {
		return Target{Ref: s}, nil
	}
	return Target{}, domain.Invalid(field + ": must be a UUID or a ticket reference (KEY-NUMBER)")
}

// String is how the request named the ticket (for messages: a reference
// is never answered with the id it resolves to).
func (t Target) String() string {
	if t.Ref != "" {
		return t.Ref
	}
	return t.ID.String()
}

// resolve finds the ticket of a reference in orgID (a bare number in
// projectID); an unknown reference is a 422 "<field>: <ref> not found",
// the answer a ticket the caller cannot read gets too.
func (t Target) resolve(ctx context.Context, q store.Querier, field string, orgID, projectID uuid.UUID) (uuid.UUID, error) {
	if t.Ref == "" {
		return t.ID, nil
	}
	key, n, _ := ParseRef(t.Ref)
	id, err := ticketdb.IDByRef(ctx, q, orgID, projectID, key, n)
	if errors.Is(err, store.ErrNotFound) {
		return uuid.Nil, domain.Invalid(field + ": " + t.Ref + " not found")
	}
	return id, err
}
