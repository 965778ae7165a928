// Left out of mutation runs (make mutate builds with the mutate tag): this
// test takes most of the package's run time, and a mutation run repeats the
// package's tests once per mutant.

//go:build !mutate

package capex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/capextest"
	"tracker/domain/timeentry"
	"tracker/store/capexdb"
	"tracker/store/storetest"
)

// reportOrg is one randomized org: its owner (the caller) and its ids.
type reportOrg struct {
	id, owner              uuid.UUID
	users, projects, teams []uuid.UUID
	tickets                []uuid.UUID
}

// seedReportOrg fills an org with random teams, projects, tickets, rates,
// entries in every state and tags on every kind of entity, then changes it
// the ways the rollup must follow: approvals through the approving use case,
// un-approvals and rejections (an approved entry back to Submitted or
// Draft), edits and deletes of approved entries, labor rates added,
// changed and removed (retroactive repricing), and project attribute
// changes (team, phase, capitalization type, cost center, budget), which the
// rollup does not store and the report joins when read.
func seedReportOrg(t *testing.T, f capextest.F, entries *timeentry.Service, r *rand.Rand) reportOrg {
	t.Helper()
	g := f.Random(r, capextest.RandomOpts{Projects: 6, Phases: true, RepeatedNames: true, MaxBudgetCents: 2_000_000,
		First: time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC), Days: 90, Entries: 300,
		Statuses: []string{"Draft", "Submitted", "Submitted", "Approved"}})
	o := reportOrg{id: g.ID, owner: g.Owner, users: g.Users, projects: g.Projects, teams: g.Teams, tickets: g.Tickets}
	const laterRate = capextest.LaterRate
	ids := g.Entries
	tag := func(kind string, id uuid.UUID) { f.RandomTags(r, o.id, kind, id) }
	f.RandomTags(r, o.id, "project", o.projects[:3]...)
	f.RandomTags(r, o.id, "user", o.users[:2]...)
	tag("team", o.teams[0])
	for _, i := range r.Perm(len(o.tickets))[:5] {
		tag("ticket", o.tickets[i])
	}
	for _, i := range r.Perm(len(ids))[:25] {
		tag("time_entry", ids[i])
	}
	for _, u := range o.users[:4] {
		f.Tag(o.id, "user", u, DepartmentTag, fmt.Sprintf("Dept %d", r.IntN(3)))
	}
	// Approvals through the use case: the rollup moves in the approving
	// transaction.
	caller := domain.Principal{UserID: o.owner, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	for _, id := range ids {
		if r.IntN(2) == 0 {
			if _, err := entries.Approve(context.Background(), caller, id); err != nil && domain.AsError(err).Kind != domain.KindConflict { // Draft or Approved already
				t.Fatalf("approve: %v", err)
			}
		}
	}
	// Every other change, straight in SQL: the triggers see every path.
	f.Exec(`UPDATE time_entries SET status = 'Submitted', approved_by = NULL, approved_at = NULL
		WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 9 = 0`, o.id) // un-approved
	f.Exec(`UPDATE time_entries SET status = 'Draft', approved_by = NULL, approved_at = NULL
		WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 10 = 0`, o.id) // rejected
	f.Exec(`UPDATE time_entries SET duration_minutes = duration_minutes + 7 WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 5 = 0`, o.id)
	f.Exec(`UPDATE time_entries SET activity_type = 'Meeting', date = date + 20 WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 11 = 0`, o.id)
	f.Exec(`UPDATE time_entries SET project_id = $2, ticket_id = $3 WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 17 = 0`,
		o.id, o.projects[5], o.tickets[15])
	f.Exec(`DELETE FROM time_entries WHERE org_id = $1 AND duration_minutes % 13 = 0`, o.id)
	f.Rate(o.id, o.users[2], 12345, laterRate)
	f.Rate(o.id, o.users[0], 777, "2026-02-28")
	f.Exec(`UPDATE labor_rates SET loaded_rate_cents = loaded_rate_cents + 333 WHERE org_id = $1 AND user_id = $2`, o.id, o.users[3])
	f.Exec(`UPDATE labor_rates l SET effective_date = l.effective_date - 25
		WHERE l.id = (SELECT id FROM labor_rates WHERE org_id = $1 AND user_id = $2 ORDER BY effective_date DESC LIMIT 1)
		  AND NOT EXISTS (SELECT 1 FROM labor_rates o WHERE o.org_id = $1 AND o.user_id = $2 AND o.effective_date = l.effective_date - 25)`,
		o.id, o.users[5]) // a rate moved back: the months between are repriced
	f.Exec(`DELETE FROM labor_rates WHERE org_id = $1 AND user_id = $2`, o.id, o.users[4])
	f.Exec(`UPDATE projects SET team_id = $2, development_phase = 'ApplicationDevelopment', cost_center_id = 'CC-1' WHERE id = $3 AND org_id = $1`,
		o.id, o.teams[1], o.projects[0])
	f.Exec(`UPDATE projects SET team_id = NULL, capitalization_type = 'Expensed', budget_cents = 123456, budget_period = 'Monthly' WHERE id = $2 AND org_id = $1`,
		o.id, o.projects[1])
	return o
}

// TestRollupReportEqualsDirect renders every report mode and the CSV of
// randomized orgs twice, from the rollup (what the service serves) and from
// the straight computation over the entries, and requires identical bytes.
func TestRollupReportEqualsDirect(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := capextest.F{T: t, DB: db}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 42))
	entries := timeentry.New(db, domain.SystemClock{})
	svc := New(db, domain.SystemClock{})
	orgs := []reportOrg{seedReportOrg(t, f, entries, r), seedReportOrg(t, f, entries, r)}
	ctx := context.Background()
	compared, nonEmpty := 0, 0
	for _, o := range orgs {
		caller := domain.Principal{UserID: o.owner, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
		restrict := func(fl *capexdb.Filter, on bool) { // an API key limited to projects
			if on {
				fl.Restricted, fl.Projects = true, o.projects[1:4]
			}
		}
		// compare renders raw from the rollup (through the service, or
		// straight from the rollup for an API key, which the service takes
		// from the principal) and from the direct computation, requires
		// identical bytes and returns them.
		compare := func(what string, raw RawQuery, keyed bool,
			served func(Query) ([]byte, error), render func(source, Query, capexdb.Filter) ([]byte, error)) []byte {
			qr, err := ParseQuery(raw)
			if err != nil {
				t.Fatal(err)
			}
			fl, err := svc.filterFor(ctx, db.Q(), caller, &qr)
			if err != nil {
				t.Fatal(err)
			}
			restrict(&fl, keyed)
			var got []byte
			if keyed {
				got, err = render(rollup, qr, fl)
			} else {
				got, err = served(qr)
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := render(direct, qr, fl)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s %+v keyed=%v:\n got %s\nwant %s", what, raw, keyed, got, want)
			}
			compared++
			return want
		}
		served := func(qr Query) ([]byte, error) {
			rep, err := svc.Report(ctx, caller, qr)
			if err != nil {
				return nil, err
			}
			return json.Marshal(rep)
		}
		report := func(src source, qr Query, fl capexdb.Filter) ([]byte, error) {
			rep, err := src.report(ctx, db.Q(), qr, fl, nil)
			if err != nil {
				return nil, err
			}
			return json.Marshal(rep)
		}
		servedCSV := func(qr Query) ([]byte, error) { return svc.ExportCSV(ctx, caller, qr) }
		csv := func(src source, qr Query, fl capexdb.Filter) ([]byte, error) {
			return src.csv(ctx, db.Q(), qr, fl, nil)
		}
		tags := []string{"", "k:a", "k:b", "k:b,j:x", "j:x", "none:x"}
		narrow := []RawQuery{{}, {UserID: o.users[2]}, {ActivityType: "Meeting"}, {TeamID: o.teams[1]}, {CostCenterID: "CC-1"}}
		for _, month := range []string{"2026-02", "2026-03", "2026-04"} {
			for _, keyed := range []bool{false, true} {
				for _, tag := range tags {
					for ni, n := range narrow {
						if ni > 0 && tag != "" && tag != "k:b,j:x" {
							continue // narrowing filters with no tag and with two tags
						}
						for _, group := range []string{GroupNone, GroupTeam, GroupUser} {
							for _, flags := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
								raw := n
								raw.Period, raw.GroupBy, raw.Tag, raw.IncludeUsers, raw.IncludeBudget = month, group, tag, flags[0], flags[1]
								var want Totals
								if err := json.Unmarshal(compare("report", raw, keyed, served, report), &want); err != nil {
									t.Fatal(err)
								}
								if want.TotalAmountCents != 0 {
									nonEmpty++
								}
							}
						}
						raw := n
						raw.Period, raw.Tag = month, tag
						compare("CSV", raw, keyed, servedCSV, csv)
					}
				}
			}
		}
	}
	if nonEmpty < compared/3 {
		t.Fatalf("only %d of %d reports had amounts", nonEmpty, compared)
	}
	t.Logf("%d reports and CSVs compared, %d with amounts", compared, nonEmpty)
}
