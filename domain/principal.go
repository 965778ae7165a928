package domain

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// API key scopes.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeAdmin = "admin"
	ScopeAll   = "*" // JWT sessions
)

// Principal is the authenticated caller of one request.
type Principal struct {
	UserID uuid.UUID
	Email  string
	// OrgID is the org named by the token (the session's org, or the org the
	// API key was created in). Roles are never taken from the token.
	OrgID      uuid.UUID
	KeyID      *uuid.UUID // set for API-key requests
	Scopes     []string
	ProjectIDs []uuid.UUID // API key project restriction; empty means none
	KeyExpires *time.Time  // the API key's expiry; nil: none (or a session)
	// SSO marks a session started by the single sign-on of OrgID: like an
	// API key, it reaches that org only. An org's identity provider
	// vouches for that org, never for the user's other orgs.
	SSO bool
	// SSOOnlyOrgs are the orgs where the user's membership was made by
	// the org's identity provider (SCIM, single sign-on): only that org's
	// SSO sessions (and their keys) reach them, never a password session.
	SSOOnlyOrgs []uuid.UUID
}

// Bound reports whether the caller reaches only OrgID: an API key, or a
// session started by single sign-on.
func (p Principal) Bound() bool { return p.IsKey() || p.SSO }

// Reaches reports whether the caller may act in orgID at all (membership
// aside): a bound caller only in its own org; any other caller in every
// org but those whose membership only the org's single sign-on reaches.
func (p Principal) Reaches(orgID uuid.UUID) bool {
	if p.Bound() {
		return orgID == p.OrgID
	}
	return !slices.Contains(p.SSOOnlyOrgs, orgID)
}

// ManagesKeys reports whether the caller may list and revoke the user's
// other API keys: a session, or an unrestricted key with the admin scope.
func (p Principal) ManagesKeys() bool {
	return !p.IsKey() || (p.HasScope(ScopeAdmin) && len(p.ProjectIDs) == 0)
}

// IsKey reports whether the request came with an API key.
func (p Principal) IsKey() bool { return p.KeyID != nil }

// HasScope reports whether the key carries scope s (JWT sessions have all).
func (p Principal) HasScope(s string) bool {
	return slices.Contains(p.Scopes, ScopeAll) || slices.Contains(p.Scopes, s)
}

// CapRole applies the API key's scope to a membership role: read acts as
// Viewer, write as at most Member, admin as the member's own role.
func (p Principal) CapRole(r Role) Role {
	if !p.IsKey() || p.HasScope(ScopeAdmin) {
		return r
	}
	if p.HasScope(ScopeWrite) {
		return min(r, RoleMember)
	}
	return min(r, RoleViewer)
}

// AllowsProject reports whether an API key's project restriction admits id.
func (p Principal) AllowsProject(id uuid.UUID) bool {
	return len(p.ProjectIDs) == 0 || slices.Contains(p.ProjectIDs, id)
}

// AllowsMethod is the scope gate by HTTP method: read keys may only read.
func (p Principal) AllowsMethod(method string) bool {
	if !p.IsKey() || p.HasScope(ScopeWrite) || p.HasScope(ScopeAdmin) {
		return true
	}
	return method == "GET" || method == "HEAD"
}

// Visible is what a list or search across an org shows p when p's
// membership role there is role: a Reporter only the projects assigned to
// them (assignedTo, else nil), an API key restricted to projects only
// those (only, else nil). It takes the membership role, not the
// key-capped one: a Reporter's read key must not widen what the Reporter
// sees.
func (p Principal) Visible(role Role) (assignedTo *uuid.UUID, only []uuid.UUID) {
	if role == RoleReporter {
		assignedTo = &p.UserID
	}
	if len(p.ProjectIDs) > 0 {
		only = p.ProjectIDs
	}
	return assignedTo, only
}
