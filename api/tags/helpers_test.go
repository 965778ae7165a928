package tags_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/projects"
	"tracker/api/tags"
	"tracker/domain/project"
	"tracker/domain/tag"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"
)

// newOrg is the app with the tags and projects modules and the org of
// every role (apitest.Org) in it.
func newOrg(t *testing.T) apitest.Org {
	t.Helper()
	return apitest.NewOrg(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{
			tags.New(tag.New(e.DB, e.Clock)),
			projects.New(project.New(e.DB, e.Clock)),
		}
	}})
}

func createProject(t *testing.T, env *apitest.Env, token string, org uuid.UUID, key string) string {
	t.Helper()
	p := env.Do("POST", "/api/v1/projects", token, map[string]any{"org_id": org, "key": key, "name": key}).Expect(t, 201).Map(t)
	return p["id"].(string)
}

// The tickets API is another package: tickets come from the test factory.

func insertTicket(t *testing.T, env *apitest.Env, projectID string, reporter uuid.UUID) uuid.UUID {
	t.Helper()
	return testfactory.Ticket(t, env.DB, projectdb.Row{ID: uuid.MustParse(projectID)}, reporter, testfactory.TicketOpts{}).ID
}

func hasTimeEntries(t *testing.T, env *apitest.Env) bool {
	return apitest.Scalar[bool](t, env, `SELECT to_regclass('time_entries') IS NOT NULL`)
}

func insertTimeEntry(t *testing.T, env *apitest.Env, ticket ticketdb.Row, user uuid.UUID) uuid.UUID {
	t.Helper()
	return testfactory.TimeEntry(t, env.DB, ticket, user, testfactory.TimeEntryOpts{}).ID
}

type pair = map[string]any

func put(kv ...string) map[string]any {
	var ts []pair
	for i := 0; i < len(kv); i += 2 {
		ts = append(ts, pair{"key": kv[i], "value": kv[i+1]})
	}
	return map[string]any{"tags": ts}
}
