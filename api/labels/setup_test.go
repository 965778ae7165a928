package labels_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/labels"
	"tracker/domain/label"
	"tracker/store/sprintdb/worktest"
)

// world is one org with a member of every role, a project and a ticket.
type world struct {
	env                          *apitest.Env
	owner, admin, member, viewer apitest.User
	reporter, outside            apitest.User
	project                      worktest.Project
	ticket                       uuid.UUID
}

func setup(t *testing.T) world {
	t.Helper()
	a := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{labels.New(label.New(e.DB, e.Clock))}
	}})
	return world{env: a.Env, owner: a.Owner, admin: a.Admin, member: a.Member, viewer: a.Viewer, reporter: a.Reporter,
		outside: a.Outsider, project: worktest.Project{ID: a.Project.ID, OrgID: a.Project.OrgID, Key: a.Project.Key}, ticket: a.Ticket.ID}
}

func (w world) label(t *testing.T, name string) string {
	t.Helper()
	return w.env.Do("POST", "/api/v1/orgs/"+w.owner.OrgID.String()+"/labels", w.member.Token,
		map[string]any{"name": name, "color": "#a1b2c3"}).Expect(t, 201).Map(t)["id"].(string)
}

func names(t *testing.T, r apitest.Resp) []string {
	t.Helper()
	var ls []map[string]any
	r.Decode(t, &ls)
	out := []string{}
	for _, l := range ls {
		out = append(out, l["name"].(string))
	}
	return out
}
