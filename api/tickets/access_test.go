package tickets_test

import (
	"fmt"
	"testing"
)

// TestNonMemberAndViewer: an outsider gets 404 on every route (batch routes:
// 422 naming the ticket, or "not found" per ticket for batch-transition), and a
// Viewer gets 403 on every write.
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, "guarded")
	id := tk.ID.String()
	batch := []string{id}

	routes := []struct {
		method, path string
		body         any
		write        bool
	}{
		{"POST", "/projects/" + f.project.String() + "/tickets", map[string]any{"title": "x"}, true},
		{"GET", "/projects/" + f.project.String() + "/tickets", nil, false},
		{"GET", "/tickets/" + id, nil, false},
		{"GET", fmt.Sprintf("/tickets/resolve?ref=ABC-%d&org_id=%s", tk.TicketNumber, f.owner.OrgID), nil, false},
		{"GET", fmt.Sprintf("/tickets/resolve?ref=%d&project_id=%s", tk.TicketNumber, f.project), nil, false},
		{"PATCH", "/tickets/" + id, map[string]any{"title": "y"}, true},
		{"DELETE", "/tickets/" + id, nil, true},
		{"DELETE", "/tickets/" + id + "?cascade=true&dry_run=true", nil, true},
		{"POST", "/tickets/" + id + "/transition", map[string]any{"to_status": "Todo"}, true},
		{"GET", "/tickets/" + id + "/transitions", nil, false},
		{"GET", "/tickets/" + id + "/available-transitions", nil, false},
		{"GET", "/tickets/" + id + "/activity", nil, false},
	}
	for _, r := range routes {
		t.Run("404 outsider "+r.method+" "+r.path, func(t *testing.T) {
			res := f.env.Do(r.method, path("%s", r.path), f.outsider.Token, r.body).Expect(t, 404)
			if res.ErrorCode() != "not_found" {
				t.Fatal(res.ErrorCode())
			}
		})
		if r.write {
			t.Run("403 viewer "+r.method+" "+r.path, func(t *testing.T) {
				res := f.env.Do(r.method, path("%s", r.path), f.viewer.Token, r.body).Expect(t, 403)
				if res.ErrorCode() != "FORBIDDEN" {
					t.Fatal(res.ErrorCode())
				}
			})
		}
	}

	t.Run("batch routes", func(t *testing.T) {
		f.env.Do("POST", path("/tickets/batch-update"), f.outsider.Token, map[string]any{"ticket_ids": batch, "priority": "Low"}).Expect(t, 422)
		f.env.Do("POST", path("/tickets/batch-delete"), f.outsider.Token, map[string]any{"ticket_ids": batch}).Expect(t, 422)
		m := f.env.Do("POST", path("/tickets/batch-transition"), f.outsider.Token, map[string]any{"ticket_ids": batch, "to_status": "Todo"}).Expect(t, 200).Map(t)
		if fmt.Sprint(m["failed"]) != fmt.Sprintf("[map[id:%s reason:not found]]", id) {
			t.Fatalf("%v", m)
		}
		f.env.Do("POST", path("/tickets/batch-update"), f.viewer.Token, map[string]any{"ticket_ids": batch, "priority": "Low"}).Expect(t, 403)
		f.env.Do("POST", path("/tickets/batch-delete"), f.viewer.Token, map[string]any{"ticket_ids": batch}).Expect(t, 403)
	})

	if got := f.get(t, tk.ID); got.Title != "guarded" || got.Status != "Backlog" {
		t.Fatalf("changed by a denied call: %+v", got)
	}
}
