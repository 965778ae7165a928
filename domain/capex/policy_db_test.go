package capex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
)

// The golden month: Ann's approved time on one project in March 2026 at
// 60.00 an hour, so an entry of m minutes costs m × 100 cents. Each date a
// framework reads falls between two entries: a day before, the day itself
// and a day after.
var goldenEntries = []struct {
	date    string
	minutes int
}{
	{"2026-03-09", 60},  // 6000
	{"2026-03-10", 30},  // 3000
	{"2026-03-11", 15},  // 1500
	{"2026-03-19", 45},  // 4500
	{"2026-03-20", 90},  // 9000
	{"2026-03-21", 120}, // 12000
}

// TestPolicyFrameworksGolden classifies the golden month under each
// framework, with the project's facts set around its entries' dates; each
// want is computed by hand from the table above.
func TestPolicyFrameworksGolden(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	for _, e := range goldenEntries {
		o.entry(o.ann, e.date, e.minutes, "Coding", "")
	}
	o.entry(o.ann, "2026-02-15", 60, "Coding", "") // February: 6000
	now := time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	ctx := context.Background()
	project := o.ticket.ProjectID
	setFacts := func(sets string) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `UPDATE projects SET funding_authorized_on = NULL, completion_probable = NULL,
			significant_uncertainty_resolved_on = NULL, research_ends_on = NULL, ias38_criteria_met_on = NULL
			WHERE id = $1`, project); err != nil {
			t.Fatal(err)
		}
		if sets == "" {
			return
		}
		if _, err := db.Pool.Exec(ctx, `UPDATE projects SET `+sets[2:]+` WHERE id = $1`, project); err != nil {
			t.Fatal(err)
		}
	}
	march, _ := capex.ParsePeriod("period", "2026-03")
	feb, _ := capex.ParsePeriod("period", "2026-02")
	report := func(per capex.Period) capex.Report {
		t.Helper()
		r, err := svc.Report(ctx, o.caller, capex.Query{Period: per})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// entries is each drill-down entry's date and classification.
	entries := func() map[string]string {
		t.Helper()
		es, err := svc.Entries(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, domain.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, e := range es.Items {
			out[e.Date] = e.CapExOpEx
		}
		if es.CapExAmountCents+es.OpExAmountCents != 36000 {
			t.Errorf("drill-down totals %+v", es.Totals)
		}
		return out
	}
	check := func(name string, capexCents int64, capexFrom string) {
		t.Helper()
		r := report(march)
		if r.TotalAmountCents != 36000 || r.CapExAmountCents != capexCents || r.OpExAmountCents != 36000-capexCents {
			t.Errorf("%s: totals %+v, want CapEx %d of 36000", name, r.Totals, capexCents)
		}
		p := (*r.Projects)[0]
		want := capex.Mixed
		switch capexCents {
		case 0:
			want = capex.OpEx
		case 36000:
			want = capex.CapEx
		}
		if p.CapExOpEx != want || p.CapExAmountCents == nil || *p.CapExAmountCents != capexCents ||
			*p.OpExAmountCents != 36000-capexCents || p.TotalAmountCents != 36000 || p.TotalHours.String() != "6.00" {
			t.Errorf("%s: project %+v, want %s", name, p, want)
		}
		if len(p.Breakdown) != 1 || p.Breakdown[0].AmountCents != 36000 {
			t.Errorf("%s: breakdown %+v", name, p.Breakdown)
		}
		for date, got := range entries() {
			wantE := capex.OpEx
			if capexFrom != "" && date >= capexFrom {
				wantE = capex.CapEx
			}
			if got != wantE {
				t.Errorf("%s: entry of %s is %s, want %s", name, date, got, wantE)
			}
		}
		csv, err := svc.ExportCSV(ctx, o.caller, capex.Query{Period: march})
		if err != nil {
			t.Fatal(err)
		}
		var csvCapex, csvOpex int
		for _, row := range strings.Split(string(csv), "\r\n") {
			csvCapex += strings.Count(row, ",CapEx,")
			csvOpex += strings.Count(row, ",OpEx,")
		}
		if wantRows := map[string][2]int{capex.CapEx: {1, 0}, capex.OpEx: {0, 1}, capex.Mixed: {1, 1}}[want]; csvCapex != wantRows[0] || csvOpex != wantRows[1] {
			t.Errorf("%s: CSV has %d CapEx and %d OpEx rows, want %v:\n%s", name, csvCapex, csvOpex, wantRows, csv)
		}
	}

	// Without a policy: today's report (the phase decides; no policy, no
	// per-project split).
	r := report(march)
	if r.Policy != nil || r.CapExAmountCents != 36000 || (*r.Projects)[0].CapExAmountCents != nil {
		t.Fatalf("no policy: %+v", r)
	}
	if js, _ := r.AppendJSON(nil); strings.Contains(string(js), "policy") || strings.Contains(string(js), `"opex_amount_cents":0,"breakdown"`) {
		t.Fatalf("no policy: JSON %s", js)
	}

	create := func(framework, from string) capex.Policy {
		t.Helper()
		p, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: framework, EffectiveFrom: from})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	v1 := create(capex.FrameworkASC35040, "2026-01")
	check("ASC 350-40 stages, application development", 36000, "2026-01-01")
	v2 := create(capex.FrameworkASU202506, "2026-03")
	if v1.Version != 1 || v2.Version != 2 || v2.StandardHoursPerMonth != capex.DefaultStandardHours || string(v2.Rules) != "[]" {
		t.Fatalf("versions %+v %+v", v1, v2)
	}
	// February keeps the ASC policy in force then: the phase decides.
	if r := report(feb); r.Policy == nil || r.Policy.ID != v1.ID || r.CapExAmountCents != 6000 {
		t.Fatalf("February under v1: %+v", r)
	}
	if r := report(march); r.Policy == nil || r.Policy.ID != v2.ID || r.Policy.Framework != capex.FrameworkASU202506 {
		t.Fatalf("March under v2: %+v", r.Policy)
	}

	// ASU 2025-06: nothing is established yet, so nothing is capitalized,
	// whatever the phase says.
	setFacts("")
	check("ASU, no facts", 0, "")
	// Funding on the 10th, uncertainty resolved on the 20th, completion
	// probable: CapEx from the 20th (9000 + 12000).
	setFacts(`, funding_authorized_on = '2026-03-10', significant_uncertainty_resolved_on = '2026-03-20', completion_probable = true`)
	check("ASU, uncertainty resolved on the 20th", 21000, "2026-03-20")
	// Uncertainty resolved before the month, funding on the 10th: CapEx
	// from the 10th (all but the 9th's 6000).
	setFacts(`, funding_authorized_on = '2026-03-10', significant_uncertainty_resolved_on = '2026-02-01', completion_probable = true`)
	check("ASU, funding on the 10th", 30000, "2026-03-10")
	// A capex-worthy project whose completion is not probable: OpEx.
	setFacts(`, funding_authorized_on = '2026-03-10', significant_uncertainty_resolved_on = '2026-02-01', completion_probable = false`)
	check("ASU, completion not probable", 0, "")
	// Uncertainty unresolved: OpEx, after funding too.
	setFacts(`, funding_authorized_on = '2026-01-10', completion_probable = true`)
	check("ASU, uncertainty unresolved", 0, "")
	// Everything established before the month: all of it CapEx.
	setFacts(`, funding_authorized_on = '2026-01-10', significant_uncertainty_resolved_on = '2026-02-01', completion_probable = true`)
	check("ASU, established before the month", 36000, "2026-03-01")
	// ... unless the project is declared expensed.
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET capitalization_type = 'expensed' WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}
	check("ASU, expensed project", 0, "")
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET capitalization_type = NULL WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}

	// IAS 38, a later version from the same month: it is the one in force.
	v3 := create(capex.FrameworkIAS38, "2026-03")
	if r := report(march); r.Policy == nil || r.Policy.ID != v3.ID || r.Policy.Version != 3 {
		t.Fatalf("March under v3: %+v", r.Policy)
	}
	setFacts("")
	check("IAS 38, research not ended", 0, "")
	// Research ends on the 10th (its last day), criteria met on the 20th:
	// CapEx from the 20th.
	setFacts(`, research_ends_on = '2026-03-10', ias38_criteria_met_on = '2026-03-20'`)
	check("IAS 38, criteria met on the 20th", 21000, "2026-03-20")
	// Criteria met before the month, research ends on the 10th: CapEx
	// from the 11th (15 + 45 + 90 + 120 minutes).
	setFacts(`, research_ends_on = '2026-03-10', ias38_criteria_met_on = '2026-03-01'`)
	check("IAS 38, research ends on the 10th", 27000, "2026-03-11")
	// Research ended, criteria never met: OpEx.
	setFacts(`, research_ends_on = '2026-02-10'`)
	check("IAS 38, criteria not met", 0, "")

	// Close March under IAS 38 (CapEx from the 11th): the snapshot keeps the
	// policy and the facts, whatever changes after.
	setFacts(`, research_ends_on = '2026-03-10', ias38_criteria_met_on = '2026-03-01'`)
	if _, err := svc.Close(ctx, o.caller, o.id, "2026-03"); err != nil {
		t.Fatal(err)
	}
	closedJSON := func() string {
		t.Helper()
		r := report(march)
		if r.Close == nil {
			t.Fatal("March is not closed")
		}
		r.Close = nil
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(js)
	}
	before := closedJSON()
	check("IAS 38, closed", 27000, "2026-03-11")
	setFacts("")
	create(capex.FrameworkASU202506, "2026-02") // in force in March too, but March is closed
	if after := closedJSON(); after != before {
		t.Fatalf("closed March changed:\nbefore %s\nafter  %s", before, after)
	}
	check("IAS 38, closed, facts and policy changed since", 27000, "2026-03-11")
	// A policy may not take effect in the closed month.
	_, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkIAS38, EffectiveFrom: "2026-03"})
	testfactory.WantKind(t, err, domain.KindConflict, "period: 2026-03")

	ps, err := svc.ListPolicies(ctx, o.caller, o.id)
	if err != nil || len(ps) != 4 || ps[0].Version != 4 || ps[3].Version != 1 || ps[0].EffectiveFrom != "2026-02" {
		t.Fatalf("list %+v %v", ps, err)
	}
}

// TestPolicyInput holds a policy's body to its rules, and its routes to the
// report's role.
func TestPolicyInput(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{})
	svc := capex.New(db, domain.SystemClock{})
	ctx := context.Background()
	create := func(p domain.Principal, in capex.PolicyInput) error {
		return testfactory.Err(svc.CreatePolicy(ctx, p, o.id, in))
	}
	h := int64(0)
	note := strings.Repeat("n", 2001)
	testfactory.WantKind(t, create(o.caller, capex.PolicyInput{Framework: "gaap", EffectiveFrom: "2026-3",
		StandardHoursPerMonth: &h, Note: &note}), domain.KindValidation, "framework: must be one of asc_350_40_stages, asu_2025_06, ias_38",
		"effective_from: must be a month in the form YYYY-MM", "standard_hours_per_month: must be 1-744", "note: must be at most 2000 characters")
	testfactory.WantKind(t, create(o.caller, capex.PolicyInput{Framework: capex.FrameworkIAS38}), domain.KindValidation,
		"effective_from: required (YYYY-MM)")
	testfactory.WantKind(t, create(o.caller, capex.PolicyInput{Framework: capex.FrameworkIAS38, EffectiveFrom: "2026-03",
		Rules: json.RawMessage(`[{"match":"label:bug","classification":"opex"}]`)}), domain.KindValidation, "rules[0].reason: required")
	member := domain.Principal{UserID: o.ann, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	testfactory.WantKind(t, create(member, capex.PolicyInput{Framework: capex.FrameworkIAS38, EffectiveFrom: "2026-03"}),
		domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(svc.ListPolicies(ctx, member, o.id)), domain.KindForbidden)
	h = 140
	p, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkIAS38, EffectiveFrom: "2026-03",
		StandardHoursPerMonth: &h, Rules: json.RawMessage(`[]`)})
	if err != nil || p.StandardHoursPerMonth != 140 || p.Version != 1 || p.EffectiveFrom != "2026-03" || *p.CreatedBy != o.owner {
		t.Fatalf("%+v %v", p, err)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND entity_type = 'capitalization_policy'
		AND entity_id = $2 AND action = 'created'`, o.id, p.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("audit rows %d %v", n, err)
	}
}

// TestPeopleReport sums the golden month per person: without a policy the
// phase capitalizes all 6 hours (FTE 6/160 = 0.0375 → 0.04); under ASU
// 2025-06 with 150 standard hours and CapEx from the 20th, 3.5 of the 6
// hours (58.33 %) and 210.00 of 360.00 are capitalized (FTE 6/150 = 0.04,
// CapEx FTE 3.5/150 = 0.0233 → 0.02).
func TestPeopleReport(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	for _, e := range goldenEntries {
		o.entry(o.ann, e.date, e.minutes, "Coding", "")
	}
	svc := capex.New(db, domain.SystemClock{})
	ctx := context.Background()
	march, _ := capex.ParsePeriod("period", "2026-03")
	people := func() capex.PeopleReport {
		t.Helper()
		r, err := svc.People(ctx, o.caller, capex.Query{Period: march})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.People) != 1 || r.People[0].UserID != o.ann {
			t.Fatalf("people %+v", r)
		}
		return r
	}
	r := people()
	p := r.People[0]
	if r.Policy != nil || r.StandardHoursPerMonth != 160 || p.Hours.String() != "6.00" || p.CapExHours.String() != "6.00" ||
		p.OpExHours.String() != "0.00" || p.CapitalizedPct.String() != "100.00" || p.FTE.String() != "0.04" ||
		p.CapExFTE.String() != "0.04" || p.AmountCents != 36000 || p.CapExAmountCents != 36000 || p.DisplayName != "Ann" {
		t.Fatalf("no policy: %+v %+v", r, p)
	}
	h := int64(150)
	if _, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASU202506,
		EffectiveFrom: "2026-03", StandardHoursPerMonth: &h}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET funding_authorized_on = '2026-03-10',
		significant_uncertainty_resolved_on = '2026-03-20', completion_probable = true WHERE id = $1`, o.ticket.ProjectID); err != nil {
		t.Fatal(err)
	}
	r = people()
	p = r.People[0]
	if r.Policy == nil || r.StandardHoursPerMonth != 150 || p.Hours.String() != "6.00" || p.CapExHours.String() != "3.50" ||
		p.OpExHours.String() != "2.50" || p.CapitalizedPct.String() != "58.33" || p.FTE.String() != "0.04" ||
		p.CapExFTE.String() != "0.02" || p.AmountCents != 36000 || p.CapExAmountCents != 21000 {
		t.Fatalf("ASU: %+v %+v", r, p)
	}
	csv, err := capex.WritePeopleCSV(r)
	if err != nil {
		t.Fatal(err)
	}
	want := "Period,UserID,Employee,Hours,CapExHours,OpExHours,CapitalizedPct,FTE,CapExFTE,Amount,CapExAmount\r\n" +
		"2026-03," + o.ann.String() + ",Ann,6.00,3.50,2.50,58.33,0.04,0.02,360.00,210.00\r\n"
	if string(csv) != want {
		t.Fatalf("CSV\n%q\nwant\n%q", csv, want)
	}
	var buf bytes.Buffer
	if err := capex.WritePeopleXLSX(&buf, r); err != nil || buf.Len() == 0 {
		t.Fatalf("XLSX %d bytes, %v", buf.Len(), err)
	}
	member := domain.Principal{UserID: o.ann, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	testfactory.WantKind(t, testfactory.Err(svc.People(ctx, member, capex.Query{Period: march})), domain.KindForbidden)
}

// TestPolicyPreview previews the golden month under ASU 2025-06 (taking
// effect only in April, so not in force) next to the phase's
// classification in force: CapEx 21000 instead of 36000, and the four
// entries before the 20th change from CapEx to OpEx, with both reasons.
func TestPolicyPreview(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	for _, e := range goldenEntries {
		o.entry(o.ann, e.date, e.minutes, "Coding", "")
	}
	svc := capex.New(db, domain.SystemClock{})
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET funding_authorized_on = '2026-03-10',
		significant_uncertainty_resolved_on = '2026-03-20', completion_probable = true WHERE id = $1`, o.ticket.ProjectID); err != nil {
		t.Fatal(err)
	}
	pol, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASU202506, EffectiveFrom: "2026-04"})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := svc.PreviewPolicy(ctx, o.caller, o.id, pol.ID, "2026-03")
	if err != nil {
		t.Fatal(err)
	}
	if pv.InForce != nil || pv.Policy.ID != pol.ID || pv.Totals.CapExAmountCents != 21000 || pv.Totals.OpExAmountCents != 15000 ||
		pv.InForceTotals.CapExAmountCents != 36000 || pv.ChangedEntries != 4 || len(pv.Entries) != 4 {
		t.Fatalf("preview %+v", pv)
	}
	dates := map[string]bool{}
	for _, e := range pv.Entries {
		dates[e.Date] = true
		if e.Classification != capex.OpEx || e.InForceClassification != capex.CapEx ||
			e.InForceReason != "ASC 350-40: application development stage" || !strings.HasPrefix(e.Reason, "ASU 2025-06: before ") {
			t.Errorf("entry %+v", e)
		}
	}
	if !dates["2026-03-09"] || !dates["2026-03-19"] || dates["2026-03-20"] {
		t.Errorf("changed dates %v", dates)
	}
	// The report itself is unchanged: nothing was written.
	march, _ := capex.ParsePeriod("period", "2026-03")
	if r, err := svc.Report(ctx, o.caller, capex.Query{Period: march}); err != nil || r.Policy != nil || r.CapExAmountCents != 36000 {
		t.Fatalf("report %+v %v", r, err)
	}
	other := newOrg(t, db, testfactory.ProjectOpts{})
	testfactory.WantKind(t, testfactory.Err(svc.PreviewPolicy(ctx, other.caller, other.id, pol.ID, "2026-03")), domain.KindNotFound)
	member := domain.Principal{UserID: o.ann, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	testfactory.WantKind(t, testfactory.Err(svc.PreviewPolicy(ctx, member, o.id, pol.ID, "2026-03")), domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(svc.PreviewPolicy(ctx, o.caller, o.id, pol.ID, "March")), domain.KindValidation)
}
