package statusflow_test

import (
	"testing"

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
			statusflowapi.New(statusflow.New(e.DB, e.Clock)),
			projects.New(project.New(e.DB, e.Clock)),
		}
	}})
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
