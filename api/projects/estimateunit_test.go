package projects_test

import (
	"strings"
	"testing"

	"tracker/api/apitest"
)

// TestEstimateUnit: a project counts its estimates in points unless told
// hours; create, GET and PATCH carry it, null goes back to points, anything
// else is a 422 naming it.
func TestEstimateUnit(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, member := g.Env, g.Owner, g.Member
	org := owner.OrgID

	p := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "PTS", "name": "Points"}).Expect(t, 201).Map(t)
	if p["estimate_unit"] != "points" {
		t.Fatalf("default %v", p["estimate_unit"])
	}
	h := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "HRS", "name": "Hours", "estimate_unit": "Hours"}).Expect(t, 201).Map(t)
	if h["estimate_unit"] != "hours" {
		t.Fatalf("create %v", h["estimate_unit"])
	}
	path := "/api/v1/projects/" + pid(t, p)
	if got := env.Do("PATCH", path, member.Token, map[string]any{"estimate_unit": "hours"}).Expect(t, 200).Map(t); got["estimate_unit"] != "hours" {
		t.Fatalf("patch %v", got["estimate_unit"])
	}
	if got := env.Do("GET", path, member.Token, nil).Expect(t, 200).Map(t); got["estimate_unit"] != "hours" {
		t.Fatalf("get %v", got["estimate_unit"])
	}
	if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'updated' AND changes @> '[{"field":"estimate_unit","old":"points","new":"hours"}]'`, pid(t, p)); n != 1 {
		t.Fatalf("audit rows %d", n)
	}
	for _, bad := range []any{"days", 3} {
		r := env.Do("PATCH", path, member.Token, map[string]any{"estimate_unit": bad})
		if r.Status != 422 && r.Status != 400 || !strings.Contains(string(r.Body), "estimate_unit") {
			t.Errorf("%v: %d %s", bad, r.Status, r.Body)
		}
	}
	if got := env.Do("PATCH", path, member.Token, map[string]any{"estimate_unit": nil}).Expect(t, 200).Map(t); got["estimate_unit"] != "points" {
		t.Fatalf("null %v", got["estimate_unit"])
	}
}
