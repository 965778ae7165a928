package capex_test

import (
	"strings"
	"testing"
)

// TestOverrideRoutes sets and removes an override through the API. Under an
// ASC 350-40 policy CORE (application development) capitalizes its 360.00
// of March; an override to opex on its ticket makes all of it OpEx, with
// rule_id override on each of its entries; removing it restores the
// framework. Only an Admin of the ticket's org may do either.
func TestOverrideRoutes(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/tickets/" + w.coreT.ID.String() + "/capitalization"
	body := map[string]any{"classification": "opex", "reason": "support work"}
	w.env.Do("PUT", path, w.member.Token, body).Expect(t, 403)
	w.env.Do("PUT", path, w.viewer.Token, body).Expect(t, 403)
	w.env.Do("PUT", path, w.outsider.Token, body).Expect(t, 404)
	w.env.Do("DELETE", path, w.member.Token, nil).Expect(t, 403)
	w.env.Do("DELETE", path, w.outsider.Token, nil).Expect(t, 404)
	bad := w.env.Do("PUT", path, w.admin.Token, map[string]any{"classification": "capitalize", "reason": strings.Repeat("r", 2001)}).Expect(t, 422)
	if d := strings.Join(bad.Error().Details, "; "); !strings.Contains(d, "classification: must be capex or opex") ||
		!strings.Contains(d, "reason: must be at most 2000") {
		t.Fatalf("details %s", d)
	}
	w.env.Do("PUT", path, w.admin.Token, map[string]any{"classification": "opex"}).Expect(t, 422)
	w.env.Do("DELETE", path, w.admin.Token, nil).Expect(t, 404)

	w.env.Do("POST", "/api/v1/orgs/"+w.owner.OrgID.String()+"/capitalization/policies", w.admin.Token,
		map[string]any{"framework": "asc_350_40_stages", "effective_from": "2026-01"}).Expect(t, 201)
	if r := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t); r["capex_amount_cents"] != 36000.0 {
		t.Fatalf("before the override: %v", r)
	}
	got := w.env.Do("PUT", path, w.admin.Token, body).Expect(t, 200).Map(t)
	if got["classification"] != "opex" || got["reason"] != "support work" || got["set_by"] != w.admin.ID.String() {
		t.Fatalf("override %v", got)
	}
	if r := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t); r["capex_amount_cents"] != 0.0 {
		t.Fatalf("under the override: %v", r)
	}
	es := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "project_id", w.core.String()),
		w.owner.Token, nil).Expect(t, 200).Map(t)
	items, _ := es["items"].([]any)
	if len(items) != 3 {
		t.Fatalf("entries %v", es)
	}
	for _, it := range items {
		e := it.(map[string]any)
		if e["rule_id"] != "override" || e["classification"] != "OpEx" || e["reason"] != "support work" {
			t.Errorf("entry %v", e)
		}
	}
	act := w.env.Do("GET", "/api/v1/tickets/"+w.coreT.ID.String()+"/activity", w.owner.Token, nil)
	if act.Status == 200 && !strings.Contains(string(act.Body), "capitalization_override_set") {
		t.Errorf("activity lacks the override: %s", act.Body)
	}
	w.env.Do("DELETE", path, w.admin.Token, nil).Expect(t, 204)
	if r := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t); r["capex_amount_cents"] != 36000.0 {
		t.Fatalf("after removing it: %v", r)
	}
}
