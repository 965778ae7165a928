package org

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
)

// Membership is a user's place in an org.
type Membership struct {
	UserID   uuid.UUID   `json:"user_id"`
	OrgID    uuid.UUID   `json:"org_id"`
	Role     domain.Role `json:"role"`
	JoinedAt time.Time   `json:"joined_at"`
}

// Member is a member listing item.
type Member struct {
	UserID      uuid.UUID   `json:"user_id"`
	DisplayName string      `json:"display_name"`
	Email       string      `json:"email"`
	Role        domain.Role `json:"role"`
	JoinedAt    time.Time   `json:"joined_at"`
}

// ParseMemberRole reads the role of a new member or invite; empty is Member.
func ParseMemberRole(field, s string) (domain.Role, error) {
	if s == "" {
		return domain.RoleMember, nil
	}
	r := domain.ParseRole(s)
	if r == domain.RoleNone {
		return r, domain.Invalid(field + ": must be one of owner, admin, member, reporter, viewer")
	}
	return r, nil
}

// grantable checks that the granter may hand out role: only an Owner makes
// Owners.
func grantable(a domain.Access, r domain.Role) error {
	if r == domain.RoleOwner && a.Role < domain.RoleOwner {
		return domain.RequiresRole(domain.RoleOwner)
	}
	return nil
}

// AddMember adds an existing user to the org (Admin of that org).
func (s *Service) AddMember(ctx context.Context, p domain.Principal, orgID, userID uuid.UUID, role string) (Membership, error) {
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
		if _, err := accountdb.UserByID(ctx, q, userID); err != nil {
			return domain.NotFoundAs(err, "user")
		}
		m := orgdb.Membership{OrgID: orgID, UserID: userID, Role: r.DB(), JoinedAt: s.now()}
		if err := orgdb.InsertMembership(ctx, q, m); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("the user is already a member of this organization", "user_id: "+userID.String())
			}
			return err
		}
		out = Membership{UserID: userID, OrgID: orgID, Role: r, JoinedAt: m.JoinedAt}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "membership",
			EntityID: userID, Action: "created", Changes: []domain.FieldChange{{Field: "role", New: r.String()}}})
	})
	return out, err
}

// ListMembers pages the org's members (any member may list).
func (s *Service) ListMembers(ctx context.Context, p domain.Principal, orgID uuid.UUID, page store.Page) (store.Paged[Member], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return store.Paged[Member]{}, err
	}
	rows, err := orgdb.ListMembers(ctx, q, orgID, page)
	if err != nil {
		return store.Paged[Member]{}, err
	}
	out := store.Paged[Member]{Items: make([]Member, 0, len(rows.Items)), Next: rows.Next}
	for _, m := range rows.Items {
		out.Items = append(out.Items, Member{UserID: m.UserID, DisplayName: m.DisplayName, Email: m.Email, Role: domain.ParseRole(m.Role), JoinedAt: m.JoinedAt})
	}
	return out, nil
}
