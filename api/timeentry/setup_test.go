package timeentry_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	timeentryapi "tracker/api/timeentry"
	"tracker/domain/testfactory"
	"tracker/domain/timeentry"
	"tracker/store/projectdb"
)

// world is apitest.NewWorld (its project has w.ticket) with a second
// member, a second ticket and a second project with a ticket. The
// world's Reporter is assigned to the project; these tests' reporter is
// the one who is not.
type world struct {
	env                                      *apitest.Env
	owner, admin, member, member2            apitest.User
	reporter, viewer, outsider               apitest.User
	project, ticket, ticket2, other, otherTk uuid.UUID
}

func setup(t *testing.T) *world {
	t.Helper()
	a := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{timeentryapi.New(timeentry.New(e.DB, e.Clock))}
	}})
	w := &world{env: a.Env, owner: a.Owner, admin: a.Admin, member: a.Member, member2: a.Env.Member(a.Owner, "member"),
		reporter: a.UnassignedReporter, viewer: a.Viewer, outsider: a.Outsider, project: a.Project.ID, ticket: a.Ticket.ID}
	w.ticket2 = w.newTicket(t, w.project, w.owner)
	w.other = w.newProject(t, w.owner.OrgID, "OTHER")
	w.otherTk = w.newTicket(t, w.other, w.owner)
	return w
}

func today(days int) string {
	return time.Now().UTC().AddDate(0, 0, days).Format("2006-01-02")
}

// body is a valid create body for u on w's ticket, with overrides.
func (w *world) body(u apitest.User, over map[string]any) map[string]any {
	b := map[string]any{"user_id": u.ID, "ticket_id": w.ticket, "project_id": w.project, "date": today(0),
		"duration_minutes": 90, "activity_type": "Coding", "description": "work"}
	for k, v := range over {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// create logs an entry as u for u.
func (w *world) create(t *testing.T, u apitest.User, over map[string]any) timeentry.Entry {
	t.Helper()
	var e timeentry.Entry
	w.env.Do("POST", "/api/v1/time-entries", u.Token, w.body(u, over)).Expect(t, 201).Decode(t, &e)
	return e
}

func (w *world) do(method, path string, u apitest.User, body any) apitest.Resp {
	return w.env.Do(method, path, u.Token, body)
}

func entryPath(e timeentry.Entry, suffix string) string {
	return "/api/v1/time-entries/" + e.ID.String() + suffix
}

// newProject makes a project in orgID with the test factory (projects are
// another module's API).
func (w *world) newProject(t *testing.T, orgID uuid.UUID, key string) uuid.UUID {
	t.Helper()
	return testfactory.Project(t, w.env.DB, orgID, testfactory.ProjectOpts{Key: key}).ID
}

// newTicket makes a ticket in project reported by u.
func (w *world) newTicket(t *testing.T, project uuid.UUID, u apitest.User) uuid.UUID {
	t.Helper()
	return testfactory.Ticket(t, w.env.DB, projectdb.Row{ID: project}, u.ID, testfactory.TicketOpts{}).ID
}
