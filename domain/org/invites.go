package org

import (
	"context"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/orgdb"
)

// Invite is an invitation to join an org. The code and link are null for a
// reader who may not hand the invite out (see ListInvites).
type Invite struct {
	ID         uuid.UUID   `json:"id"`
	InviteCode *string     `json:"invite_code"`
	InviteLink *string     `json:"invite_link"`
	Email      *string     `json:"email"`
	Role       domain.Role `json:"role"`
	ExpiresAt  time.Time   `json:"expires_at"`
	OrgID      uuid.UUID   `json:"org_id"`
	CreatedBy  uuid.UUID   `json:"created_by"`
	CreatedAt  time.Time   `json:"created_at"`
}

// toInvite renders an invite; withCode shows its code and link.
func (s *Service) toInvite(i orgdb.Invite, withCode bool) Invite {
	out := Invite{ID: i.ID, Email: i.Email, Role: domain.ParseRole(i.Role), ExpiresAt: i.ExpiresAt,
		OrgID: i.OrgID, CreatedBy: i.CreatedBy, CreatedAt: i.CreatedAt}
	if withCode {
		code, link := i.Code, s.InviteLink(i.Code)
		out.InviteCode, out.InviteLink = &code, &link
	}
	return out
}

// NeedsEmail reports whether an invite of role must name its invitee: an
// Admin or Owner invite is never a bearer token anyone holding it may use.
func NeedsEmail(r domain.Role) bool { return r >= domain.RoleAdmin }

// InviteLink is where an invitee registers with the code.
func (s *Service) InviteLink(code string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/invite/" + code
}

// CreateInvite makes an invite code (Admin), valid for InviteTTL.
func (s *Service) CreateInvite(ctx context.Context, p domain.Principal, orgID uuid.UUID, email, role string) (Invite, error) {
	r, err := ParseMemberRole("role", role)
	if err != nil {
		return Invite{}, err
	}
	var emailPtr *string
	if email != "" {
		a, err := mail.ParseAddress(email)
		if err != nil {
			return Invite{}, domain.Invalid("email: must be a valid email address")
		}
		emailPtr = &a.Address
	} else if NeedsEmail(r) {
		return Invite{}, domain.Invalid("email: required for an invite with the " + r.String() + " role")
	}
	var out Invite
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		a, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization")
		if err != nil {
			return err
		}
		if err := grantable(a, r); err != nil {
			return err
		}
		now := s.now()
		i := orgdb.Invite{ID: domain.NewID(), OrgID: orgID, Code: RandomCode(18), Email: emailPtr, Role: r.DB(),
			CreatedBy: p.UserID, ExpiresAt: now.Add(InviteTTL), CreatedAt: now}
		if err := orgdb.InsertInvite(ctx, q, i); err != nil {
			return err
		}
		out = s.toInvite(i, true)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "invite", EntityID: i.ID, Action: "created"})
	})
	return out, err
}

// ListInvites lists the org's pending invites (any member). The code and
// link, which let anyone join, are shown only to an Admin (after the API
// key's scope cap) and to the invite's creator; everyone else sees null.
func (s *Service) ListInvites(ctx context.Context, p domain.Principal, orgID uuid.UUID) ([]Invite, error) {
	q := s.DB.Q()
	a, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization")
	if err != nil {
		return nil, err
	}
	rows, err := orgdb.PendingInvites(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]Invite, 0, len(rows))
	for _, r := range rows {
		out = append(out, s.toInvite(r, a.At(domain.RoleAdmin) || r.CreatedBy == p.UserID))
	}
	return out, nil
}

// RevokeInvite revokes a pending invite (Admin).
func (s *Service) RevokeInvite(ctx context.Context, p domain.Principal, orgID, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		if err := orgdb.RevokeInvite(ctx, q, orgID, id, s.now()); err != nil {
			return domain.NotFoundAs(err, "invite")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "invite", EntityID: id, Action: "revoked"})
	})
}
