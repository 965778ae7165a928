package statusflow_test

import (
	"testing"

	"tracker/api/apitest"
)

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.NewProjects(t)
}

// newOrg is the app with the org of every role (apitest.Org) in it, and
// the path of that org's workflows.
func newOrg(t *testing.T) (apitest.Org, string) {
	t.Helper()
	g := apitest.NewProjectsOrg(t)
	return g, "/api/v1/orgs/" + g.Owner.OrgID.String() + "/workflows"
}

type st = map[string]string

// body is a valid workflow definition named name.
func body(name string) map[string]any {
	return map[string]any{
		"name":        name,
		"statuses":    []st{{"name": "Open", "category": "todo"}, {"name": "Doing", "category": "in_progress"}, {"name": "Closed", "category": "done"}},
		"transitions": []st{{"from": "Open", "to": "Doing"}, {"from": "Doing", "to": "Closed"}},
	}
}

func with(b map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func auditCount(t *testing.T, env *apitest.Env, id any, action string) int {
	t.Helper()
	return apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'workflow' AND entity_id = $1 AND action = $2`, id, action)
}
