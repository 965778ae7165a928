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
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{comments.Handlers{Comments: comment.New(e.DB, e.Clock)}}
	}})
	w := world{env: env, owner: env.Register("Owner")}
	w.admin = env.Member(w.owner, "admin")
	w.member = env.Member(w.owner, "member")
	w.viewer = env.Member(w.owner, "viewer")
	w.reporter = env.Member(w.owner, "reporter")
	w.unassignedReporter = env.Member(w.owner, "reporter")
	w.outside = env.Register("Outsider")
	w.project = worktest.NewProject(t, env.DB, w.owner.OrgID, "CMT")
	w.project.Assign(t, env.DB, w.reporter.ID)
	w.ticket = worktest.NewTicket(t, env.DB, w.project, w.owner.ID, worktest.Ticket{})
	return w
}

func (w world) comment(t *testing.T, as apitest.User, ticket uuid.UUID, body string, parent *string) map[string]any {
	t.Helper()
	req := map[string]any{"body": body}
	if parent != nil {
		req["parent_comment_id"] = *parent
	}
	return w.env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/comments", as.Token, req).Expect(t, 201).Map(t)
}
