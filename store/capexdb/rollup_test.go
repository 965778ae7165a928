package capexdb_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/capex/capextest"
	"tracker/store/capexdb"
	"tracker/store/storetest"
)

// randomOrg seeds one org with random teams, projects, rates, entries in
// every state and tags on every kind of entity, then changes it the ways
// the rollup must follow: approvals, edits and deletes of approved entries,
// rates added, changed and removed afterwards.
type randomOrg struct {
	id               uuid.UUID
	users, projects  []uuid.UUID
	teams            []uuid.UUID
	tickets, entries []uuid.UUID
}

func seedRandom(t *testing.T, f capextest.F, r *rand.Rand) randomOrg {
	g := f.Random(r, capextest.RandomOpts{Projects: 5, MaxBudgetCents: 1_000_000,
		First: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), Days: 100, Entries: 400,
		Statuses: []string{"Draft", "Submitted", "Approved", "Approved"}})
	o := randomOrg{id: g.ID, users: g.Users, projects: g.Projects, teams: g.Teams, tickets: g.Tickets, entries: g.Entries}
	const laterRate = capextest.LaterRate
	tag := func(kind string, id uuid.UUID) { f.RandomTags(r, o.id, kind, id) }
	f.RandomTags(r, o.id, "project", o.projects[:3]...)
	f.RandomTags(r, o.id, "user", o.users[:2]...)
	for _, i := range r.Perm(len(o.tickets))[:4] {
		tag("ticket", o.tickets[i])
	}
	for i := 0; i < 20; i++ {
		tag("time_entry", o.entries[i*7])
	}
	// Changes after the fact, straight in SQL: the triggers see every path.
	f.Exec(`UPDATE time_entries SET status = 'Approved', approved_by = user_id, approved_at = now()
		WHERE org_id = $1 AND status = 'Submitted' AND duration_minutes % 2 = 0`, o.id)
	f.Exec(`UPDATE time_entries SET duration_minutes = duration_minutes + 7 WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 5 = 0`, o.id)
	f.Exec(`UPDATE time_entries SET activity_type = 'Meeting', date = date + 20 WHERE org_id = $1 AND status = 'Approved' AND duration_minutes % 11 = 0`, o.id)
	f.Exec(`DELETE FROM time_entries WHERE org_id = $1 AND duration_minutes % 13 = 0`, o.id)
	f.Rate(o.id, o.users[2], 12345, laterRate)
	f.Rate(o.id, o.users[0], 777, "2026-02-28")
	f.Exec(`UPDATE labor_rates SET loaded_rate_cents = loaded_rate_cents + 333 WHERE org_id = $1 AND user_id = $2`, o.id, o.users[3])
	f.Exec(`DELETE FROM labor_rates WHERE org_id = $1 AND user_id = $2`, o.id, o.users[4])
	return o
}

func sortLines(ls []capexdb.Line) {
	slices.SortFunc(ls, func(a, b capexdb.Line) int {
		return cmp.Or(bytes.Compare(a.ProjectID[:], b.ProjectID[:]), cmp.Compare(fmt.Sprint(a.ByUser), fmt.Sprint(b.ByUser)),
			bytes.Compare(a.UserID[:], b.UserID[:]), cmp.Compare(fmt.Sprint(a.ByActivity), fmt.Sprint(b.ByActivity)),
			cmp.Compare(a.ActivityType, b.ActivityType))
	})
}

// TestRollupEqualsDirect compares the rollup-backed report with the
// straight computation over the entries, for random data, every grouping
// and every filter, in three months and two orgs.
func TestRollupEqualsDirect(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := capextest.F{T: t, DB: db}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	orgs := []randomOrg{seedRandom(t, f, r), seedRandom(t, f, r)}
	ctx := context.Background()
	groupings := []capexdb.Grouping{{}, {WithUsers: true}, {Full: true}, {OnlyUsers: true}}
	compared, nonEmpty := 0, 0
	for _, o := range orgs {
		filters := []capexdb.Filter{{}, {UserID: o.users[2]}, {ActivityType: "Meeting"}, {TeamID: o.teams[0]}, {CostCenterID: "CC-1"},
			{Restricted: true, Projects: o.projects[1:3]}, {Restricted: true, Projects: []uuid.UUID{}},
			{Tags: []capexdb.Tag{{Key: "k", Value: "a"}}}, {Tags: []capexdb.Tag{{Key: "k", Value: "b"}, {Key: "j", Value: "x"}}},
			{Tags: []capexdb.Tag{{Key: "j", Value: "x"}}, UserID: o.users[1]}, {Tags: []capexdb.Tag{{Key: "none", Value: "x"}}},
			{OnlyTickets: true, Tickets: o.tickets[:len(o.tickets)/2]},
			{OnlyTickets: true, Tickets: o.tickets[1:], Restricted: true, Projects: o.projects[:2], UserID: o.users[0]},
			{OnlyTickets: true, Tickets: []uuid.UUID{}}}
		for _, month := range []time.Month{2, 3, 4} {
			from := time.Date(2026, month, 1, 0, 0, 0, 0, time.UTC)
			for fi, flt := range filters {
				flt.OrgID, flt.From, flt.To = o.id, from, from.AddDate(0, 1, 0)
				for _, g := range groupings {
					got, err := capexdb.Aggregate(ctx, db.Q(), flt, g)
					if err != nil {
						t.Fatal(err)
					}
					want, err := capexdb.AggregateDirect(ctx, db.Q(), flt, g)
					if err != nil {
						t.Fatal(err)
					}
					sortLines(got)
					sortLines(want)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("month %d filter %d grouping %+v:\n got %+v\nwant %+v", month, fi, g, got, want)
					}
					compared++
					if len(want) > 0 {
						nonEmpty++
					}
				}
			}
			got, err := capexdb.Spent(ctx, db.Q(), o.id, o.projects, from, from.AddDate(0, 1, 0))
			if err != nil {
				t.Fatal(err)
			}
			want, err := capexdb.SpentDirect(ctx, db.Q(), o.id, o.projects, from, from.AddDate(0, 1, 0))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("spent month %d: got %v want %v", month, got, want)
			}
		}
	}
	if nonEmpty < compared/2 {
		t.Fatalf("only %d of %d comparisons had data", nonEmpty, compared)
	}
}
