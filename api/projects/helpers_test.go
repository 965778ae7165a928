package projects_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.NewProjects(t)
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

func defaultWorkflow(t *testing.T, env *apitest.Env, org uuid.UUID) string {
	t.Helper()
	return apitest.Scalar[uuid.UUID](t, env, `SELECT id FROM workflows WHERE org_id = $1 AND name = 'Default'`, org).String()
}

// auditCount counts the audit rows of one project with action.
func auditCount(t *testing.T, env *apitest.Env, projectID, action string) int {
	t.Helper()
	return apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'project' AND entity_id = $1 AND action = $2`, projectID, action)
}
