package comments_test

import (
	"testing"

	"tracker/api/apitest"
)

// The author and an Admin edit the same comment: the stale If-Match is 412
// and overwrites nothing (apitest.CheckConditional); a refused delete keeps
// the reply under it too, the granted one takes it along.
func TestCommentETags(t *testing.T) {
	t.Parallel()
	w := setup(t)
	created := w.Env.Do("POST", "/api/v1/tickets/"+w.Ticket.ID.String()+"/comments", w.Member.Token,
		map[string]any{"body": "first"}).Expect(t, 201)
	id := created.Map(t)["id"].(string)
	reply := "/api/v1/comments/" + w.comment(t, w.Admin, w.Ticket.ID, "reply", &id)["id"].(string)
	w.Env.CheckConditional(t, apitest.Conditional{Path: "/api/v1/comments/" + id, Created: created, A: w.Member.Token, B: w.Admin.Token,
		Field: "body", PatchA: map[string]any{"body": "A's words"}, PatchB: map[string]any{"body": "B's words"},
		Kept: func() { w.Env.Do("GET", reply, w.Admin.Token, nil).Expect(t, 200) }})
	w.Env.Do("GET", reply, w.Admin.Token, nil).Expect(t, 404)
}
