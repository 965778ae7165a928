package capex_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
)

// TestTicketDecisionsGoldenPerFramework: the same month of tickets under
// each framework, with rules, overrides and an epic's sub-ticket. Ann at
// 60.00 an hour (m minutes cost m × 100 cents). Project P (the framework
// capitalizes from the 20th: ASU 2025-06 funding on the 10th and the
// uncertainty resolved on the 20th; IAS 38 research ending on the 10th and
// the criteria met on the 20th; ASC 350-40 the application development
// stage, all month) and project Q (capitalized all month under each):
//
//	P  S  sub-ticket of epic E   03-21  60 min   6000
//	P  X  label:platform         03-19  30 min   3000   a day before the date
//	P  X                         03-20  45 min   4500   the date
//	P  O  label:platform         03-21  90 min   9000   override opex
//	P  V  (no label)             03-19  15 min   1500   override capex, a day before
//	P  V                         03-21 120 min  12000   override capex
//	Q  B  label:bug              03-05  30 min   3000
//	Q  K  (no label)             03-05  60 min   6000
//
// Rules [parent:E → opex "support epic", label:platform → capex
// "platform", label:bug → opex "maintenance"]. Hand-computed:
//   - ASC 350-40: S OpEx (epic), X CapEx both days (platform), O OpEx
//     (override), V CapEx both days (override), B OpEx (maintenance), K
//     CapEx (framework): CapEx 3000 + 4500 + 1500 + 12000 + 6000 = 27000.
//   - ASU 2025-06 and IAS 38: as ASC except the 19th's entries, which the
//     framework keeps OpEx whatever the capex rule or override says (both
//     reasons): CapEx 4500 + 12000 + 6000 = 22500.
//   - Then P's uncertainty unresolved (IAS 38: its criteria not met): every
//     capex decision in P is overruled; CapEx is Q's K alone, 6000.
func TestTicketDecisionsGoldenPerFramework(t *testing.T) {
	t.Parallel()
	type want struct {
		class, rule, reason string
	}
	for _, fw := range []struct {
		name, facts, unresolve string
		capex                  int64
		before                 string // what the framework says of P's 19th
	}{
		{capex.FrameworkASC35040, "", "", 27000, ""},
		{capex.FrameworkASU202506,
			`funding_authorized_on = '2026-03-10', significant_uncertainty_resolved_on = '2026-03-20', completion_probable = true`,
			`significant_uncertainty_resolved_on = NULL`, 22500,
			"overruled by the framework: ASU 2025-06: before significant development uncertainty was resolved on 2026-03-20"},
		{capex.FrameworkIAS38, `research_ends_on = '2026-03-10', ias38_criteria_met_on = '2026-03-20'`,
			`ias38_criteria_met_on = NULL`, 22500,
			"overruled by the framework: IAS 38: before the development criteria were met on 2026-03-20"},
	} {
		t.Run(fw.name, func(t *testing.T) {
			t.Parallel()
			db := storetest.New(t)
			dev := testfactory.Ptr(capex.PhaseApplicationDevelopment)
			o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: dev})
			addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
			ctx := context.Background()
			exec := func(sql string, args ...any) {
				t.Helper()
				if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
					t.Fatal(err)
				}
			}
			p := testfactory.Project(t, db, o.id, testfactory.ProjectOpts{DevelopmentPhase: dev})
			q := testfactory.Project(t, db, o.id, testfactory.ProjectOpts{DevelopmentPhase: dev})
			if fw.facts != "" {
				exec(`UPDATE projects SET `+fw.facts+` WHERE id = $1`, p.ID)
			}
			exec(`UPDATE projects SET funding_authorized_on = '2026-01-10', significant_uncertainty_resolved_on = '2026-02-01',
				completion_probable = true, research_ends_on = '2026-01-31', ias38_criteria_met_on = '2026-02-01' WHERE id = $1`, q.ID)
			tk := map[string]ticketdb.Row{}
			for _, n := range []string{"E", "S", "X", "O", "V"} {
				tk[n] = testfactory.Ticket(t, db, p, o.owner, testfactory.TicketOpts{Title: n})
			}
			for _, n := range []string{"B", "K"} {
				tk[n] = testfactory.Ticket(t, db, q, o.owner, testfactory.TicketOpts{Title: n})
			}
			exec(`UPDATE tickets SET parent_id = $2 WHERE id = $1`, tk["S"].ID, tk["E"].ID)
			testfactory.Label(t, db, o.id, testfactory.LabelOpts{Name: "platform", Tickets: []uuid.UUID{tk["X"].ID, tk["O"].ID}})
			testfactory.Label(t, db, o.id, testfactory.LabelOpts{Name: "bug", Tickets: []uuid.UUID{tk["B"].ID}})
			for _, e := range []struct {
				t, date string
				minutes int
			}{{"S", "2026-03-21", 60}, {"X", "2026-03-19", 30}, {"X", "2026-03-20", 45}, {"O", "2026-03-21", 90},
				{"V", "2026-03-19", 15}, {"V", "2026-03-21", 120}, {"B", "2026-03-05", 30}, {"K", "2026-03-05", 60}} {
				testfactory.TimeEntry(t, db, tk[e.t], o.ann, testfactory.TimeEntryOpts{Date: testfactory.Day(e.date),
					Minutes: e.minutes, Activity: "Coding", Status: "Approved"})
			}
			now := time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)
			svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
			epic := strings.ToLower(p.Key) + "-" + strconv.Itoa(int(tk["E"].TicketNumber))
			if _, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: fw.name, EffectiveFrom: "2026-03",
				Rules: json.RawMessage(`[{"id":"epic","match":"parent:` + epic + `","classification":"opex","reason":"support epic"},
				{"id":"platform","match":"label:platform","classification":"capex","reason":"platform"},
				{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"}]`)}); err != nil {
				t.Fatal(err)
			}
			for n, c := range map[string]string{"O": "opex", "V": "capex"} {
				if _, err := svc.SetOverride(ctx, o.caller, tk[n].ID, capex.OverrideInput{Classification: testfactory.Ptr(c),
					Reason: testfactory.Ptr("finance says " + c)}); err != nil {
					t.Fatal(err)
				}
			}
			march, _ := capex.ParsePeriod("period", "2026-03")
			check := func(name string, capexCents int64, wants map[string]want) {
				t.Helper()
				r, err := svc.Report(ctx, o.caller, capex.Query{Period: march})
				if err != nil {
					t.Fatal(err)
				}
				if r.TotalAmountCents != 45000 || r.CapExAmountCents != capexCents {
					t.Errorf("%s: report %+v, want CapEx %d of 45000", name, r.Totals, capexCents)
				}
				var split int64
				for _, pr := range *r.Projects {
					split += *pr.CapExAmountCents
				}
				if split != capexCents {
					t.Errorf("%s: projects' CapEx %d", name, split)
				}
				for _, g := range []capex.Query{{Period: march, GroupBy: capex.GroupUser}, {Period: march, GroupBy: capex.GroupTeam},
					{Period: march, IncludeUsers: true}} {
					if r, err := svc.Report(ctx, o.caller, g); err != nil || r.CapExAmountCents != capexCents {
						t.Errorf("%s: report %+v: %+v %v", name, g, r.Totals, err)
					}
				}
				pr, err := svc.People(ctx, o.caller, capex.Query{Period: march})
				if err != nil || len(pr.People) != 1 || pr.People[0].CapExAmountCents != capexCents || pr.People[0].AmountCents != 45000 {
					t.Errorf("%s: people %+v %v", name, pr.People, err)
				}
				es, err := svc.Entries(ctx, o.caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, domain.Page{Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if es.CapExAmountCents != capexCents || len(es.Items) != 8 {
					t.Errorf("%s: drill-down %+v, %d entries", name, es.Totals, len(es.Items))
				}
				var sum int64
				for _, e := range es.Items {
					key := e.TicketTitle + "@" + e.Date[8:]
					w, ok := wants[key]
					if !ok {
						t.Errorf("%s: unexpected entry %s", name, key)
						continue
					}
					if e.Classification != w.class || e.RuleID != w.rule || !strings.Contains(e.Reason, w.reason) {
						t.Errorf("%s: %s is %s/%s %q, want %s/%s containing %q", name, key, e.Classification, e.RuleID, e.Reason,
							w.class, w.rule, w.reason)
					}
					if e.Classification == capex.CapEx {
						sum += e.AmountCents
					}
				}
				if sum != capexCents {
					t.Errorf("%s: the entries' CapEx %d, the report's %d", name, sum, capexCents)
				}
			}
			before := func(rule, reason string) want { // P's 19th under a rule or override to capex
				if fw.before == "" {
					return want{capex.CapEx, rule, reason}
				}
				return want{capex.OpEx, capex.RuleFramework, reason + "; " + fw.before}
			}
			check("decided", fw.capex, map[string]want{
				"S@21": {capex.OpEx, "epic", "support epic"},
				"X@19": before("platform", "platform"),
				"X@20": {capex.CapEx, "platform", "platform"},
				"O@21": {capex.OpEx, capex.RuleOverride, "finance says opex"},
				"V@19": before(capex.RuleOverride, "finance says capex"),
				"V@21": {capex.CapEx, capex.RuleOverride, "finance says capex"},
				"B@05": {capex.OpEx, "bug", "maintenance"},
				"K@05": {capex.CapEx, capex.RuleFramework, ""},
			})
			if fw.unresolve == "" {
				return
			}
			exec(`UPDATE projects SET `+fw.unresolve+` WHERE id = $1`, p.ID)
			overruled := map[string]string{capex.FrameworkASU202506: "ASU 2025-06: significant development uncertainty is unresolved",
				capex.FrameworkIAS38: "IAS 38: development criteria not met"}[fw.name]
			check("unresolved", 6000, map[string]want{
				"S@21": {capex.OpEx, "epic", "support epic"},
				"X@19": {capex.OpEx, capex.RuleFramework, "platform; overruled by the framework: " + overruled},
				"X@20": {capex.OpEx, capex.RuleFramework, "platform; overruled by the framework: " + overruled},
				"O@21": {capex.OpEx, capex.RuleOverride, "finance says opex"},
				"V@19": {capex.OpEx, capex.RuleFramework, "finance says capex; overruled by the framework: " + overruled},
				"V@21": {capex.OpEx, capex.RuleFramework, "finance says capex; overruled by the framework: " + overruled},
				"B@05": {capex.OpEx, "bug", "maintenance"},
				"K@05": {capex.CapEx, capex.RuleFramework, ""},
			})
		})
	}
}
