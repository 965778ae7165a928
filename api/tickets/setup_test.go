package tickets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/tickets"
	"tracker/domain/search"
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

func (f *fixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.env.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fixture) scalar(t *testing.T, dst any, sql string, args ...any) {
	t.Helper()
	if err := f.env.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(dst); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// newProject inserts a project into the owner's org directly: projects are
// another module's API.
func (f *fixture) newProject(t *testing.T, key string) uuid.UUID {
	t.Helper()
	return f.projectIn(t, f.owner.OrgID, key)
}

func (f *fixture) projectIn(t *testing.T, orgID uuid.UUID, key string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	f.exec(t, `INSERT INTO projects (id, org_id, key, name) VALUES ($1, $2, $3, $4)`, id, orgID, key, "Project "+key)
	return id
}

func (f *fixture) assign(t *testing.T, projectID uuid.UUID, u apitest.User) {
	t.Helper()
	f.exec(t, `INSERT INTO project_members (org_id, project_id, user_id) SELECT org_id, id, $2 FROM projects WHERE id = $1`, projectID, u.ID)
}

// workflow creates a workflow in the owner's org and assigns it to project.
func (f *fixture) workflow(t *testing.T, project uuid.UUID, name, enforcement string, statuses []string, transitions [][2]string) uuid.UUID {
	t.Helper()
	type st struct {
		Name     string `json:"name"`
		Category string `json:"category"`
	}
	type tr struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	var ss []st
	for _, s := range statuses {
		ss = append(ss, st{s, "todo"})
	}
	ts := []tr{}
	for _, x := range transitions {
		ts = append(ts, tr{x[0], x[1]})
	}
	sj, _ := json.Marshal(ss)
	tj, _ := json.Marshal(ts)
	id := uuid.Must(uuid.NewV7())
	f.exec(t, `INSERT INTO workflows (id, org_id, name, statuses, transitions, enforcement) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, f.owner.OrgID, name, string(sj), string(tj), enforcement)
	f.exec(t, `UPDATE projects SET workflow_id = $2 WHERE id = $1`, project, id)
	return id
}

func (f *fixture) sprint(t *testing.T, project uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	f.exec(t, `INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date)
	           SELECT $1, org_id, id, 'Sprint', '2026-01-01', '2026-01-14' FROM projects WHERE id = $2`, id, project)
	return id
}

func (f *fixture) comment(t *testing.T, ticketID uuid.UUID) {
	t.Helper()
	f.exec(t, `INSERT INTO comments (id, org_id, ticket_id, author_id, body) SELECT $1, org_id, id, reporter_id, 'hi' FROM tickets WHERE id = $2`,
		uuid.Must(uuid.NewV7()), ticketID)
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
	f.scalar(t, &n, `SELECT count(*) FROM outbox WHERE topic = $1 AND payload->'data'->>'id' = $2`, topic, id.String())
	return n
}

func path(format string, args ...any) string { return "/api/v1" + fmt.Sprintf(format, args...) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
