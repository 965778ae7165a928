package ticket

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ticketdb"
)

// MaxDepth is the most levels of a ticket tree (a root and its descendants).
const MaxDepth = 5

// checkParent validates parentID as the parent of ticket id (uuid.Nil for a
// new ticket) in orgID: a ticket the caller can read in the same org (any
// project), not the ticket itself nor one of its descendants, and the tree
// no deeper than MaxDepth.
//
// name is how the request named the parent (its id or its reference).
func checkParent(ctx context.Context, q store.Querier, p domain.Principal, orgID, id, parentID uuid.UUID, name string) error {
	notFound := domain.Invalid("parent_id: " + name + " not found")
	if parentID == id {
		return domain.Invalid("parent_id: a ticket cannot be its own parent")
	}
	par, err := ticketdb.GetWithAccess(ctx, q, parentID, p.UserID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && par.Row.OrgID != orgID) {
		return notFound
	}
	if err != nil {
		return err
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(par.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return notFound
	}
	if err := ticketdb.LockOrgParents(ctx, q, orgID); err != nil {
		return err
	}
	chain, err := ticketdb.Ancestors(ctx, q, parentID, MaxDepth+1)
	if err != nil {
		return err
	}
	if id != uuid.Nil && slices.Contains(chain, id) {
		return domain.Invalidf("parent_id: %s is a descendant of this ticket (a cycle)", name)
	}
	height := 0
	if id != uuid.Nil {
		if height, err = ticketdb.SubtreeHeight(ctx, q, id, MaxDepth+1); err != nil {
			return err
		}
	}
	if len(chain)+1+height > MaxDepth {
		return domain.Invalidf("parent_id: a ticket tree is at most %d levels deep", MaxDepth)
	}
	return nil
}
