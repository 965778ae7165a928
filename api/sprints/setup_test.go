package sprints_test

import (
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/sprints"
	"tracker/domain/sprint"
	"tracker/store/sprintdb/worktest"
)

// world is one org with a member of every role and a project.
type world struct {
	env                                   *apitest.Env
	owner, admin, member, viewer          apitest.User
	reporter, unassignedReporter, outside apitest.User
	project                               worktest.Project
}

func setup(t *testing.T) world {
	t.Helper()
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{sprints.New(sprint.NewService(e.DB, e.Clock))}
	}})
	w := world{env: env, owner: env.Register("Owner")}
	w.admin = env.Member(w.owner, "admin")
	w.member = env.Member(w.owner, "member")
	w.viewer = env.Member(w.owner, "viewer")
	w.reporter = env.Member(w.owner, "reporter")
	w.unassignedReporter = env.Member(w.owner, "reporter")
	w.outside = env.Register("Outsider")
	w.project = worktest.NewProject(t, env.DB, w.owner.OrgID, "SPR")
	w.project.Assign(t, env.DB, w.reporter.ID)
	return w
}

// sprint creates a Planned sprint in p and returns it.
func (w world) sprint(t *testing.T, p worktest.Project, name, start, end string) map[string]any {
	t.Helper()
	return w.env.Do("POST", "/api/v1/projects/"+p.ID.String()+"/sprints", w.member.Token,
		map[string]any{"name": name, "start_date": start, "end_date": end}).Expect(t, 201).Map(t)
}

func sid(s map[string]any) string { return s["id"].(string) }
