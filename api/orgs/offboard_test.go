package orgs_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

func count(t *testing.T, env *apitest.Env, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.Pool.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMemberRoleChange(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{})
	env, owner, admin, member, viewer, outsider := w.Env, w.Owner, w.Admin, w.Member, w.Viewer, w.Outsider
	path := func(u apitest.User) string {
		return "/api/v1/orgs/" + owner.OrgID.String() + "/members/" + u.ID.String()
	}
	role := func(r string) map[string]any { return map[string]any{"role": r} }

	t.Run("200 admin changes a role", func(t *testing.T) {
		m := env.Do("PATCH", path(member), admin.Token, role("reporter")).Expect(t, 200).Map(t)
		if m["role"] != "Reporter" || m["user_id"] != member.ID.String() {
			t.Fatalf("membership %v", m)
		}
		env.Do("PATCH", path(member), admin.Token, role("member")).Expect(t, 200)
	})
	t.Run("403", func(t *testing.T) {
		for name, tc := range map[string]struct {
			who  apitest.User
			of   apitest.User
			role string
			want string
		}{
			"viewer changes a role":     {viewer, member, "viewer", "Admin"},
			"member changes a role":     {member, viewer, "member", "Admin"},
			"admin makes an Owner":      {admin, member, "owner", "Owner"},
			"admin demotes an Owner":    {admin, owner, "admin", "Owner"},
			"admin promotes themselves": {admin, admin, "owner", "Owner"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("PATCH", path(tc.of), tc.who.Token, role(tc.role)).Expect(t, 403)
				if !strings.Contains(r.Error().Message, tc.want) {
					t.Fatalf("message %s", r.Body)
				}
			})
		}
	})
	t.Run("404 outsider, not a member", func(t *testing.T) {
		env.Do("PATCH", path(member), outsider.Token, role("viewer")).Expect(t, 404)
		env.Do("PATCH", path(outsider), owner.Token, role("viewer")).Expect(t, 404)
		env.Do("PATCH", "/api/v1/orgs/"+owner.OrgID.String()+"/members/"+uuid.NewString(), owner.Token, role("viewer")).Expect(t, 404)
	})
	t.Run("422", func(t *testing.T) {
		env.Do("PATCH", path(member), owner.Token, role("emperor")).Expect(t, 422)
		env.Do("PATCH", path(member), owner.Token, map[string]any{}).Expect(t, 422)
	})
	t.Run("409 the last Owner is neither demoted nor removed", func(t *testing.T) {
		r := env.Do("PATCH", path(owner), owner.Token, role("admin")).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" || !strings.Contains(r.Error().Message, "last Owner") {
			t.Fatalf("error %s", r.Body)
		}
		env.Do("DELETE", path(owner), owner.Token, nil).Expect(t, 409)
		// With a second Owner the first may step down; then the second is last.
		env.Do("PATCH", path(admin), owner.Token, role("owner")).Expect(t, 200)
		env.Do("PATCH", path(owner), owner.Token, role("admin")).Expect(t, 200)
		env.Do("PATCH", path(admin), admin.Token, role("member")).Expect(t, 409)
		env.Do("DELETE", path(admin), admin.Token, nil).Expect(t, 409)
		if n := count(t, env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'owner'`, owner.OrgID); n != 1 {
			t.Fatalf("%d owners", n)
		}
	})
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: apitest.ProjectModules})
	env, owner, admin, viewer, p := w.Env, w.Owner, w.Admin, w.Viewer, w.Project
	path := func(u apitest.User) string {
		return "/api/v1/orgs/" + owner.OrgID.String() + "/members/" + u.ID.String()
	}

	t.Run("removal revokes keys and assignments in the org at once", func(t *testing.T) {
		leaver := env.Member(owner, "member")
		env.Do("POST", "/api/v1/projects/"+p.ID.String()+"/members", owner.Token, map[string]any{"user_id": leaver.ID}).Expect(t, 201)
		inOrg := env.APIKeyIn(leaver, owner.OrgID, []string{"read", "write"})
		personal := env.APIKeyIn(leaver, leaver.OrgID, []string{"read", "write"})
		env.Do("GET", "/api/v1/projects/"+p.ID.String(), inOrg, nil).Expect(t, 200)

		env.Do("DELETE", path(leaver), viewer.Token, nil).Expect(t, 403)
		env.Do("DELETE", path(leaver), admin.Token, nil).Expect(t, 204)

		env.Do("GET", "/api/v1/auth/me", inOrg, nil).Expect(t, 401)
		env.Do("GET", "/api/v1/auth/me", personal, nil).Expect(t, 200) // another org's key stays
		env.Do("GET", "/api/v1/projects/"+p.ID.String(), leaver.Token, nil).Expect(t, 404)
		if n := count(t, env, `SELECT count(*) FROM project_members WHERE user_id = $1`, leaver.ID); n != 0 {
			t.Fatalf("%d project memberships left", n)
		}
		env.Do("DELETE", path(leaver), admin.Token, nil).Expect(t, 404)
	})
	t.Run("a member may leave; an Admin may not remove an Owner", func(t *testing.T) {
		leaver := env.Member(owner, "viewer")
		env.Do("DELETE", path(leaver), leaver.Token, nil).Expect(t, 204)
		env.Do("GET", "/api/v1/orgs/"+owner.OrgID.String()+"/members", leaver.Token, nil).Expect(t, 404)
		r := env.Do("DELETE", path(owner), admin.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Owner") {
			t.Fatalf("message %s", r.Body)
		}
	})
}

// TestDeactivatedUserIsLockedOut: users.active=false (SCIM deactivation)
// makes every access token, refresh token and API key of the user 401 at
// once, and login too.
func TestDeactivatedUserIsLockedOut(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Gone")
	key := env.APIKey(u, []string{"read"})
	env.Do("GET", "/api/v1/auth/me", u.Token, nil).Expect(t, 200)
	env.Do("GET", "/api/v1/auth/me", key, nil).Expect(t, 200)
	if _, err := env.DB.Pool.Exec(t.Context(), `UPDATE users SET active = false WHERE id = $1`, u.ID); err != nil {
		t.Fatal(err)
	}
	env.Do("GET", "/api/v1/auth/me", u.Token, nil).Expect(t, 401)
	env.Do("GET", "/api/v1/orgs", u.Token, nil).Expect(t, 401)
	env.Do("GET", "/api/v1/auth/me", key, nil).Expect(t, 401)
	env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": u.Refresh}).Expect(t, 401)
	env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse-1"}).Expect(t, 401)
}
