package tickets_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/tickets"
	"tracker/domain/search"
	"tracker/domain/statusflow"
	"tracker/domain/ticket"
)

// fixture is one database with an org (owned by owner), a member of every
// role, an outsider (a registered user in no shared org) and a project.
type fixture struct {
	env                                              *apitest.Env
	owner, admin, member, reporter, viewer, outsider apitest.User
	project                                          uuid.UUID // key ABC; reporter assigned
}

func setup(t *testing.T) *fixture {
	t.Helper()
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock))}
	}})
	f := &fixture{env: env, owner: env.Register("Owner")}
	f.admin = env.Member(f.owner, "admin")
	f.member = env.Member(f.owner, "member")
	f.reporter = env.Member(f.owner, "reporter")
	f.viewer = env.Member(f.owner, "viewer")
	f.outsider = env.Register("Outsider")
	f.project = f.newProject(t, "ABC")
	f.assign(t, f.project, f.reporter)
	return f
}

// newProject makes a project in the owner's org with the test factory:
// projects are another module's API.
func (f *fixture) newProject(t *testing.T, key string) uuid.UUID {
	t.Helper()
	return f.projectIn(t, f.owner.OrgID, key)
}

func (f *fixture) projectIn(t *testing.T, orgID uuid.UUID, key string) uuid.UUID {
	t.Helper()
	return testfactory.Project(t, f.env.DB, orgID, testfactory.ProjectOpts{Key: key, Name: "Project " + key}).ID
}

func (f *fixture) assign(t *testing.T, projectID uuid.UUID, u apitest.User) {
	t.Helper()
	testfactory.Assign(t, f.env.DB, projectdb.Row{ID: projectID, OrgID: f.owner.OrgID}, u.ID)
}

// workflow creates a workflow in the owner's org and assigns it to project.
// Its statuses are all of category todo.
func (f *fixture) workflow(t *testing.T, project uuid.UUID, name, enforcement string, statuses []string, transitions [][2]string) uuid.UUID {
	t.Helper()
	o := testfactory.WorkflowOpts{Name: name, Enforcement: enforcement, Transitions: []statusflow.Transition{}}
	for _, s := range statuses {
		o.Statuses = append(o.Statuses, statusflow.Status{Name: s, Category: "todo"})
	}
	for _, x := range transitions {
		o.Transitions = append(o.Transitions, statusflow.Transition{From: x[0], To: x[1]})
	}
	wf := testfactory.Workflow(t, f.env.DB, f.owner.OrgID, o)
	testfactory.UseWorkflow(t, f.env.DB, projectdb.Row{ID: project, OrgID: f.owner.OrgID}, wf.ID)
	return wf.ID
}

func (f *fixture) sprint(t *testing.T, project uuid.UUID) uuid.UUID {
	t.Helper()
	return testfactory.Sprint(t, f.env.DB, projectdb.Row{ID: project, OrgID: f.owner.OrgID}, testfactory.SprintOpts{
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 14, 0, 0, 0, 0, time.UTC)}).ID
}

// comment adds a comment "hi" by the owner (who reports the tickets these
// tests make) to a ticket of the owner's org.
func (f *fixture) comment(t *testing.T, ticketID uuid.UUID) {
	t.Helper()
	testfactory.Comment(t, f.env.DB, ticketdb.Row{ID: ticketID, OrgID: f.owner.OrgID}, f.owner.ID, testfactory.CommentOpts{Body: "hi"})
}

func (f *fixture) create(t *testing.T, token string, project uuid.UUID, body map[string]any) ticket.Ticket {
	t.Helper()
	var tk ticket.Ticket
	f.env.Do("POST", "/api/v1/projects/"+project.String()+"/tickets", token, body).Expect(t, 201).Decode(t, &tk)
	return tk
}

func (f *fixture) ticket(t *testing.T, title string) ticket.Ticket {
	t.Helper()
	return f.create(t, f.owner.Token, f.project, map[string]any{"title": title})
}

// outbox counts the outbox rows of topic about entity id (data.id).
func (f *fixture) outbox(t *testing.T, topic string, id uuid.UUID) int {
	t.Helper()
	var n int
	f.env.ScanRow(t, &n, `SELECT count(*) FROM outbox WHERE topic = $1 AND payload->'data'->>'id' = $2`, topic, id.String())
	return n
}

func path(format string, args ...any) string { return "/api/v1" + fmt.Sprintf(format, args...) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
