package apitest

import (
	"testing"

	"tracker/domain/testfactory"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"
)

// Org is the fixture of tests about roles: an org with a member of every
// role and a registered user outside it. It has two Reporters so that a
// test (NewWorld does) can assign one to a project and leave the other off.
type Org struct {
	Env                          *Env
	Owner, Admin, Member, Viewer User
	Reporter, UnassignedReporter User
	Outsider                     User
}

// NewOrg builds the app with o (its feature modules) and the org in it.
func NewOrg(t testing.TB, o Options) Org {
	t.Helper()
	env := New(t, o)
	g := Org{Env: env, Owner: env.Register("Owner")}
	g.Admin = env.Member(g.Owner, "admin")
	g.Member = env.Member(g.Owner, "member")
	g.Viewer = env.Member(g.Owner, "viewer")
	g.Reporter = env.Member(g.Owner, "reporter")
	g.UnassignedReporter = env.Member(g.Owner, "reporter")
	g.Outsider = env.Register("Outsider")
	return g
}

// World is the fixture most API tests start from: the Org, a project in it
// (the Reporter assigned to it, the UnassignedReporter not) and a ticket in
// the project.
type World struct {
	Org
	Project projectdb.Row
	Ticket  ticketdb.Row
}

// NewWorld builds the app with o (its feature modules) and the world in it.
func NewWorld(t testing.TB, o Options) World {
	t.Helper()
	w := World{Org: NewOrg(t, o)}
	w.Project = testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{})
	testfactory.Assign(t, w.Env.DB, w.Project, w.Reporter.ID)
	w.Ticket = testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{})
	return w
}

// Route is one route of a resource for CheckAccess: a request, and whether
// it writes.
type Route struct {
	Method, Path string
	Body         any
	Write        bool
}

// CheckAccess holds each route to the authorization rule every resource
// keeps: the Outsider gets 404 (existence is not revealed), the Viewer 403
// on a write and 200 on a read. One subtest a route.
func (g Org) CheckAccess(t *testing.T, routes []Route) {
	t.Helper()
	for _, r := range routes {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			ExpectCode(t, g.Env.Do(r.Method, r.Path, g.Outsider.Token, r.Body), 404, "not_found")
			if r.Write {
				ExpectCode(t, g.Env.Do(r.Method, r.Path, g.Viewer.Token, r.Body), 403, "FORBIDDEN")
			} else {
				g.Env.Do(r.Method, r.Path, g.Viewer.Token, nil).Expect(t, 200)
			}
		})
	}
}
