package capex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/search"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/projectdb"
	"tracker/store/storetest"
	"tracker/store/ticketdb"

	"github.com/google/uuid"
)

// TestPolicyRulesGolden classifies a month by ticket-level rules under ASU
// 2025-06. One project (funding on the 10th, uncertainty resolved on the
// 20th: the framework capitalizes from the 20th), Ann at 60.00 an hour (m
// minutes cost m × 100 cents), three tickets:
//
//	A label:bug      2026-03-20  60 min   6000
//	B label:billing  2026-03-09  30 min   3000
//	B                2026-03-21 120 min  12000
//	C no label       2026-03-20  90 min   9000
//
// The framework alone: CapEx 6000 + 12000 + 9000 = 27000 of 30000.
// Rules [bug → opex, billing-or-bug → capex]: A is OpEx (the first rule
// matches it first), B's 9th stays OpEx (a capex rule before the funding
// date: the framework decides, with both reasons), B's 21st is CapEx by
// the rule, C is CapEx by the framework: CapEx 21000, OpEx 9000.
func TestPolicyRulesGolden(t *testing.T) {
	t.Parallel()
	db, o, a, b, c := goldenRulesMonth(t)
	ctx := context.Background()
	project := o.ticket.ProjectID
	now := time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	march, _ := capex.ParsePeriod("period", "2026-03")
	policy := func(rules string) capex.Policy {
		t.Helper()
		p, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASU202506,
			EffectiveFrom: "2026-03", Rules: json.RawMessage(rules)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	type why struct{ class, rule, reason string }
	check := func(name string, capexCents int64, want map[string]why) {
		t.Helper()
		r, err := svc.Report(ctx, o.caller, capex.Query{Period: march})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalAmountCents != 30000 || r.CapExAmountCents != capexCents || r.OpExAmountCents != 30000-capexCents {
			t.Errorf("%s: report totals %+v, want CapEx %d of 30000", name, r.Totals, capexCents)
		}
		if js, _ := json.Marshal(r); strings.Contains(string(js), "rule_tickets") {
			t.Errorf("%s: the report renders the per-ticket decisions: %s", name, js)
		}
		es, err := svc.Entries(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, domain.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if es.CapExAmountCents != capexCents {
			t.Errorf("%s: drill-down totals %+v", name, es.Totals)
		}
		for _, e := range es.Items {
			key := e.TicketRef[strings.LastIndex(e.TicketRef, "-")+1:] + "@" + e.Date
			w, ok := want[key]
			if !ok {
				t.Errorf("%s: unexpected entry %s", name, key)
				continue
			}
			if e.Classification != w.class || e.CapExOpEx != w.class || e.RuleID != w.rule || !strings.Contains(e.Reason, w.reason) {
				t.Errorf("%s: entry %s is %s/%s %q, want %s/%s containing %q", name, key, e.Classification, e.RuleID, e.Reason,
					w.class, w.rule, w.reason)
			}
		}
		pr, err := svc.People(ctx, o.caller, capex.Query{Period: march})
		if err != nil || len(pr.People) != 1 || pr.People[0].CapExAmountCents != capexCents {
			t.Errorf("%s: people %+v %v", name, pr, err)
		}
		w, err := svc.EntriesCSV(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := w(&buf); err != nil {
			t.Fatal(err)
		}
		for _, x := range want {
			if !strings.Contains(buf.String(), x.rule) {
				t.Errorf("%s: CSV lacks rule %s:\n%s", name, x.rule, buf.String())
			}
		}
	}
	n := func(tk uuid.UUID) string {
		for _, x := range []struct {
			id  uuid.UUID
			ref string
		}{{a.ID, strconv.Itoa(int(a.TicketNumber))}, {b.ID, strconv.Itoa(int(b.TicketNumber))}, {c.ID, strconv.Itoa(int(c.TicketNumber))}} {
			if x.id == tk {
				return x.ref
			}
		}
		return ""
	}
	A, B, C := n(a.ID), n(b.ID), n(c.ID)

	policy(`[]`)
	check("framework alone", 27000, map[string]why{
		A + "@2026-03-20": {capex.CapEx, "framework", "ASU 2025-06: funding authorized"},
		B + "@2026-03-09": {capex.OpEx, "framework", "before funding was authorized on 2026-03-10"},
		B + "@2026-03-21": {capex.CapEx, "framework", "ASU 2025-06"},
		C + "@2026-03-20": {capex.CapEx, "framework", "ASU 2025-06"},
	})

	p := policy(`[{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"},
		{"match":"label:billing OR label:bug","classification":"capex","reason":"billing platform"}]`)
	var rules []capex.Rule
	if err := json.Unmarshal(p.Rules, &rules); err != nil || len(rules) != 2 || rules[0].ID != "bug" || rules[1].ID == "" {
		t.Fatalf("stored rules %s %v", p.Rules, err)
	}
	billing := rules[1].ID
	check("bug opex first", 21000, map[string]why{
		A + "@2026-03-20": {capex.OpEx, "bug", "maintenance"},
		B + "@2026-03-09": {capex.OpEx, "framework", "billing platform; overruled by the framework: ASU 2025-06: before funding was authorized on 2026-03-10"},
		B + "@2026-03-21": {capex.CapEx, billing, "billing platform"},
		C + "@2026-03-20": {capex.CapEx, "framework", "ASU 2025-06"},
	})

	// First match decides: the capex rule first takes A too (CapEx on the
	// 20th by the framework): 27000.
	policy(`[{"id":"billing","match":"label:billing OR label:bug","classification":"capex","reason":"billing platform"},
		{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"}]`)
	check("capex rule first", 27000, map[string]why{
		A + "@2026-03-20": {capex.CapEx, "billing", "billing platform"},
		B + "@2026-03-09": {capex.OpEx, "framework", "billing platform; overruled"},
		B + "@2026-03-21": {capex.CapEx, "billing", "billing platform"},
		C + "@2026-03-20": {capex.CapEx, "framework", "ASU 2025-06"},
	})

	// The uncertainty unresolved: the capex rule capitalizes nothing, and
	// says both why it wanted to and why the framework refused.
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET significant_uncertainty_resolved_on = NULL WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}
	unresolved := "billing platform; overruled by the framework: ASU 2025-06: significant development uncertainty is unresolved"
	check("capex rule, uncertainty unresolved", 0, map[string]why{
		A + "@2026-03-20": {capex.OpEx, "framework", unresolved},
		B + "@2026-03-09": {capex.OpEx, "framework", unresolved},
		B + "@2026-03-21": {capex.OpEx, "framework", unresolved},
		C + "@2026-03-20": {capex.OpEx, "framework", "significant development uncertainty is unresolved"},
	})

	// Back to the bug rule first; close March: the snapshot keeps each
	// ticket's rule, so relabelling A afterwards changes nothing.
	if _, err := db.Pool.Exec(ctx, `UPDATE projects SET significant_uncertainty_resolved_on = '2026-03-20' WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}
	policy(`[{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"}]`)
	frozen := map[string]why{
		A + "@2026-03-20": {capex.OpEx, "bug", "maintenance"},
		B + "@2026-03-09": {capex.OpEx, "framework", "before funding"},
		B + "@2026-03-21": {capex.CapEx, "framework", "ASU 2025-06"},
		C + "@2026-03-20": {capex.CapEx, "framework", "ASU 2025-06"},
	}
	check("bug rule alone", 21000, frozen)
	if _, err := svc.Close(ctx, o.caller, o.id, "2026-03"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM ticket_labels WHERE ticket_id = $1`, a.ID); err != nil {
		t.Fatal(err)
	}
	check("closed, A relabelled since", 21000, frozen)
}

// TestPolicyRulesInput: each rule's problems name it.
func TestPolicyRulesInput(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{})
	svc := capex.New(db, domain.SystemClock{})
	ctx := context.Background()
	create := func(rules string) error {
		return testfactory.Err(svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkIAS38,
			EffectiveFrom: "2026-03", Rules: json.RawMessage(rules)}))
	}
	testfactory.WantKind(t, create(`[{"match":"label:bug","classification":"opex","reason":"x"},
		{"match":"status:open AND (","classification":"capex","reason":"y"}]`), domain.KindValidation,
		"rules[1].match: invalid query at position")
	testfactory.WantKind(t, create(`[{"match":"cf.nope:1","classification":"capex","reason":"y"}]`), domain.KindValidation,
		`rules[0].match: invalid query at position 1: unknown custom field "nope"`)
	testfactory.WantKind(t, create(`[{"id":"framework","match":"label:x","classification":"capitalize"},
		{"id":"a","match":"label:y","classification":"opex","reason":"r"},{"id":"a","match":"","classification":"opex","reason":"r"}]`),
		domain.KindValidation, `rules[0].id: "framework" is reserved`, "rules[0].classification: must be capex or opex",
		"rules[0].reason: required", "rules[2].id: must be unique", "rules[2].match: required")
	testfactory.WantKind(t, create(`{"match":"x"}`), domain.KindValidation, "rules: must be an array")
	if ps, err := svc.ListPolicies(ctx, o.caller, o.id); err != nil || len(ps) != 0 {
		t.Fatalf("a refused policy was stored: %+v %v", ps, err)
	}
}

// TestParentTermAndRule: parent:KEY-N finds every ticket under that one at
// any depth (not the ticket itself), in plain search and in a policy's
// rule. Epic E has child C1, C1 has child C2; X stands alone. Under ASC
// 350-40 (development: all CapEx) at 60.00 an hour, entries E 15 min
// (1500), C1 60 (6000), C2 30 (3000), X 90 (9000): the rule parent:E →
// opex makes C1 and C2 OpEx, 9000 of 19500; CapEx 10500.
func TestParentTermAndRule(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	ctx := context.Background()
	project := projectdb.Row{ID: o.ticket.ProjectID}
	e := o.ticket
	c1 := testfactory.Ticket(t, db, project, o.owner, testfactory.TicketOpts{Title: "child"})
	c2 := testfactory.Ticket(t, db, project, o.owner, testfactory.TicketOpts{Title: "grandchild"})
	x := testfactory.Ticket(t, db, project, o.owner, testfactory.TicketOpts{Title: "alone"})
	for _, l := range [][2]uuid.UUID{{c1.ID, e.ID}, {c2.ID, c1.ID}} {
		if _, err := db.Pool.Exec(ctx, `UPDATE tickets SET parent_id = $2 WHERE id = $1`, l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	var key string
	if err := db.Pool.QueryRow(ctx, `SELECT key FROM projects WHERE id = $1`, project.ID).Scan(&key); err != nil {
		t.Fatal(err)
	}
	ref := strings.ToLower(key) + "-" + strconv.Itoa(int(e.TicketNumber))
	res, err := search.New(db, domain.SystemClock{}).Org(ctx, o.caller, o.id, search.Request{Q: "parent:" + ref, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := map[uuid.UUID]bool{}
	for _, it := range res.Items {
		got[it.ID] = true
	}
	if len(got) != 2 || !got[c1.ID] || !got[c2.ID] {
		t.Fatalf("parent:%s found %v, want the child and the grandchild", ref, got)
	}
	res, err = search.New(db, domain.SystemClock{}).Org(ctx, o.caller, o.id, search.Request{Q: "parent:" + key + "-999", Limit: 50})
	if err != nil || len(res.Items) != 0 {
		t.Fatalf("parent of no ticket: %+v %v", res.Items, err)
	}

	for _, en := range []struct {
		tk      ticketdb.Row
		minutes int
	}{{e, 15}, {c1, 60}, {c2, 30}, {x, 90}} {
		testfactory.TimeEntry(t, db, en.tk, o.ann, testfactory.TimeEntryOpts{Date: testfactory.Day("2026-03-05"),
			Minutes: en.minutes, Activity: "Coding", Status: "Approved"})
	}
	svc := capex.New(db, domain.SystemClock{})
	if _, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASC35040, EffectiveFrom: "2026-03",
		Rules: json.RawMessage(`[{"id":"epic","match":"parent:` + ref + `","classification":"opex","reason":"support epic"}]`)}); err != nil {
		t.Fatal(err)
	}
	march, _ := capex.ParsePeriod("period", "2026-03")
	r, err := svc.Report(ctx, o.caller, capex.Query{Period: march})
	if err != nil || r.TotalAmountCents != 19500 || r.CapExAmountCents != 10500 || r.OpExAmountCents != 9000 {
		t.Fatalf("report %+v %v", r.Totals, err)
	}
	es, err := svc.Entries(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, domain.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range es.Items {
		wantRule, wantClass := "framework", capex.CapEx
		if it.TicketID == c1.ID || it.TicketID == c2.ID {
			wantRule, wantClass = "epic", capex.OpEx
		}
		if it.RuleID != wantRule || it.Classification != wantClass {
			t.Errorf("entry of %s: %s/%s, want %s/%s", it.TicketTitle, it.RuleID, it.Classification, wantRule, wantClass)
		}
	}
}

// TestOverrides: under the golden rules month (rules [bug → opex,
// billing-or-bug → capex], CapEx 21000 of 30000), an override to capex on A
// beats the bug rule (A's 20th: 6000 more CapEx, 27000), an override to
// capex on B cannot capitalize B's 9th (before funding: OpEx, rule_id
// framework, both reasons), an override to opex on C makes its 9000 OpEx.
// Each change is on the ticket's activity trail; removing A's restores the
// rule.
func TestOverrides(t *testing.T) {
	t.Parallel()
	db, o, a, b, c := goldenRulesMonth(t)
	ctx := context.Background()
	svc := capex.New(db, domain.SystemClock{})
	march, _ := capex.ParsePeriod("period", "2026-03")
	if _, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASU202506, EffectiveFrom: "2026-03",
		Rules: json.RawMessage(`[{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"},
		{"id":"billing","match":"label:billing OR label:bug","classification":"capex","reason":"billing platform"}]`)}); err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	set := func(tk uuid.UUID, class, reason string) {
		t.Helper()
		if _, err := svc.SetOverride(ctx, o.caller, tk, capex.OverrideInput{Classification: str(class), Reason: str(reason)}); err != nil {
			t.Fatal(err)
		}
	}
	type why struct{ class, rule, reason string }
	check := func(name string, capexCents int64, want map[string]why) {
		t.Helper()
		r, err := svc.Report(ctx, o.caller, capex.Query{Period: march})
		if err != nil || r.CapExAmountCents != capexCents || r.TotalAmountCents != 30000 {
			t.Errorf("%s: report %+v %v, want CapEx %d", name, r.Totals, err, capexCents)
		}
		es, err := svc.Entries(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, domain.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es.Items {
			w := want[e.TicketTitle+"@"+e.Date]
			if e.Classification != w.class || e.RuleID != w.rule || !strings.Contains(e.Reason, w.reason) {
				t.Errorf("%s: %s@%s is %s/%s %q, want %s/%s with %q", name, e.TicketTitle, e.Date, e.Classification, e.RuleID,
					e.Reason, w.class, w.rule, w.reason)
			}
		}
	}
	set(a.ID, "capex", "new billing screens")
	set(b.ID, "capex", "billing engine")
	set(c.ID, "opex", "support")
	check("overrides", 6000+12000, map[string]why{
		"ticket@2026-03-20":  {capex.CapEx, "override", "new billing screens"},
		"billing@2026-03-09": {capex.OpEx, "framework", "billing engine; overruled by the framework: ASU 2025-06: before funding"},
		"billing@2026-03-21": {capex.CapEx, "override", "billing engine"},
		"other@2026-03-20":   {capex.OpEx, "override", "support"},
	})
	if err := svc.DeleteOverride(ctx, o.caller, a.ID); err != nil {
		t.Fatal(err)
	}
	check("A's override removed", 12000, map[string]why{
		"ticket@2026-03-20":  {capex.OpEx, "bug", "maintenance"},
		"billing@2026-03-09": {capex.OpEx, "framework", "billing engine; overruled"},
		"billing@2026-03-21": {capex.CapEx, "override", "billing engine"},
		"other@2026-03-20":   {capex.OpEx, "override", "support"},
	})
	testfactory.WantKind(t, svc.DeleteOverride(ctx, o.caller, a.ID), domain.KindNotFound)
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity_type = 'ticket' AND entity_id = $1
		AND action IN ('capitalization_override_set', 'capitalization_override_removed')`, a.ID).Scan(&n); err != nil || n != 2 {
		t.Fatalf("A's activity has %d override rows %v", n, err)
	}
	// Input and roles.
	long := strings.Repeat("r", 2001)
	testfactory.WantKind(t, testfactory.Err(svc.SetOverride(ctx, o.caller, a.ID, capex.OverrideInput{Classification: str("capitalize"), Reason: &long})),
		domain.KindValidation, "classification: must be capex or opex", "reason: must be at most 2000")
	testfactory.WantKind(t, testfactory.Err(svc.SetOverride(ctx, o.caller, a.ID, capex.OverrideInput{Classification: str("opex")})),
		domain.KindValidation, "reason: required")
	member := domain.Principal{UserID: o.ann, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	testfactory.WantKind(t, testfactory.Err(svc.SetOverride(ctx, member, a.ID, capex.OverrideInput{Classification: str("opex"), Reason: str("x")})),
		domain.KindForbidden)
	testfactory.WantKind(t, svc.DeleteOverride(ctx, member, b.ID), domain.KindForbidden)
	stranger := testfactory.User(t, db, testfactory.UserOpts{Name: "Stranger"}).ID
	testfactory.WantKind(t, testfactory.Err(svc.SetOverride(ctx, domain.Principal{UserID: stranger, Scopes: []string{domain.ScopeAll}}, a.ID,
		capex.OverrideInput{Classification: str("opex"), Reason: str("x")})), domain.KindNotFound)

	// A close keeps the month's overrides: removing C's after it changes
	// nothing.
	if _, err := svc.Close(ctx, o.caller, o.id, "2026-03"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteOverride(ctx, o.caller, c.ID); err != nil {
		t.Fatal(err)
	}
	check("closed, C's override removed since", 12000, map[string]why{
		"ticket@2026-03-20":  {capex.OpEx, "bug", "maintenance"},
		"billing@2026-03-09": {capex.OpEx, "framework", "billing engine; overruled"},
		"billing@2026-03-21": {capex.CapEx, "override", "billing engine"},
		"other@2026-03-20":   {capex.OpEx, "override", "support"},
	})
}

// goldenRulesMonth is the month of TestPolicyRulesGolden's table: one
// project (funding on the 10th, uncertainty resolved on the 20th), Ann at
// 60.00 an hour, tickets A (label bug), B (label billing) and C with their
// approved entries of March 2026.
func goldenRulesMonth(t *testing.T) (*store.DB, org, ticketdb.Row, ticketdb.Row, ticketdb.Row) {
	t.Helper()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	project := o.ticket.ProjectID
	if _, err := db.Pool.Exec(context.Background(), `UPDATE projects SET funding_authorized_on = '2026-03-10',
		significant_uncertainty_resolved_on = '2026-03-20', completion_probable = true WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}
	a := o.ticket
	b := testfactory.Ticket(t, db, projectdb.Row{ID: project}, o.owner, testfactory.TicketOpts{Title: "billing"})
	c := testfactory.Ticket(t, db, projectdb.Row{ID: project}, o.owner, testfactory.TicketOpts{Title: "other"})
	testfactory.Label(t, db, o.id, testfactory.LabelOpts{Name: "bug", Tickets: []uuid.UUID{a.ID}})
	testfactory.Label(t, db, o.id, testfactory.LabelOpts{Name: "billing", Tickets: []uuid.UUID{b.ID}})
	for _, e := range []struct {
		tk      ticketdb.Row
		date    string
		minutes int
	}{{a, "2026-03-20", 60}, {b, "2026-03-09", 30}, {b, "2026-03-21", 120}, {c, "2026-03-20", 90}} {
		testfactory.TimeEntry(t, db, e.tk, o.ann, testfactory.TimeEntryOpts{Date: testfactory.Day(e.date), Minutes: e.minutes,
			Activity: "Coding", Status: "Approved"})
	}
	return db, o, a, b, c
}
