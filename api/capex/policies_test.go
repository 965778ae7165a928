package capex_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestPolicies creates policy versions through the API with the report's
// roles, and reads March under ASU 2025-06 with CORE funded from the 3rd:
// Ann's 2 hours of the 2nd (200.00) stay OpEx, CORE's 3rd and 4th (100.00 +
// 60.00) are CapEx, and INFRA and LEGACY (no facts) are OpEx.
func TestPolicies(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/orgs/" + w.owner.OrgID.String() + "/capitalization/policies"
	body := map[string]any{"framework": "asu_2025_06", "effective_from": "2026-03"}
	w.env.Do("POST", path, w.member.Token, body).Expect(t, 403)
	w.env.Do("POST", path, w.viewer.Token, body).Expect(t, 403)
	w.env.Do("POST", path, w.outsider.Token, body).Expect(t, 404)
	w.env.Do("GET", path, w.member.Token, nil).Expect(t, 403)
	w.env.Do("GET", path, w.outsider.Token, nil).Expect(t, 404)
	bad := w.env.Do("POST", path, w.admin.Token, map[string]any{"framework": "gaap", "effective_from": "March"}).Expect(t, 422)
	if d := strings.Join(bad.Error().Details, "; "); !strings.Contains(d, "framework: must be one of") ||
		!strings.Contains(d, "effective_from: must be a month") {
		t.Fatalf("details %s", d)
	}
	badRule := w.env.Do("POST", path, w.admin.Token, map[string]any{"framework": "ias_38", "effective_from": "2026-03",
		"rules": []map[string]string{{"match": "label:bug", "classification": "opex", "reason": "x"},
			{"match": "label:bug AND (", "classification": "opex", "reason": "x"}}}).Expect(t, 422)
	if d := strings.Join(badRule.Error().Details, "; "); !strings.Contains(d, "rules[1].match: invalid query at position") {
		t.Fatalf("details %s", d)
	}

	before := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t)
	if _, ok := before["policy"]; ok || before["capex_amount_cents"] != 36000.0 {
		t.Fatalf("no policy: %v", before)
	}
	plain := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03"), w.owner.Token, nil).Expect(t, 200)
	if strings.Contains(string(plain.Body), "reason") || strings.Contains(string(plain.Body), "rule_id") {
		t.Fatalf("no policy: entries carry a rationale: %s", plain.Body)
	}
	created := w.env.Do("POST", path, w.admin.Token, body).Expect(t, 201).Map(t)
	if created["version"] != 1.0 || created["framework"] != "asu_2025_06" || created["effective_from"] != "2026-03" ||
		created["standard_hours_per_month"] != 160.0 || created["created_by"] != w.admin.ID.String() {
		t.Fatalf("created %v", created)
	}
	if _, err := w.env.DB.Pool.Exec(context.Background(), `UPDATE projects SET funding_authorized_on = '2026-03-03',
		significant_uncertainty_resolved_on = '2026-02-01', completion_probable = true WHERE id = $1`, w.core); err != nil {
		t.Fatal(err)
	}
	rep := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t)
	if rep["capex_amount_cents"] != 16000.0 || rep["opex_amount_cents"] != 34000.0 || rep["total_amount_cents"] != 50000.0 {
		t.Fatalf("report %v", rep)
	}
	if pol := rep["policy"].(map[string]any); pol["id"] != created["id"] || pol["version"] != 1.0 {
		t.Fatalf("policy %v", pol)
	}
	got := map[string]string{}
	for _, p := range rep["projects"].([]any) {
		p := p.(map[string]any)
		got[p["project_key"].(string)] = p["capex_opex"].(string)
		if p["project_key"] == "CORE" && (p["capex_amount_cents"] != 16000.0 || p["opex_amount_cents"] != 20000.0) {
			t.Errorf("CORE %v", p)
		}
	}
	if got["CORE"] != "Mixed" || got["INFRA"] != "OpEx" || got["LEGACY"] != "OpEx" {
		t.Fatalf("classes %v", got)
	}
	entries := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "project_id", w.core.String()),
		w.owner.Token, nil).Expect(t, 200).Map(t)
	for _, e := range entries["items"].([]any) {
		e := e.(map[string]any)
		want := map[string]string{"2026-03-02": "OpEx", "2026-03-03": "CapEx", "2026-03-04": "CapEx"}[e["date"].(string)]
		if e["capex_opex"] != want {
			t.Errorf("entry %v, want %s", e, want)
		}
		reason := map[string]string{"2026-03-02": "ASU 2025-06: before funding was authorized on 2026-03-03",
			"2026-03-03": "ASU 2025-06: funding authorized, completion probable, no significant development uncertainty",
			"2026-03-04": "ASU 2025-06: funding authorized, completion probable, no significant development uncertainty"}[e["date"].(string)]
		if e["classification"] != want || e["rule_id"] != "framework" || e["reason"] != reason {
			t.Errorf("entry %v, want %s because %s", e, want, reason)
		}
	}
	entriesCSV := string(w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "project_id", w.core.String(),
		"format", "csv"), w.owner.Token, nil).Expect(t, 200).Body)
	if !strings.HasPrefix(entriesCSV, "Period,EntryID,Date,Employee,UserID,TicketRef,TicketTitle,ProjectKey,ActivityType,Minutes,Hours,Rate,Amount,CapExOpEx,Classification,RuleID,Reason\r\n") ||
		!strings.Contains(entriesCSV, ",OpEx,OpEx,framework,ASU 2025-06: before funding was authorized on 2026-03-03\r\n") {
		t.Errorf("entries CSV:\n%s", entriesCSV)
	}
	// The XLSX carries the same rationale columns, typed as text, blank on
	// the Total row.
	xr := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "project_id", w.core.String(),
		"format", "xlsx"), w.owner.Token, nil).Expect(t, 200)
	xs := readXLSX(t, xr.Body, xr.Header, "capitalization-entries-2026-03.xlsx")
	if len(xs.rows) != 5 || len(xs.rows[0]) != 17 || xs.rows[0][14].Raw != "Classification" || xs.rows[0][15].Raw != "RuleID" ||
		xs.rows[0][16].Raw != "Reason" {
		t.Fatalf("entries XLSX header %+v (%d rows)", xs.rows[0], len(xs.rows))
	}
	for _, want := range [][4]string{{"2026-03-02", "OpEx", "framework", "ASU 2025-06: before funding was authorized on 2026-03-03"},
		{"2026-03-04", "CapEx", "framework", "ASU 2025-06: funding authorized, completion probable, no significant development uncertainty"}} {
		var row []xcell
		for _, r := range xs.rows[1:4] {
			if r[13].Raw == want[1] && r[16].Raw == want[3] {
				row = r
			}
		}
		if row == nil || row[14] != text(want[1]) || row[15] != text(want[2]) || row[16] != text(want[3]) {
			t.Errorf("entries XLSX: no row %v in %+v", want, xs.rows)
		}
	}
	if tot := xs.rows[4]; tot[0].Raw != "Total" || tot[14].Raw != "" || tot[15].Raw != "" || tot[16].Raw != "" {
		t.Errorf("entries XLSX total %+v", tot)
	}
	csv := string(w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03"), w.owner.Token, nil).Expect(t, 200).Body)
	if !strings.Contains(csv, ",CORE,") || strings.Count(csv, ",CapEx,") != 2 || strings.Count(csv, ",OpEx,") != 3 {
		t.Fatalf("CSV:\n%s", csv)
	}
	w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "format", "xlsx"), w.owner.Token, nil).Expect(t, 200)

	// Close March: then no policy may take effect in it.
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201)
	w.env.Do("POST", path, w.owner.Token, map[string]any{"framework": "ias_38", "effective_from": "2026-03"}).Expect(t, 409)
	w.env.Do("POST", path, w.owner.Token, map[string]any{"framework": "ias_38", "effective_from": "2026-04",
		"standard_hours_per_month": 150, "note": "IFRS from April"}).Expect(t, 201)
	if closed := w.report(t, w.owner, q("period", "2026-03"), 200).Map(t); closed["capex_amount_cents"] != 16000.0 {
		t.Fatalf("closed March %v", closed)
	}
	var list struct {
		Items []struct {
			Version   int    `json:"version"`
			Framework string `json:"framework"`
		} `json:"items"`
	}
	w.env.Do("GET", path, w.admin.Token, nil).Expect(t, 200).Decode(t, &list)
	if len(list.Items) != 2 || list.Items[0].Version != 2 || list.Items[0].Framework != "ias_38" || list.Items[1].Version != 1 {
		t.Fatalf("list %+v", list)
	}
}

// TestPeopleRoute serves the people report of the world's March (no
// policy: CORE's 36000 is CapEx) as JSON, CSV and XLSX, to Admins only.
// Ann: 2 h Coding + 1 h review on CORE (300.00) and 0.5 h on LEGACY (50.00);
// Bob: 1 h on CORE (60.00) and 1.5 h on INFRA (90.00).
func TestPeopleRoute(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path, org := "/api/v1/reports/capitalization/people?", w.owner.OrgID.String()
	w.env.Do("GET", path+q("period", "2026-03", "org_id", w.owner.OrgID.String()), w.member.Token, nil).Expect(t, 403)
	w.env.Do("GET", path+q("period", "2026-03", "org_id", w.owner.OrgID.String()), w.outsider.Token, nil).Expect(t, 404)
	w.env.Do("GET", path+q("period", "2026-03", "org_id", org, "format", "pdf"), w.admin.Token, nil).Expect(t, 422)
	var rep struct {
		StandardHours int64 `json:"standard_hours_per_month"`
		People        []struct {
			UserID           string  `json:"user_id"`
			Hours            float64 `json:"hours"`
			CapExHours       float64 `json:"capex_hours"`
			CapitalizedPct   float64 `json:"capitalized_pct"`
			AmountCents      int64   `json:"amount_cents"`
			CapExAmountCents int64   `json:"capex_amount_cents"`
		} `json:"people"`
	}
	w.env.Do("GET", path+q("period", "2026-03", "org_id", org), w.admin.Token, nil).Expect(t, 200).Decode(t, &rep)
	got := map[string]string{}
	for _, p := range rep.People {
		got[p.UserID] = fmt.Sprint(p.Hours, " ", p.CapExHours, " ", p.CapitalizedPct, " ", p.AmountCents, " ", p.CapExAmountCents)
	}
	if rep.StandardHours != 160 || len(got) != 2 || got[w.ann.ID.String()] != "3.5 3 85.71 35000 30000" ||
		got[w.bob.ID.String()] != "2.5 1 40 15000 6000" {
		t.Fatalf("people %+v", got)
	}
	csv := w.env.Do("GET", path+q("period", "2026-03", "org_id", org, "format", "csv"), w.admin.Token, nil).Expect(t, 200)
	if !strings.Contains(string(csv.Body), w.ann.ID.String()+",member,3.50,3.00,0.50,85.71,0.02,0.02,350.00,300.00") {
		t.Fatalf("CSV %s", csv.Body)
	}
	w.env.Do("GET", path+q("period", "2026-03", "org_id", org, "format", "xlsx"), w.admin.Token, nil).Expect(t, 200)
}

// TestPolicyPreviewRoute previews an IAS 38 policy over the world's March
// (no facts: nothing capitalized) next to the phase's 36000 in force.
func TestPolicyPreviewRoute(t *testing.T) {
	t.Parallel()
	w := setup(t)
	base := "/api/v1/orgs/" + w.owner.OrgID.String() + "/capitalization/policies"
	pol := w.env.Do("POST", base, w.admin.Token, map[string]any{"framework": "ias_38", "effective_from": "2027-01"}).Expect(t, 201).Map(t)
	path := base + "/" + pol["id"].(string) + "/preview?period=2026-03"
	w.env.Do("GET", path, w.member.Token, nil).Expect(t, 403)
	w.env.Do("GET", path, w.outsider.Token, nil).Expect(t, 404)
	w.env.Do("GET", base+"/"+w.core.String()+"/preview?period=2026-03", w.admin.Token, nil).Expect(t, 404)
	w.env.Do("GET", base+"/"+pol["id"].(string)+"/preview", w.admin.Token, nil).Expect(t, 422)
	pv := w.env.Do("GET", path, w.admin.Token, nil).Expect(t, 200).Map(t)
	totals, inForce := pv["totals"].(map[string]any), pv["in_force_totals"].(map[string]any)
	if pv["in_force"] != nil || totals["capex_amount_cents"] != 0.0 || inForce["capex_amount_cents"] != 36000.0 ||
		pv["changed_entries"] != 3.0 || len(pv["entries"].([]any)) != 3 {
		t.Fatalf("preview %v", pv)
	}
}
