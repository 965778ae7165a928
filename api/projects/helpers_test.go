package projects_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/projects"
	statusflowapi "tracker/api/statusflow"
	"tracker/domain/project"
	"tracker/domain/statusflow"
)

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{
			projects.New(project.New(e.DB, e.Clock)),
			statusflowapi.New(statusflow.New(e.DB, e.Clock)),
		}
	}})
}

// createProject makes a project in org through the API and returns it.
func createProject(t *testing.T, env *apitest.Env, token string, org uuid.UUID, key string) map[string]any {
	t.Helper()
	return env.Do("POST", "/api/v1/projects", token, map[string]any{"org_id": org, "key": key, "name": "Project " + key}).
		Expect(t, 201).Map(t)
}

func pid(t *testing.T, p map[string]any) string {
	t.Helper()
	s, ok := p["id"].(string)
	if !ok {
		t.Fatalf("no id in %v", p)
	}
	return s
}

func exec(t *testing.T, env *apitest.Env, sql string, args ...any) {
	t.Helper()
	if _, err := env.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func scalar[T any](t *testing.T, env *apitest.Env, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := env.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// The tickets and sprints APIs are other packages: rows go in with SQL.

func insertTicket(t *testing.T, env *apitest.Env, projectID string, reporter uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	exec(t, env, `WITH p AS (UPDATE projects SET ticket_counter = ticket_counter + 1 WHERE id = $2 RETURNING org_id, ticket_counter)
		INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id)
		SELECT $1, p.org_id, $2, p.ticket_counter, 'T', 'Backlog', $3 FROM p`, id, projectID, reporter)
	return id
}

func insertSprint(t *testing.T, env *apitest.Env, projectID string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	exec(t, env, `INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date)
		SELECT $1, org_id, id, 'S', $3, $3 FROM projects WHERE id = $2`, id, projectID, time.Now().UTC().Format("2006-01-02"))
	return id
}

func insertComment(t *testing.T, env *apitest.Env, ticketID, author uuid.UUID) {
	t.Helper()
	exec(t, env, `INSERT INTO comments (id, org_id, ticket_id, author_id, body)
		SELECT $1, org_id, id, $3, 'c' FROM tickets WHERE id = $2`, uuid.Must(uuid.NewV7()), ticketID, author)
}

func insertTeam(t *testing.T, env *apitest.Env, org uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	exec(t, env, `INSERT INTO teams (id, org_id, name) VALUES ($1, $2, 'Team')`, id, org)
	return id
}

func defaultWorkflow(t *testing.T, env *apitest.Env, org uuid.UUID) string {
	t.Helper()
	return scalar[uuid.UUID](t, env, `SELECT id FROM workflows WHERE org_id = $1 AND name = 'Default'`, org).String()
}

// auditCount counts the audit rows of one project with action.
func auditCount(t *testing.T, env *apitest.Env, projectID, action string) int {
	t.Helper()
	return scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'project' AND entity_id = $1 AND action = $2`, projectID, action)
}

func expectCode(t *testing.T, r apitest.Resp, status int, code string) {
	t.Helper()
	r.Expect(t, status)
	if got := r.ErrorCode(); got != code {
		t.Fatalf("code %q, want %q; body %s", got, code, r.Body)
	}
}
