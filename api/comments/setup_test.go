package comments_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/comments"
	"tracker/domain/comment"
)

// world is the apitest world (an org with a member of every role, a
// project, a ticket) with the comments module.
type world struct{ apitest.World }

func setup(t *testing.T) world {
	t.Helper()
	return world{apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{comments.New(comment.New(e.DB, e.Clock))}
	}})}
}

func (w world) comment(t *testing.T, as apitest.User, ticket uuid.UUID, body string, parent *string) map[string]any {
	t.Helper()
	req := map[string]any{"body": body}
	if parent != nil {
		req["parent_comment_id"] = *parent
	}
	return w.Env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/comments", as.Token, req).Expect(t, 201).Map(t)
}
