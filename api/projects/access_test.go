package projects_test

import (
	"testing"
	"tracker/api/apitest"
)

// Every route: a non-member gets 404 (existence is not revealed) and a
// Viewer gets 403 on every write.
func TestAccessEveryRoute(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, viewer, target := g.Env, g.Owner, g.Viewer, g.Member
	p := createProject(t, env, owner.Token, owner.OrgID, "ACC")
	id := pid(t, p)
	env.Do("POST", "/api/v1/projects/"+id+"/members", owner.Token, map[string]any{"user_id": target.ID}).Expect(t, 201)
	org := owner.OrgID.String()

	g.CheckAccess(t, []apitest.Route{
		{Method: "POST", Path: "/api/v1/projects", Body: map[string]any{"org_id": org, "key": "NEW", "name": "n"}, Write: true},
		{Method: "GET", Path: "/api/v1/projects?org_id=" + org},
		{Method: "GET", Path: "/api/v1/projects/" + id},
		{Method: "GET", Path: "/api/v1/projects/key/ACC?org_id=" + org},
		{Method: "PATCH", Path: "/api/v1/projects/" + id, Body: map[string]any{"name": "x"}, Write: true},
		{Method: "DELETE", Path: "/api/v1/projects/" + id, Write: true},
		{Method: "DELETE", Path: "/api/v1/projects/" + id + "?cascade=true&dry_run=true", Write: true},
		{Method: "POST", Path: "/api/v1/projects/" + id + "/members", Body: map[string]any{"user_id": viewer.ID}, Write: true},
		{Method: "GET", Path: "/api/v1/projects/" + id + "/members"},
		{Method: "DELETE", Path: "/api/v1/projects/" + id + "/members/" + target.ID.String(), Write: true},
	})
}
