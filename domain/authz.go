package domain

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
)

// Access is what the caller may do in one org: the membership role found in
// that org, capped by the API key's scope (Role), and that role itself
// (Member), which decides what a Reporter sees (Principal.Visible).
type Access struct {
	OrgID  uuid.UUID
	Role   Role
	Member Role
}

// At reports whether the access reaches min.
func (a Access) At(min Role) bool { return a.Role >= min }

// Require is RequiresRole unless the access reaches min.
func (a Access) Require(min Role) error {
	if a.Role < min {
		return RequiresRole(min)
	}
	return nil
}

// Membership is the caller's standing toward a resource, read by the store
// in the same query as the resource where it can.
type Membership struct {
	OrgID     uuid.UUID
	Role      Role       // RoleNone: not a member of the org
	ProjectID *uuid.UUID // the resource's project, for project-scoped resources
	Assigned  bool       // the caller is a member of that project
	// ProjectFiltered is the one opt-in for an org-level resource (no
	// ProjectID) to admit an API key restricted to projects: the caller
	// declares that what it returns is filtered to the key's projects (lists
	// of projects, tickets, time entries, tag search). Left false, the
	// default, such a key gets 403 on every org-level resource, so a new
	// org-level feature is closed to restricted keys without doing anything.
	ProjectFiltered bool
}

// keyRestrictedMsg is the 403 of a project-restricted API key on an
// org-level resource.
const keyRestrictedMsg = "this API key is restricted to projects and cannot reach organization-level resources"

// Authorize is the one authorization rule of the service:
//   - not a member of the resource's org → 404 naming what (existence is not revealed);
//   - an API key used outside the org it was created in, a session started
//     by single sign-on outside its org, or a password session in an org
//     whose membership only that org's single sign-on reaches → 404, as a
//     non-member (Principal.Reaches);
//   - an API key restricted to other projects → 403;
//   - an API key restricted to projects on an org-level resource → 403, unless
//     the caller declared the read filtered to the key's projects;
//   - a Reporter on a project not assigned to them → 403;
//   - below the minimum role (after the key's scope cap) → 403 naming the role.
func Authorize(p Principal, m Membership, min Role, what string) (Access, error) {
	if m.Role == RoleNone || !p.Reaches(m.OrgID) {
		return Access{}, NotFound(what)
	}
	a := Access{OrgID: m.OrgID, Role: p.CapRole(m.Role), Member: m.Role}
	if m.ProjectID == nil && len(p.ProjectIDs) > 0 && !m.ProjectFiltered {
		return a, Forbidden(keyRestrictedMsg)
	}
	if m.ProjectID != nil {
		if !p.AllowsProject(*m.ProjectID) {
			return a, Forbidden("this API key is not allowed to reach this project")
		}
		// The membership role, not the key-capped one: a Reporter's read key
		// must not see more than the Reporter does.
		if m.Role == RoleReporter && !m.Assigned {
			return a, Forbidden("this operation requires the Reporter role with assignment to the project")
		}
	}
	if err := a.Require(min); err != nil {
		return a, err
	}
	return a, nil
}

// OrgAccess loads the caller's membership in orgID and authorizes it.
func OrgAccess(ctx context.Context, q store.Querier, p Principal, orgID uuid.UUID, min Role, what string) (Access, error) {
	role, err := store.MemberRole(ctx, q, orgID, p.UserID)
	if err != nil {
		return Access{}, err
	}
	return Authorize(p, Membership{OrgID: orgID, Role: ParseRole(role)}, min, what)
}

// OrgReadFiltered is OrgAccess for a read whose result the caller filters to
// the API key's projects (and to a Reporter's assigned projects): the only
// org-level access a project-restricted key is granted.
func OrgReadFiltered(ctx context.Context, q store.Querier, p Principal, orgID uuid.UUID, min Role, what string) (Access, error) {
	role, err := store.MemberRole(ctx, q, orgID, p.UserID)
	if err != nil {
		return Access{}, err
	}
	return Authorize(p, Membership{OrgID: orgID, Role: ParseRole(role), ProjectFiltered: true}, min, what)
}

// ProjectAccess loads a live project with the caller's membership in its org
// and assignment to it (one query) and authorizes it.
func ProjectAccess(ctx context.Context, q store.Querier, p Principal, projectID uuid.UUID, min Role, what string) (Access, error) {
	row, err := store.ProjectMembership(ctx, q, projectID, p.UserID)
	if err != nil {
		return Access{}, NotFoundAs(err, what)
	}
	return Authorize(p, MembershipFrom(row), min, what)
}

// MembershipFrom converts an access row that a feature query selected with
// store.AccessColumns alongside the resource.
func MembershipFrom(r store.AccessRow) Membership {
	return Membership{OrgID: r.OrgID, Role: ParseRole(r.Role), ProjectID: r.ProjectID, Assigned: r.Assigned}
}
