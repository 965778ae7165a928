package sprints_test

import (
	"testing"

	"tracker/domain"
	"tracker/domain/testfactory"
)

// TestBoardCustomFields: the board's tickets and the ticket.updated
// payload of a batch assign carry the tickets' custom values, as every
// other rendering of a ticket does.
func TestBoardCustomFields(t *testing.T) {
	t.Parallel()
	w := setup(t)
	testfactory.NumberValue(t, w.Env.DB, w.Owner.OrgID, w.Ticket.ID, "points", 5)
	plain := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{})
	s := sid(w.sprint(t, w.Project, "one", "2025-01-01", "2025-01-14"))
	w.Env.Do("POST", "/api/v1/sprints/"+s+"/batch-assign", w.Member.Token,
		map[string]any{"ticket_ids": []any{w.Ticket.ID, plain.ID}}).Expect(t, 200)

	values := map[string]any{}
	for _, e := range w.Env.Outbox(t, w.Owner.OrgID, domain.EventTicketUpdated) {
		d := e["data"].(map[string]any)
		values[d["id"].(string)] = d["custom_fields"]
	}
	if cf, _ := values[w.Ticket.ID.String()].(map[string]any); cf["points"] != 5.0 {
		t.Fatalf("ticket.updated custom_fields %v", values)
	}
	if cf, ok := values[plain.ID.String()].(map[string]any); !ok || len(cf) != 0 {
		t.Fatalf("ticket.updated custom_fields of a ticket without values %v", values)
	}

	b := w.Env.Do("GET", "/api/v1/sprints/"+s+"/board", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	seen := 0
	for _, c := range b["columns"].([]any) {
		for _, tk := range c.(map[string]any)["tickets"].([]any) {
			tk := tk.(map[string]any)
			cf := tk["custom_fields"].(map[string]any)
			switch tk["id"] {
			case w.Ticket.ID.String():
				if cf["points"] != 5.0 {
					t.Fatalf("board ticket %v", tk)
				}
			case plain.ID.String():
				if len(cf) != 0 {
					t.Fatalf("board ticket %v", tk)
				}
			}
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("board %v", b)
	}
	// The board narrowed by a query renders them too.
	b = w.Env.Do("GET", "/api/v1/sprints/"+s+"/board?q=cf.points:5", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	n := 0
	for _, c := range b["columns"].([]any) {
		for _, tk := range c.(map[string]any)["tickets"].([]any) {
			if tk.(map[string]any)["custom_fields"].(map[string]any)["points"] != 5.0 {
				t.Fatalf("filtered board %v", b)
			}
			n++
		}
	}
	if n != 1 {
		t.Fatalf("filtered board %v", b)
	}
}
