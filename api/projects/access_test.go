package projects_test

import (
	"testing"
	"tracker/api/apitest"
)

// Every route: a non-member gets 404 (existence is not revealed) and a
// Viewer gets 403 on every write.
func TestAccessEveryRoute(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := env.Register("Owner")
	viewer := env.Member(owner, "viewer")
	target := env.Member(owner, "member")
	outsider := env.Register("Outsider")
	p := createProject(t, env, owner.Token, owner.OrgID, "ACC")
	id := pid(t, p)
	env.Do("POST", "/api/v1/projects/"+id+"/members", owner.Token, map[string]any{"user_id": target.ID}).Expect(t, 201)
	org := owner.OrgID.String()

	routes := []struct {
		method, path string
		body         any
		write        bool
	}{
		{"POST", "/api/v1/projects", map[string]any{"org_id": org, "key": "NEW", "name": "n"}, true},
		{"GET", "/api/v1/projects?org_id=" + org, nil, false},
		{"GET", "/api/v1/projects/" + id, nil, false},
		{"GET", "/api/v1/projects/key/ACC?org_id=" + org, nil, false},
		{"PATCH", "/api/v1/projects/" + id, map[string]any{"name": "x"}, true},
		{"DELETE", "/api/v1/projects/" + id, nil, true},
		{"DELETE", "/api/v1/projects/" + id + "?cascade=true&dry_run=true", nil, true},
		{"POST", "/api/v1/projects/" + id + "/members", map[string]any{"user_id": viewer.ID}, true},
		{"GET", "/api/v1/projects/" + id + "/members", nil, false},
		{"DELETE", "/api/v1/projects/" + id + "/members/" + target.ID.String(), nil, true},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			apitest.ExpectCode(t, env.Do(r.method, r.path, outsider.Token, r.body), 404, "not_found")
			if r.write {
				apitest.ExpectCode(t, env.Do(r.method, r.path, viewer.Token, r.body), 403, "FORBIDDEN")
			} else {
				env.Do(r.method, r.path, viewer.Token, r.body).Expect(t, 200)
			}
		})
	}
}
