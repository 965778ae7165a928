package projects_test

import (
	"testing"
	"tracker/api/apitest"

	"github.com/google/uuid"
)

func TestProjectMembers(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, member, viewer, reporter, outsider := g.Env, g.Owner, g.Member, g.Viewer, g.Reporter, g.Outsider
	p := createProject(t, env, owner.Token, owner.OrgID, "MEM")
	id := pid(t, p)
	path := "/api/v1/projects/" + id + "/members"

	t.Run("201 and list", func(t *testing.T) {
		m := env.Do("POST", path, member.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201).Map(t)
		if m["project_id"] != id || m["user_id"] != reporter.ID.String() || m["created_at"] == nil || len(m) != 3 {
			t.Fatalf("member %v", m)
		}
		env.Do("POST", path, owner.Token, map[string]any{"user_id": viewer.ID}).Expect(t, 201)
		var list []map[string]any
		env.Do("GET", path, viewer.Token, nil).Expect(t, 200).Decode(t, &list)
		if len(list) != 2 || list[0]["user_id"] != reporter.ID.String() || list[1]["user_id"] != viewer.ID.String() {
			t.Fatalf("list %v", list)
		}
		if n := auditCount(t, env, id, "member_added"); n != 2 {
			t.Fatalf("audit rows %d", n)
		}
		// The assigned Reporter can read the project and its members now.
		env.Do("GET", path, reporter.Token, nil).Expect(t, 200)
	})

	t.Run("200 empty list is an array", func(t *testing.T) {
		q := createProject(t, env, owner.Token, owner.OrgID, "EMPTY")
		r := env.Do("GET", "/api/v1/projects/"+pid(t, q)+"/members", owner.Token, nil).Expect(t, 200)
		if string(r.Body) != "[]" {
			t.Fatalf("body %s", r.Body)
		}
	})

	t.Run("409 already a member", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", path, owner.Token, map[string]any{"user_id": reporter.ID}), 409, "CONFLICT")
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]any{
			"not in org":   map[string]any{"user_id": outsider.ID},
			"unknown user": map[string]any{"user_id": uuid.New()},
			"not a uuid":   map[string]any{"user_id": "x"},
			"missing":      map[string]any{},
			"wrong type":   map[string]any{"user_id": 5},
		} {
			t.Run(name, func(t *testing.T) {
				apitest.ExpectCode(t, env.Do("POST", path, owner.Token, body), 422, "VALIDATION_ERROR")
			})
		}
	})
	t.Run("400 malformed", func(t *testing.T) { apitest.ExpectCode(t, env.Do("POST", path, owner.Token, "{"), 400, "BAD_REQUEST") })

	t.Run("403", func(t *testing.T) {
		u := g.Admin // in the org, not on the project
		for name, token := range map[string]string{"viewer": viewer.Token, "reporter": reporter.Token, "read key": env.APIKey(owner, []string{"read"})} {
			t.Run(name, func(t *testing.T) {
				apitest.ExpectCode(t, env.Do("POST", path, token, map[string]any{"user_id": u.ID}), 403, "FORBIDDEN")
				apitest.ExpectCode(t, env.Do("DELETE", path+"/"+viewer.ID.String(), token, nil), 403, "FORBIDDEN")
			})
		}
		q := createProject(t, env, owner.Token, owner.OrgID, "HIDDEN")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/"+pid(t, q)+"/members", reporter.Token, nil), 403, "FORBIDDEN")
	})

	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", path, outsider.Token, map[string]any{"user_id": outsider.ID}), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", path, outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", path+"/"+reporter.ID.String(), outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", path+"/"+member.ID.String(), owner.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", path+"/not-a-uuid", owner.Token, nil), 404, "not_found")
	})

	t.Run("204 remove, then 404", func(t *testing.T) {
		env.Do("DELETE", path+"/"+viewer.ID.String(), member.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("DELETE", path+"/"+viewer.ID.String(), member.Token, nil), 404, "not_found")
		var list []map[string]any
		env.Do("GET", path, owner.Token, nil).Expect(t, 200).Decode(t, &list)
		if len(list) != 1 {
			t.Fatalf("list %v", list)
		}
		if n := auditCount(t, env, id, "member_removed"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}
	})

	t.Run("401", func(t *testing.T) {
		env.Do("GET", path, "", nil).Expect(t, 401)
		env.Do("POST", path, "", map[string]any{"user_id": viewer.ID}).Expect(t, 401)
		env.Do("DELETE", path+"/"+viewer.ID.String(), "", nil).Expect(t, 401)
	})
}
