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
	created := w.env.Do("POST", "/api/v1/tickets/"+w.ticket.String()+"/comments", w.member.Token,
		map[string]any{"body": "first"}).Expect(t, 201)
	id := created.Map(t)["id"].(string)
	reply := "/api/v1/comments/" + w.comment(t, w.admin, w.ticket, "reply", &id)["id"].(string)
	w.env.CheckConditional(t, apitest.Conditional{Path: "/api/v1/comments/" + id, Created: created, A: w.member.Token, B: w.admin.Token,
		Field: "body", PatchA: map[string]any{"body": "A's words"}, PatchB: map[string]any{"body": "B's words"},
		Kept: func() { w.env.Do("GET", reply, w.admin.Token, nil).Expect(t, 200) }})
	w.env.Do("GET", reply, w.admin.Token, nil).Expect(t, 404)
}
