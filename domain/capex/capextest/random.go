// Package capextest seeds the random orgs of the capitalization property
// tests (the report and the rollup must agree on any data): a generator of
// capex data, not a fixture. Its rows come from domain/testfactory, like
// every test's.
package capextest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/ticketdb"
)

// F seeds into one test's database; any error fails the test.
type F struct {
	T  testing.TB
	DB *store.DB
}

// Activities are the activity types random entries draw from.
var Activities = []string{"Coding", "CodeReview", "BugFixing", "Testing", "Documentation", "Design", "Meeting", "Planning"}

// LaterRate is the date no random rate takes for Users[2], so a test can
// add a rate for them on it after the fact (one rate a day).
const LaterRate = "2026-03-17"

// RandomOpts shape a random org.
type RandomOpts struct {
	Projects       int  // each with three tickets
	Phases         bool // give projects a random development phase
	RepeatedNames  bool // users named "User 0".."User 3" at random (ties broken by id)
	MaxBudgetCents int
	First          time.Time // entries and rates fall on First plus up to Days-1 days
	Days           int
	Entries        int
	Statuses       []string // drawn uniformly for entries
}

// RandomOrg is an org seeded by Random: its owner and ids.
type RandomOrg struct {
	ID, Owner                       uuid.UUID
	Users, Teams, Projects, Tickets []uuid.UUID
	Entries                         []uuid.UUID
}

// Random seeds one org with six member users, three teams, o.Projects
// projects with random cost centers, budgets and teams (three tickets each),
// random labor rates (none for Users[0]) and o.Entries time entries in
// random states. Tags and changes after the fact are the caller's.
func (f F) Random(r *rand.Rand, o RandomOpts) RandomOrg {
	f.T.Helper()
	t, db := f.T, f.DB
	user := func(name string) uuid.UUID { return testfactory.User(t, db, testfactory.UserOpts{Name: name}).ID }
	g := RandomOrg{Owner: user("Owner")}
	g.ID = testfactory.Org(t, db, g.Owner, testfactory.OrgOpts{}).ID
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("User %d", i)
		if o.RepeatedNames {
			name = fmt.Sprintf("User %d", r.IntN(4))
		}
		u := user(name)
		testfactory.Member(t, db, g.ID, u, testfactory.MemberOpts{Role: "member"})
		g.Users = append(g.Users, u)
	}
	for i := 0; i < 3; i++ {
		g.Teams = append(g.Teams, testfactory.Team(t, db, g.ID, testfactory.TeamOpts{Name: fmt.Sprintf("Team %d", i)}).ID)
	}
	phases := []string{"Preliminary", "ApplicationDevelopment", "PostImplementation"}
	periods := []string{"Monthly", "Quarterly", "Yearly", "Fixed"}
	var tickets []ticketdb.Row
	for i := 0; i < o.Projects; i++ {
		p := testfactory.ProjectOpts{Key: fmt.Sprintf("P%d", i), CostCenterID: testfactory.Ptr(fmt.Sprintf("CC-%d", r.IntN(2)))}
		if o.Phases {
			p.DevelopmentPhase = testfactory.Ptr(phases[r.IntN(3)])
		}
		p.BudgetCents, p.BudgetPeriod = testfactory.Ptr(int64(r.IntN(o.MaxBudgetCents))), testfactory.Ptr(periods[r.IntN(4)])
		if r.IntN(4) > 0 {
			p.TeamID = &g.Teams[r.IntN(3)]
		}
		if r.IntN(5) == 0 {
			p.BudgetCents, p.BudgetPeriod = nil, nil
		}
		project := testfactory.Project(t, db, g.ID, p)
		g.Projects = append(g.Projects, project.ID)
		for k := 0; k < 3; k++ {
			tk := testfactory.Ticket(t, db, project, g.Owner, testfactory.TicketOpts{Title: "Ticket"})
			tickets = append(tickets, tk)
			g.Tickets = append(g.Tickets, tk.ID)
		}
	}
	day := func() string {
		return o.First.AddDate(0, 0, r.IntN(o.Days)).Format(time.DateOnly)
	}
	for i, u := range g.Users[1:] { // the first user has no rate at all
		dates := map[string]bool{}
		if i+1 == 2 {
			dates[LaterRate] = true
		}
		for k := r.IntN(4); k > 0; k-- {
			if d := day(); !dates[d] {
				dates[d] = true
				f.Rate(g.ID, u, int64(1000+r.IntN(20000)), d)
			}
		}
	}
	for i := 0; i < o.Entries; i++ {
		tk := tickets[r.IntN(len(tickets))]
		u := g.Users[r.IntN(len(g.Users))]
		g.Entries = append(g.Entries, testfactory.TimeEntry(t, db, tk, u, testfactory.TimeEntryOpts{Date: testfactory.Day(day()),
			Minutes: 1 + r.IntN(600), Activity: Activities[r.IntN(len(Activities))], Status: o.Statuses[r.IntN(len(o.Statuses))]}).ID)
	}
	return g
}

// RandomTags tags each entity with k=a or k=b and, half the time, j=x.
func (f F) RandomTags(r *rand.Rand, orgID uuid.UUID, kind string, ids ...uuid.UUID) {
	f.T.Helper()
	for _, id := range ids {
		f.Tag(orgID, kind, id, "k", []string{"a", "b"}[r.IntN(2)])
		if r.IntN(2) == 0 {
			f.Tag(orgID, kind, id, "j", "x")
		}
	}
}

// Tag tags an entity (testfactory.Tag).
func (f F) Tag(orgID uuid.UUID, entityType string, entityID uuid.UUID, key, value string) {
	f.T.Helper()
	testfactory.Tag(f.T, f.DB, orgID, testfactory.TagOpts{EntityType: entityType, EntityID: entityID, Key: key, Value: value})
}

// Rate records a labor rate from date, YYYY-MM-DD (testfactory.LaborRate).
func (f F) Rate(orgID, userID uuid.UUID, cents int64, date string) {
	f.T.Helper()
	testfactory.LaborRate(f.T, f.DB, orgID, userID, testfactory.LaborRateOpts{Cents: cents, EffectiveDate: testfactory.Day(date)})
}

// Exec runs a statement: the property tests change their random data after
// the fact in SQL (soft deletes, moved entries, edited rates) to reach
// states the inserts alone do not.
func (f F) Exec(sql string, args ...any) {
	f.T.Helper()
	if _, err := f.DB.Q().Exec(context.Background(), sql, args...); err != nil {
		f.T.Fatalf("%s: %v", sql, err)
	}
}
