package projects_test

import (
	"testing"

	"tracker/api/apitest"
)

// Two clients edit the same project: the stale If-Match is 412 and
// overwrites nothing (apitest.CheckConditional); GET by key sends the ETag
// too.
func TestProjectETags(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := env.Register("Owner")
	admin := env.Member(owner, "admin")
	created := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": owner.OrgID, "key": "TAG", "name": "Tagged"}).
		Expect(t, 201)
	path := "/api/v1/projects/" + pid(t, created.Map(t))
	byKey := env.Do("GET", "/api/v1/projects/key/TAG?org_id="+owner.OrgID.String(), admin.Token, nil).Expect(t, 200)
	if byKey.Header.Get("ETag") != created.Header.Get("ETag") {
		t.Fatalf("by key ETag %q, create %q", byKey.Header.Get("ETag"), created.Header.Get("ETag"))
	}
	env.CheckConditional(t, apitest.Conditional{Path: path, Created: created, A: owner.Token, B: admin.Token,
		Field: "name", PatchA: map[string]any{"name": "A's name"}, PatchB: map[string]any{"name": "B's name", "description": "B"}})
}
