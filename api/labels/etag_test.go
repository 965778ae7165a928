package labels_test

import (
	"testing"

	"tracker/api/apitest"
)

// Two clients edit the same label: the stale If-Match is 412 and overwrites
// nothing (apitest.CheckConditional); the label is linked to a ticket, so
// the delete cascades.
func TestLabelETags(t *testing.T) {
	t.Parallel()
	w := setup(t)
	created := w.Env.Do("POST", "/api/v1/orgs/"+w.Owner.OrgID.String()+"/labels", w.Member.Token,
		map[string]any{"name": "tagged", "color": "#a1b2c3"}).Expect(t, 201)
	id := created.Map(t)["id"].(string)
	w.Env.Do("POST", "/api/v1/tickets/"+w.Ticket.ID.String()+"/labels/"+id, w.Member.Token, nil).Expect(t, 200)
	w.Env.CheckConditional(t, apitest.Conditional{Path: "/api/v1/labels/" + id, Created: created, A: w.Member.Token, B: w.Admin.Token,
		Field: "color", PatchA: map[string]any{"color": "#fff"}, PatchB: map[string]any{"color": "#000", "name": "renamed"},
		DeleteQuery: "?cascade=true"})
}
