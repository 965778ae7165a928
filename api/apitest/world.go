package apitest

import (
	"testing"

	"tracker/internal/testfactory"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"
)

// World is the fixture most API tests start from: an org with a member of
// every role, a project (the Reporter assigned to it, a second Reporter
// not), a ticket in it, and a registered user outside the org.
type World struct {
	Env                          *Env
	Owner, Admin, Member, Viewer User
	Reporter, UnassignedReporter User
	Outsider                     User
	Project                      projectdb.Row
	Ticket                       ticketdb.Row
}

// NewWorld builds the app with o (its feature modules) and the world in it.
func NewWorld(t testing.TB, o Options) World {
	t.Helper()
	env := New(t, o)
	w := World{Env: env, Owner: env.Register("Owner")}
	w.Admin = env.Member(w.Owner, "admin")
	w.Member = env.Member(w.Owner, "member")
	w.Viewer = env.Member(w.Owner, "viewer")
	w.Reporter = env.Member(w.Owner, "reporter")
	w.UnassignedReporter = env.Member(w.Owner, "reporter")
	w.Outsider = env.Register("Outsider")
	w.Project = testfactory.Project(t, env.DB, w.Owner.OrgID, testfactory.ProjectOpts{})
	testfactory.Assign(t, env.DB, w.Project, w.Reporter.ID)
	w.Ticket = testfactory.Ticket(t, env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{})
	return w
}
