package org

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/orgdb"
)

// errLastOwner is the 409 of a change that would leave an org ownerless.
func errLastOwner(userID uuid.UUID) error {
	return domain.Conflict("the organization's last Owner can be neither removed nor demoted; make another member Owner first",
		"user_id: "+userID.String())
}

// target locks the member userID of orgID for a change by a caller with
// access a: a missing member is 404; changing an Owner needs Owner.
func target(ctx context.Context, q store.Querier, a domain.Access, orgID, userID uuid.UUID) (orgdb.Membership, error) {
	m, err := orgdb.MembershipForUpdate(ctx, q, orgID, userID)
	if err != nil {
		return m, domain.NotFoundAs(err, "member")
	}
	if domain.ParseRole(m.Role) == domain.RoleOwner && a.Role < domain.RoleOwner {
		return m, domain.RequiresRole(domain.RoleOwner)
	}
	return m, nil
}

// keepsAnOwner refuses a change that takes the Owner role from the org's
// last active Owner (a suspended Owner cannot act).
func keepsAnOwner(ctx context.Context, q store.Querier, orgID uuid.UUID, m orgdb.Membership) error {
	if domain.ParseRole(m.Role) != domain.RoleOwner {
		return nil
	}
	active, err := orgdb.LockOwners(ctx, q, orgID)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(active, func(id uuid.UUID) bool { return id != m.UserID }) {
		return errLastOwner(m.UserID)
	}
	return nil
}

// UpdateMemberRole changes a member's role (Admin; granting or taking the
// Owner role needs Owner). The last Owner cannot be demoted (409).
func (s *Service) UpdateMemberRole(ctx context.Context, p domain.Principal, orgID, userID uuid.UUID, role string) (Membership, error) {
	if role == "" {
		return Membership{}, domain.Invalid("role: required: one of owner, admin, member, reporter, viewer")
	}
	r, err := ParseMemberRole("role", role)
	if err != nil {
		return Membership{}, err
	}
	var out Membership
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		a, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization")
		if err != nil {
			return err
		}
		if err := grantable(a, r); err != nil {
			return err
		}
		m, err := target(ctx, q, a, orgID, userID)
		if err != nil {
			return err
		}
		out = Membership{UserID: userID, OrgID: orgID, Role: r, JoinedAt: m.JoinedAt}
		old := domain.ParseRole(m.Role)
		if old == r {
			return nil
		}
		if err := keepsAnOwner(ctx, q, orgID, m); err != nil {
			return err
		}
		if err := orgdb.UpdateRole(ctx, q, orgID, userID, r.DB()); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "membership",
			EntityID: userID, Action: "updated", Changes: []domain.FieldChange{{Field: "role", Old: old.String(), New: r.String()}}})
	})
	return out, err
}

// RemoveMember offboards a member (Admin; removing an Owner needs Owner; any
// member may remove themselves). The membership, the user's project and
// team assignments in the org and every API key they made in it go at once.
// The last Owner cannot be removed (409).
func (s *Service) RemoveMember(ctx context.Context, p domain.Principal, orgID, userID uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		min := domain.RoleAdmin
		if userID == p.UserID {
			min = domain.RoleViewer
		}
		a, err := domain.OrgAccess(ctx, q, p, orgID, min, "organization")
		if err != nil {
			return err
		}
		if userID == p.UserID {
			a.Role = domain.RoleOwner // leaving needs no rank over oneself
		}
		m, err := target(ctx, q, a, orgID, userID)
		if err != nil {
			return err
		}
		if err := keepsAnOwner(ctx, q, orgID, m); err != nil {
			return err
		}
		keys, err := orgdb.Offboard(ctx, q, orgID, userID)
		if err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "membership",
			EntityID: userID, Action: "deleted", Changes: []domain.FieldChange{
				{Field: "role", Old: domain.ParseRole(m.Role).String(), New: nil},
				{Field: "api_keys_revoked", Old: nil, New: keys}}})
	})
}
