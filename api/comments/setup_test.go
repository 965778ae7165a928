package comments_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/comments"
	"tracker/domain/comment"
	"tracker/store/sprintdb/worktest"
)

// world is one org with a member of every role, a project and a ticket.
type world struct {
	env                                   *apitest.Env
	owner, admin, member, viewer          apitest.User
	reporter, unassignedReporter, outside apitest.User
	project                               worktest.Project
	ticket                                uuid.UUID
}

func setup(t *testing.T) world {
	t.Helper()
	a := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{comments.New(comment.New(e.DB, e.Clock))}
	}})
	return world{env: a.Env, owner: a.Owner, admin: a.Admin, member: a.Member, viewer: a.Viewer, reporter: a.Reporter, unassignedReporter: a.UnassignedReporter,
		outside: a.Outsider, project: worktest.Project{ID: a.Project.ID, OrgID: a.Project.OrgID, Key: a.Project.Key}, ticket: a.Ticket.ID}
}

func (w world) comment(t *testing.T, as apitest.User, ticket uuid.UUID, body string, parent *string) map[string]any {
	t.Helper()
	req := map[string]any{"body": body}
	if parent != nil {
		req["parent_comment_id"] = *parent
	}
	return w.env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/comments", as.Token, req).Expect(t, 201).Map(t)
}
