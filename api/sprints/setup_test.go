package sprints_test

import (
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/sprints"
	"tracker/domain/sprint"
	"tracker/store/projectdb"
)

// sprint creates a Planned sprint in p and returns it.
func (w world) sprint(t *testing.T, p projectdb.Row, name, start, end string) map[string]any {
	t.Helper()
	return w.Env.Do("POST", "/api/v1/projects/"+p.ID.String()+"/sprints", w.Member.Token,
		map[string]any{"name": name, "start_date": start, "end_date": end}).Expect(t, 201).Map(t)
}

func sid(s map[string]any) string { return s["id"].(string) }

// world is apitest.NewWorld serving the sprints module.
type world struct{ apitest.World }

func setup(t *testing.T) world { return world{apitest.NewWorld(t, apitest.Options{Modules: modules})} }

func modules(e *apitest.Env) []api.Module {
	return []api.Module{sprints.New(sprint.NewService(e.DB, e.Clock))}
}
