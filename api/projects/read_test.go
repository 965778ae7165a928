package projects_test

import (
	"testing"
	"tracker/api/apitest"

	"github.com/google/uuid"
)

func TestListProjects(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, viewer, reporter, outsider := g.Env, g.Owner, g.Viewer, g.Reporter, g.Outsider
	org := owner.OrgID
	var ids []string
	for _, k := range []string{"A", "B", "C", "D", "E"} {
		ids = append(ids, pid(t, createProject(t, env, owner.Token, org, k)))
	}
	createProject(t, env, outsider.Token, outsider.OrgID, "ZZ") // another org's project never shows
	list := "/api/v1/projects?org_id=" + org.String()

	t.Run("200 pagination walk returns every project once, in order", func(t *testing.T) {
		got := env.Walk(list, viewer.Token)
		if len(got) != 5 {
			t.Fatalf("got %d projects: %v", len(got), got)
		}
		for i := range ids {
			if got[i] != ids[i] {
				t.Fatalf("order %v, want %v", got, ids)
			}
		}
	})

	t.Run("200 default page has items and no cursor", func(t *testing.T) {
		m := env.Do("GET", list, owner.Token, nil).Expect(t, 200).Map(t)
		if len(m["items"].([]any)) != 5 || m["has_more"] != false || m["next_cursor"] != nil {
			t.Fatalf("page %v", m)
		}
	})

	t.Run("200 reporter sees only assigned projects", func(t *testing.T) {
		if got := env.Walk(list, reporter.Token); len(got) != 0 {
			t.Fatalf("unassigned reporter sees %v", got)
		}
		env.Do("POST", "/api/v1/projects/"+ids[1]+"/members", owner.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201)
		env.Do("POST", "/api/v1/projects/"+ids[3]+"/members", owner.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201)
		got := env.Walk(list, reporter.Token)
		if len(got) != 2 || got[0] != ids[1] || got[1] != ids[3] {
			t.Fatalf("reporter sees %v", got)
		}
		// The reporter's read key sees no more than the reporter.
		key := env.APIKey(reporter, []string{"read"})
		if got := env.Walk(list, key); len(got) != 2 {
			t.Fatalf("reporter key sees %v", got)
		}
	})

	t.Run("200 project-restricted key sees only its projects", func(t *testing.T) {
		key := env.APIKey(owner, []string{"read"}, uuid.MustParse(ids[0]), uuid.MustParse(ids[4]))
		got := env.Walk(list, key)
		if len(got) != 2 || got[0] != ids[0] || got[1] != ids[4] {
			t.Fatalf("key sees %v", got)
		}
	})

	t.Run("200 deleted projects are gone", func(t *testing.T) {
		p := createProject(t, env, owner.Token, org, "GONE")
		env.Do("DELETE", "/api/v1/projects/"+pid(t, p), owner.Token, nil).Expect(t, 204)
		if got := env.Walk(list, owner.Token); len(got) != 5 {
			t.Fatalf("list after delete %v", got)
		}
	})

	t.Run("401", func(t *testing.T) { env.Do("GET", list, "", nil).Expect(t, 401) })
	t.Run("404 non-member", func(t *testing.T) { apitest.ExpectCode(t, env.Do("GET", list, outsider.Token, nil), 404, "not_found") })
	t.Run("422", func(t *testing.T) {
		for _, u := range []string{"/api/v1/projects", "/api/v1/projects?org_id=nope", list + "&limit=0", list + "&cursor=%%%", list + "&limit=x"} {
			apitest.ExpectCode(t, env.Do("GET", u, owner.Token, nil), 422, "VALIDATION_ERROR")
		}
	})
	t.Run("limit over 100 is clamped", func(t *testing.T) {
		env.Do("GET", list+"&limit=500", owner.Token, nil).Expect(t, 200)
	})
}

func TestGetProject(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, viewer, reporter, outsider := g.Env, g.Owner, g.Viewer, g.Reporter, g.Outsider
	p := createProject(t, env, owner.Token, owner.OrgID, "web")
	other := createProject(t, env, owner.Token, owner.OrgID, "api")
	path := "/api/v1/projects/" + pid(t, p)

	t.Run("200", func(t *testing.T) {
		got := env.Do("GET", path, viewer.Token, nil).Expect(t, 200).Map(t)
		if got["id"] != p["id"] || got["key"] != "WEB" || got["name"] != "Project web" {
			t.Fatalf("project %v", got)
		}
	})
	t.Run("403 reporter not assigned, 200 once assigned", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", path, reporter.Token, nil), 403, "FORBIDDEN")
		env.Do("POST", path+"/members", owner.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201)
		env.Do("GET", path, reporter.Token, nil).Expect(t, 200)
	})
	t.Run("403 key restricted to another project", func(t *testing.T) {
		key := env.APIKey(owner, []string{"read"}, uuid.MustParse(pid(t, other)))
		apitest.ExpectCode(t, env.Do("GET", path, key, nil), 403, "FORBIDDEN")
		env.Do("GET", "/api/v1/projects/"+pid(t, other), key, nil).Expect(t, 200)
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", path, outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/"+uuid.NewString(), owner.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/not-a-uuid", owner.Token, nil), 404, "not_found")
	})
	t.Run("401", func(t *testing.T) { env.Do("GET", path, "", nil).Expect(t, 401) })
}

func TestProjectByKey(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner := g.Env, g.Owner
	p := createProject(t, env, owner.Token, owner.OrgID, "Core")
	// The outsider's own org has a project with the same key.
	theirs := createProject(t, env, g.Outsider.Token, g.Outsider.OrgID, "CORE")

	t.Run("200 in the session org, key in any case", func(t *testing.T) {
		for _, k := range []string{"CORE", "core", "CoRe"} {
			got := env.Do("GET", "/api/v1/projects/key/"+k, owner.Token, nil).Expect(t, 200).Map(t)
			if got["id"] != p["id"] {
				t.Fatalf("%s -> %v", k, got["id"])
			}
		}
		got := env.Do("GET", "/api/v1/projects/key/core", g.Outsider.Token, nil).Expect(t, 200).Map(t)
		if got["id"] != theirs["id"] {
			t.Fatalf("outsider's session org lookup %v", got["id"])
		}
	})
	t.Run("200 with org_id of another org the caller belongs to", func(t *testing.T) {
		// viewer's session org is their personal org; org_id picks owner's.
		got := env.Do("GET", "/api/v1/projects/key/core?org_id="+owner.OrgID.String(), g.Viewer.Token, nil).Expect(t, 200).Map(t)
		if got["id"] != p["id"] {
			t.Fatalf("got %v", got["id"])
		}
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/key/core", g.Viewer.Token, nil), 404, "not_found")
	})
	t.Run("403 reporter not assigned", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/key/CORE?org_id="+owner.OrgID.String(), g.Reporter.Token, nil), 403, "FORBIDDEN")
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/key/NOPE", owner.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/key/CORE?org_id="+owner.OrgID.String(), g.Outsider.Token, nil), 404, "not_found")
	})
	t.Run("422 org_id not a uuid", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/key/CORE?org_id=x", owner.Token, nil), 422, "VALIDATION_ERROR")
	})
	t.Run("401", func(t *testing.T) { env.Do("GET", "/api/v1/projects/key/CORE", "", nil).Expect(t, 401) })
}
