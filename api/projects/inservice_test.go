package projects_test

import (
	"testing"
	"tracker/api/apitest"
)

// TestPlacedInService: placed_in_service is set on create, changed and
// cleared by PATCH (audited), read back by GET, and a malformed date is a
// 422 naming the field.
func TestPlacedInService(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := env.Register("Owner")
	org := owner.OrgID
	p := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "PIS", "name": "In service",
		"development_phase": "ApplicationDevelopment", "amortization_months": 36, "placed_in_service": "2026-02-20"}).Expect(t, 201).Map(t)
	if p["placed_in_service"] != "2026-02-20" {
		t.Fatalf("created %v", p["placed_in_service"])
	}
	path := "/api/v1/projects/" + pid(t, p)
	got := env.Do("PATCH", path, owner.Token, map[string]any{"placed_in_service": "2026-05-31"}).Expect(t, 200).Map(t)
	if got["placed_in_service"] != "2026-05-31" {
		t.Fatalf("patched %v", got["placed_in_service"])
	}
	if g := env.Do("GET", path, owner.Token, nil).Expect(t, 200).Map(t); g["placed_in_service"] != "2026-05-31" {
		t.Fatalf("get %v", g["placed_in_service"])
	}
	if n := apitest.Scalar[int64](t, env, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'updated'
		AND changes::text LIKE '%placed_in_service%' AND changes::text LIKE '%2026-02-20%' AND changes::text LIKE '%2026-05-31%'`, pid(t, p)); n != 1 {
		t.Fatalf("audit rows naming the change: %d", n)
	}
	for _, bad := range []any{"2026-02-30", "20260220", "x", 5} {
		res := env.Do("PATCH", path, owner.Token, map[string]any{"placed_in_service": bad})
		if res.Status != 422 && res.Status != 400 {
			t.Fatalf("%v: status %d", bad, res.Status)
		}
	}
	if r := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "BAD", "name": "b",
		"placed_in_service": "2026-13-01"}).Expect(t, 422); len(r.Error().Details) == 0 {
		t.Fatalf("details %s", r.Body)
	}
	got = env.Do("PATCH", path, owner.Token, map[string]any{"placed_in_service": nil}).Expect(t, 200).Map(t)
	if got["placed_in_service"] != nil {
		t.Fatalf("cleared %v", got["placed_in_service"])
	}
}
