package capex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/capex/capextest"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
)

// TestPolicyAggregatesMatchTheEntries: under a policy, the aggregates (the
// rollup, its split projects and the OpEx tickets moved out of CapEx) must
// say what classifying every entry one by one says. Random orgs: projects
// with random facts (capitalizing from a date before, inside or after the
// month, or never; some expensed), random labels, rules and overrides, under
// each framework; the report in every grouping, the people report and the
// drill-down's totals are compared with the sums of the drill-down's
// entries by their own classification, per project and per person.
func TestPolicyAggregatesMatchTheEntries(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := capextest.F{T: t, DB: db}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 32))
	ctx := context.Background()
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	march, _ := capex.ParsePeriod("period", "2026-03")
	day := func() string {
		if r.IntN(5) == 0 {
			return "NULL"
		}
		return "'" + time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(50)).Format("2006-01-02") + "'"
	}
	for _, fw := range capex.Frameworks {
		g := f.Random(r, capextest.RandomOpts{Projects: 5, Phases: true, MaxBudgetCents: 1_000_000, First: time.Date(2026, 2, 25, 0, 0, 0, 0, time.UTC),
			Days: 40, Entries: 250, Statuses: []string{"Approved", "Approved", "Approved", "Submitted"}})
		caller := domain.Principal{UserID: g.Owner, OrgID: g.ID, Scopes: []string{domain.ScopeAll}}
		for _, p := range g.Projects {
			f.Exec(fmt.Sprintf(`UPDATE projects SET funding_authorized_on = %s, significant_uncertainty_resolved_on = %s,
				completion_probable = %v, research_ends_on = %s, ias38_criteria_met_on = %s,
				capitalization_type = CASE WHEN %v THEN 'expensed' END WHERE id = $1`,
				day(), day(), r.IntN(4) != 0, day(), day(), r.IntN(6) == 0), p)
		}
		var bug, feature []uuid.UUID
		for _, tk := range g.Tickets {
			switch r.IntN(3) {
			case 0:
				bug = append(bug, tk)
			case 1:
				feature = append(feature, tk)
			}
		}
		testfactory.Label(t, db, g.ID, testfactory.LabelOpts{Name: "bug", Tickets: bug})
		testfactory.Label(t, db, g.ID, testfactory.LabelOpts{Name: "feature", Tickets: feature})
		if _, err := svc.CreatePolicy(ctx, caller, g.ID, capex.PolicyInput{Framework: fw, EffectiveFrom: "2026-01",
			Rules: json.RawMessage(`[{"id":"bug","match":"label:bug","classification":"opex","reason":"maintenance"},
			{"id":"feature","match":"label:feature OR label:bug","classification":"capex","reason":"product"}]`)}); err != nil {
			t.Fatal(err)
		}
		for _, i := range r.Perm(len(g.Tickets))[:4] {
			c := []string{"capex", "opex"}[r.IntN(2)]
			if _, err := svc.SetOverride(ctx, caller, g.Tickets[i], capex.OverrideInput{Classification: &c,
				Reason: testfactory.Ptr("override " + c)}); err != nil {
				t.Fatal(err)
			}
		}
		// compare checks the aggregates against the entries one by one.
		compare := func(stage string) {
			t.Helper()
			// The entries one by one: CapEx and all cents per project and per person.
			type sums struct{ capex, all int64 }
			byProject, byUser := map[uuid.UUID]*sums{}, map[uuid.UUID]*sums{}
			add := func(m map[uuid.UUID]*sums, id uuid.UUID, e capex.EntryLine) {
				if m[id] == nil {
					m[id] = &sums{}
				}
				m[id].all += e.AmountCents
				if e.Classification == capex.CapEx {
					m[id].capex += e.AmountCents
				}
			}
			var total sums
			page := domain.Page{Limit: 100}
			for {
				es, err := svc.Entries(ctx, caller, capex.EntriesQuery{Query: capex.Query{Period: march}}, page)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es.Items {
					add(byProject, e.ProjectID, e)
					add(byUser, e.UserID, e)
					total.all += e.AmountCents
					if e.Classification == capex.CapEx {
						total.capex += e.AmountCents
					}
				}
				if es.CapExAmountCents+es.OpExAmountCents != es.TotalAmountCents {
					t.Fatalf("%s %s: drill-down totals %+v", fw, stage, es.Totals)
				}
				if es.Next == nil {
					if es.CapExAmountCents != total.capex || es.TotalAmountCents != total.all {
						t.Errorf("%s %s: drill-down totals %+v, its entries CapEx %d of %d", fw, stage, es.Totals, total.capex, total.all)
					}
					break
				}
				page.After = *es.Next
			}
			if total.capex == 0 || total.capex == total.all {
				t.Logf("%s %s: the month is all one class (%d of %d)", fw, stage, total.capex, total.all)
			}
			for _, q := range []capex.Query{{Period: march}, {Period: march, GroupBy: capex.GroupUser},
				{Period: march, GroupBy: capex.GroupTeam}, {Period: march, IncludeUsers: true, IncludeBudget: true}} {
				rep, err := svc.Report(ctx, caller, q)
				if err != nil {
					t.Fatal(err)
				}
				if rep.CapExAmountCents != total.capex || rep.TotalAmountCents != total.all {
					t.Errorf("%s %s %+v: report %+v, the entries CapEx %d of %d", fw, stage, q, rep.Totals, total.capex, total.all)
				}
				if q.GroupBy == "" && q.IncludeUsers {
					for _, p := range *rep.Projects {
						if s := byProject[p.ProjectID]; s == nil || *p.CapExAmountCents != s.capex || p.TotalAmountCents != s.all {
							t.Errorf("%s %s: project %s CapEx %d of %d, the entries %+v", fw, stage, p.ProjectKey, *p.CapExAmountCents,
								p.TotalAmountCents, s)
						}
					}
				}
			}
			pr, err := svc.People(ctx, caller, capex.Query{Period: march})
			if err != nil {
				t.Fatal(err)
			}
			if len(pr.People) != len(byUser) {
				t.Errorf("%s %s: %d people, the entries %d", fw, stage, len(pr.People), len(byUser))
			}
			for _, p := range pr.People {
				if s := byUser[p.UserID]; s == nil || p.CapExAmountCents != s.capex || p.AmountCents != s.all {
					t.Errorf("%s %s: person %s CapEx %d of %d, the entries %+v", fw, stage, p.DisplayName, p.CapExAmountCents, p.AmountCents, s)
				}
			}
		}
		compare("open")
		if _, err := svc.Close(ctx, caller, g.ID, "2026-03"); err != nil {
			t.Fatal(err)
		}
		compare("closed")
	}
}
