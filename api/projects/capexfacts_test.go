package projects_test

import (
	"testing"

	"tracker/api/apitest"
)

// TestCapitalizationFacts: the facts the capitalization frameworks read are
// set on create, changed and cleared by PATCH (audited in the project's
// trail), and a malformed value is refused naming nothing changed.
func TestCapitalizationFacts(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := env.Register("Owner")
	p := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": owner.OrgID, "key": "FACT", "name": "Facts",
		"funding_authorized_on": "2026-03-10", "completion_probable": true}).Expect(t, 201).Map(t)
	if p["funding_authorized_on"] != "2026-03-10" || p["completion_probable"] != true || p["research_ends_on"] != nil {
		t.Fatalf("created %v", p)
	}
	path := "/api/v1/projects/" + pid(t, p)
	got := env.Do("PATCH", path, owner.Token, map[string]any{"significant_uncertainty_resolved_on": "2026-03-20",
		"research_ends_on": "2026-01-31", "ias38_criteria_met_on": "2026-02-01", "completion_probable": false}).Expect(t, 200).Map(t)
	want := map[string]any{"funding_authorized_on": "2026-03-10", "completion_probable": false,
		"significant_uncertainty_resolved_on": "2026-03-20", "research_ends_on": "2026-01-31", "ias38_criteria_met_on": "2026-02-01"}
	g := env.Do("GET", path, owner.Token, nil).Expect(t, 200).Map(t)
	for k, v := range want {
		if got[k] != v || g[k] != v {
			t.Errorf("%s: patched %v, read %v, want %v", k, got[k], g[k], v)
		}
	}
	if n := apitest.Scalar[int64](t, env, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'updated'
		AND changes::text LIKE '%significant_uncertainty_resolved_on%' AND changes::text LIKE '%completion_probable%'
		AND changes::text LIKE '%ias38_criteria_met_on%'`, pid(t, p)); n != 1 {
		t.Fatalf("audit rows naming the change: %d", n)
	}
	for _, bad := range []map[string]any{{"funding_authorized_on": "2026-02-30"}, {"research_ends_on": "x"},
		{"completion_probable": "yes"}, {"ias38_criteria_met_on": 5}} {
		res := env.Do("PATCH", path, owner.Token, bad)
		if res.Status != 422 && res.Status != 400 {
			t.Fatalf("%v: status %d", bad, res.Status)
		}
	}
	got = env.Do("PATCH", path, owner.Token, map[string]any{"significant_uncertainty_resolved_on": nil}).Expect(t, 200).Map(t)
	if got["significant_uncertainty_resolved_on"] != nil || got["research_ends_on"] != "2026-01-31" {
		t.Fatalf("cleared %v", got)
	}
}
