package comments_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/comments"
	"tracker/domain/comment"
)

func (w world) comment(t *testing.T, as apitest.User, ticket uuid.UUID, body string, parent *string) map[string]any {
	t.Helper()
	req := map[string]any{"body": body}
	if parent != nil {
		req["parent_comment_id"] = *parent
	}
	return w.Env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/comments", as.Token, req).Expect(t, 201).Map(t)
}

// world is apitest.NewWorld serving the comments module.
type world struct{ apitest.World }

func setup(t *testing.T) world { return world{apitest.NewWorld(t, apitest.Options{Modules: modules})} }

func modules(e *apitest.Env) []api.Module {
	return []api.Module{comments.New(comment.New(e.DB, e.Clock))}
}
