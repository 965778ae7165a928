package capextest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
)

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
	g := RandomOrg{Owner: f.User("Owner")}
	g.ID = f.Org(g.Owner)
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("User %d", i)
		if o.RepeatedNames {
			name = fmt.Sprintf("User %d", r.IntN(4))
		}
		u := f.User(name)
		f.Member(g.ID, u, "member")
		g.Users = append(g.Users, u)
	}
	for i := 0; i < 3; i++ {
		g.Teams = append(g.Teams, f.Team(g.ID, fmt.Sprintf("Team %d", i)))
	}
	phases := []string{"Preliminary", "ApplicationDevelopment", "PostImplementation"}
	periods := []string{"Monthly", "Quarterly", "Yearly", "Fixed"}
	for i := 0; i < o.Projects; i++ {
		p := Project{CostCenterID: Ptr(fmt.Sprintf("CC-%d", r.IntN(2)))}
		if o.Phases {
			p.DevelopmentPhase = Ptr(phases[r.IntN(3)])
		}
		p.BudgetCents, p.BudgetPeriod = Ptr(int64(r.IntN(o.MaxBudgetCents))), Ptr(periods[r.IntN(4)])
		if r.IntN(4) > 0 {
			p.TeamID = &g.Teams[r.IntN(3)]
		}
		if r.IntN(5) == 0 {
			p.BudgetCents, p.BudgetPeriod = nil, nil
		}
		pid := f.Project(g.ID, p)
		g.Projects = append(g.Projects, pid)
		for k := 0; k < 3; k++ {
			g.Tickets = append(g.Tickets, f.Ticket(pid, g.Owner))
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
		tk := r.IntN(len(g.Tickets))
		g.Entries = append(g.Entries, f.Entry(Entry{OrgID: g.ID, UserID: g.Users[r.IntN(len(g.Users))],
			ProjectID: g.Projects[tk/3], TicketID: g.Tickets[tk], Date: day(), Minutes: 1 + r.IntN(600),
			Activity: Activities[r.IntN(len(Activities))], Status: o.Statuses[r.IntN(len(o.Statuses))]}))
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
