package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
)

func TestAuthorize(t *testing.T) {
	t.Parallel()
	org, proj, other := uuid.New(), uuid.New(), uuid.New()
	key := uuid.New()
	jwt := domain.Principal{UserID: uuid.New(), Scopes: []string{domain.ScopeAll}}
	keyWith := func(scopes []string, projects ...uuid.UUID) domain.Principal {
		return domain.Principal{UserID: jwt.UserID, OrgID: org, KeyID: &key, Scopes: scopes, ProjectIDs: projects}
	}
	inProject := func(r domain.Role, assigned bool) domain.Membership {
		return domain.Membership{OrgID: org, Role: r, ProjectID: &proj, Assigned: assigned}
	}
	tests := []struct {
		name     string
		p        domain.Principal
		m        domain.Membership
		min      domain.Role
		wantKind domain.Kind // 0: allowed
		wantMsg  string
	}{
		{"non-member is not found", jwt, domain.Membership{OrgID: org}, domain.RoleViewer, domain.KindNotFound, "ticket not found"},
		{"viewer reads", jwt, domain.Membership{OrgID: org, Role: domain.RoleViewer}, domain.RoleViewer, 0, ""},
		{"viewer cannot write", jwt, domain.Membership{OrgID: org, Role: domain.RoleViewer}, domain.RoleMember, domain.KindForbidden, "Member"},
		{"admin passes member", jwt, domain.Membership{OrgID: org, Role: domain.RoleAdmin}, domain.RoleMember, 0, ""},
		{"member below admin", jwt, domain.Membership{OrgID: org, Role: domain.RoleMember}, domain.RoleAdmin, domain.KindForbidden, "Admin"},
		{"reporter assigned", jwt, inProject(domain.RoleReporter, true), domain.RoleReporter, 0, ""},
		{"reporter unassigned reads nothing", jwt, inProject(domain.RoleReporter, false), domain.RoleViewer, domain.KindForbidden, "assignment"},
		{"reporter's read key on an unassigned project", keyWith([]string{"read"}), inProject(domain.RoleReporter, false), domain.RoleViewer, domain.KindForbidden, "assignment"},
		{"member unassigned is fine", jwt, inProject(domain.RoleMember, false), domain.RoleMember, 0, ""},
		{"read key caps owner at viewer", keyWith([]string{"read"}), domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleMember, domain.KindForbidden, "Member"},
		{"write key caps owner at member", keyWith([]string{"read", "write"}), domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleAdmin, domain.KindForbidden, "Admin"},
		{"admin key keeps owner", keyWith([]string{"admin"}), domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleOwner, 0, ""},
		{"write key does not raise a viewer", keyWith([]string{"write"}), domain.Membership{OrgID: org, Role: domain.RoleViewer}, domain.RoleMember, domain.KindForbidden, "Member"},
		{"key restricted to another project", keyWith([]string{"admin"}, other), inProject(domain.RoleOwner, true), domain.RoleViewer, domain.KindForbidden, "project"},
		{"key restricted to this project", keyWith([]string{"admin"}, proj), inProject(domain.RoleOwner, true), domain.RoleAdmin, 0, ""},
		{"restricted key on an org-level resource", keyWith([]string{"admin"}, proj), domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleViewer, domain.KindForbidden, "restricted to projects"},
		{"restricted key on a filtered org-level read", keyWith([]string{"admin"}, proj), domain.Membership{OrgID: org, Role: domain.RoleOwner, ProjectFiltered: true}, domain.RoleViewer, 0, ""},
		{"unrestricted key on an org-level resource", keyWith([]string{"admin"}), domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleOwner, 0, ""},
		{"key used in another org of its user", domain.Principal{UserID: jwt.UserID, OrgID: other, KeyID: &key, Scopes: []string{"admin"}}, domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleViewer, domain.KindNotFound, "not found"},
		{"key used on a project of another org", domain.Principal{UserID: jwt.UserID, OrgID: other, KeyID: &key, Scopes: []string{"admin"}}, inProject(domain.RoleOwner, true), domain.RoleViewer, domain.KindNotFound, "not found"},
		{"session may act in any org of its user", domain.Principal{UserID: jwt.UserID, OrgID: other, Scopes: []string{"*"}}, domain.Membership{OrgID: org, Role: domain.RoleOwner}, domain.RoleOwner, 0, ""},
		{"non-member with restricted key is still not found", keyWith([]string{"admin"}, other), domain.Membership{OrgID: org, ProjectID: &proj}, domain.RoleViewer, domain.KindNotFound, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := domain.Authorize(tt.p, tt.m, tt.min, "ticket")
			if tt.wantKind == 0 {
				if err != nil {
					t.Fatalf("denied: %v", err)
				}
				return
			}
			var de *domain.Error
			if !errors.As(err, &de) || de.Kind != tt.wantKind || !strings.Contains(de.Message, tt.wantMsg) {
				t.Fatalf("got %v, want kind %d with %q", err, tt.wantKind, tt.wantMsg)
			}
		})
	}
}

func TestAllowsMethod(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	read := domain.Principal{KeyID: &id, Scopes: []string{"read"}}
	for method, want := range map[string]bool{"GET": true, "HEAD": true, "POST": false, "PATCH": false, "PUT": false, "DELETE": false} {
		if read.AllowsMethod(method) != want {
			t.Errorf("read key %s: got %v", method, !want)
		}
	}
	write := domain.Principal{KeyID: &id, Scopes: []string{"write"}}
	if !write.AllowsMethod("DELETE") || !(domain.Principal{Scopes: []string{"*"}}).AllowsMethod("POST") {
		t.Error("write key or session refused")
	}
}

func TestRoleNames(t *testing.T) {
	t.Parallel()
	for _, r := range []domain.Role{domain.RoleViewer, domain.RoleReporter, domain.RoleMember, domain.RoleAdmin, domain.RoleOwner} {
		if domain.ParseRole(r.DB()) != r || domain.ParseRole(r.String()) != r {
			t.Errorf("round trip of %v", r)
		}
	}
	if domain.ParseRole("emperor") != domain.RoleNone {
		t.Error("unknown role parsed")
	}
}
