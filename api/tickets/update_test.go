package tickets_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/ticket"
)

func TestUpdate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env

	t.Run("200 fields, audit field/old/new, events in the outbox", func(t *testing.T) {
		tk := f.ticket(t, "Before")
		var got ticket.Ticket
		env.Do("PATCH", path("/tickets/%s", tk.ID), f.member.Token, map[string]any{
			"title": "After", "description": "text", "priority": "low", "assignee_id": f.viewer.ID, "status": "Todo",
		}).Expect(t, 200).Decode(t, &got)
		if got.Title != "After" || *got.Description != "text" || got.Priority != "Low" || *got.AssigneeID != f.viewer.ID ||
			got.Status != "Todo" || !got.UpdatedAt.After(tk.UpdatedAt) || got.ReporterID != tk.ReporterID {
			t.Fatalf("%+v", got)
		}
		if f.outbox(t, "ticket.updated", tk.ID) != 1 || f.outbox(t, "ticket.status_changed", tk.ID) != 1 {
			t.Fatal("events missing")
		}
		var payload []byte
		f.env.ScanRow(t, &payload, `SELECT payload FROM outbox WHERE topic = 'ticket.status_changed' AND payload->'data'->>'id' = $1`, tk.ID.String())
		var ev struct {
			Type    string
			Data    ticket.Ticket
			Changes []struct{ Field, Old, New any }
		}
		_ = json.Unmarshal(payload, &ev)
		if ev.Type != "ticket.status_changed" || ev.Data.Status != "Todo" || len(ev.Changes) != 1 || ev.Changes[0].New != "Todo" {
			t.Fatalf("event %s", payload)
		}

		acts := activity(t, f, tk.ID)
		if len(acts) != 3 || acts[0].Type != "created" || acts[1].Type != "updated" || acts[2].Type != "status_changed" {
			t.Fatalf("activity %+v", acts)
		}
		ch := map[string][2]any{}
		for _, c := range acts[1].Payload.Changes {
			ch[c.Field] = [2]any{c.Old, c.New}
		}
		if ch["title"] != [2]any{"Before", "After"} || ch["description"] != [2]any{nil, "text"} ||
			ch["priority"] != [2]any{"None", "Low"} || ch["assignee_id"] != [2]any{nil, f.viewer.ID.String()} {
			t.Fatalf("changes %+v", ch)
		}
		if sc := acts[2].Payload.Changes; len(sc) != 1 || sc[0].Field != "status" || sc[0].Old != "Backlog" || sc[0].New != "Todo" {
			t.Fatalf("status change %+v", sc)
		}
		if acts[1].Actor == nil || *acts[1].Actor != f.member.ID || acts[1].Payload.EntityType != "ticket" || acts[1].Payload.AuditLogID == uuid.Nil {
			t.Fatalf("%+v", acts[1])
		}
	})

	t.Run("200 null clears, no change writes nothing", func(t *testing.T) {
		tk := f.create(t, f.owner.Token, f.project, map[string]any{"title": "x", "description": "d", "assignee_id": f.member.ID})
		var got ticket.Ticket
		env.Do("PATCH", path("/tickets/%s", tk.ID), f.owner.Token, map[string]any{"description": nil, "assignee_id": nil}).Expect(t, 200).Decode(t, &got)
		if got.Description != nil || got.AssigneeID != nil {
			t.Fatalf("%+v", got)
		}
		env.Do("PATCH", path("/tickets/%s", tk.ID), f.owner.Token, map[string]any{"title": "x", "status": "Backlog"}).Expect(t, 200)
		if f.outbox(t, "ticket.updated", tk.ID) != 1 || f.outbox(t, "ticket.status_changed", tk.ID) != 0 {
			t.Fatal("a no-op patch emitted events")
		}
	})

	t.Run("422", func(t *testing.T) {
		tk := f.ticket(t, "v")
		for name, body := range map[string]map[string]any{
			"null title":     {"title": nil},
			"empty title":    {"title": ""},
			"long title":     {"title": strings.Repeat("x", 501)},
			"bad priority":   {"priority": "P1"},
			"null priority":  {"priority": nil},
			"unknown status": {"status": "Nope"},
			"null status":    {"status": nil},
			"outsider":       {"assignee_id": f.outsider.ID},
			"bad assignee":   {"assignee_id": "x"},
		} {
			t.Run(name, func(t *testing.T) {
				env.Do("PATCH", path("/tickets/%s", tk.ID), f.owner.Token, body).Expect(t, 422)
			})
		}
	})

	t.Run("403 below Member", func(t *testing.T) {
		tk := f.ticket(t, "v")
		for _, tok := range []string{f.viewer.Token, f.reporter.Token} {
			r := env.Do("PATCH", path("/tickets/%s", tk.ID), tok, map[string]any{"title": "y"}).Expect(t, 403)
			if !strings.Contains(r.Error().Message, "Member") {
				t.Fatal(r.Error().Message)
			}
			env.Do("POST", path("/tickets/%s/transition", tk.ID), tok, map[string]any{"to_status": "Todo"}).Expect(t, 403)
		}
	})

	t.Run("404", func(t *testing.T) {
		tk := f.ticket(t, "v")
		env.Do("PATCH", path("/tickets/%s", tk.ID), f.outsider.Token, map[string]any{"title": "y"}).Expect(t, 404)
		env.Do("PATCH", path("/tickets/%s", uuid.New()), f.owner.Token, map[string]any{"title": "y"}).Expect(t, 404)
	})
}

func TestTransition(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env

	t.Run("200 and event", func(t *testing.T) {
		tk := f.ticket(t, "t")
		var got ticket.Ticket
		env.Do("POST", path("/tickets/%s/transition", tk.ID), f.member.Token, map[string]any{"to_status": "InProgress"}).Expect(t, 200).Decode(t, &got)
		if got.Status != "InProgress" || f.outbox(t, "ticket.status_changed", tk.ID) != 1 || f.outbox(t, "ticket.updated", tk.ID) != 0 {
			t.Fatalf("%+v", got)
		}
	})

	t.Run("422 missing or unknown to_status", func(t *testing.T) {
		tk := f.ticket(t, "t")
		env.Do("POST", path("/tickets/%s/transition", tk.ID), f.member.Token, map[string]any{}).Expect(t, 422)
		env.Do("POST", path("/tickets/%s/transition", tk.ID), f.member.Token, map[string]any{"to_status": "Nope"}).Expect(t, 422)
	})

	t.Run("404", func(t *testing.T) {
		tk := f.ticket(t, "t")
		env.Do("POST", path("/tickets/%s/transition", tk.ID), f.outsider.Token, map[string]any{"to_status": "Todo"}).Expect(t, 404)
	})
}

// TestEnforcement: none/warn/strict × listed/unlisted, through transition
// and through PATCH.
func TestEnforcement(t *testing.T) {
	t.Parallel()
	f := setup(t)
	projects := map[string]uuid.UUID{}
	for _, e := range []string{"none", "warn", "strict"} {
		projects[e] = f.newProject(t, strings.ToUpper(e[:3]))
		f.workflow(t, projects[e], "Flow "+e, e, []string{"Open", "Doing", "Done"}, [][2]string{{"Open", "Doing"}, {"Doing", "Done"}})
	}
	tests := []struct {
		enforcement, to string
		status          int
		warn            bool
	}{
		{"none", "Doing", 200, false},
		{"none", "Done", 200, false},
		{"warn", "Doing", 200, false},
		{"warn", "Done", 200, true},
		{"strict", "Doing", 200, false},
		{"strict", "Done", 422, false},
		{"none", "Missing", 422, false},
		{"warn", "Missing", 422, false},
		{"strict", "Missing", 422, false},
		{"strict", "Open", 200, false}, // same status: no-op
	}
	for _, via := range []string{"transition", "patch"} {
		for _, tc := range tests {
			t.Run(via+" "+tc.enforcement+" Open→"+tc.to, func(t *testing.T) {
				tk := f.create(t, f.owner.Token, projects[tc.enforcement], map[string]any{"title": "e"})
				send := func() apitest.Resp {
					if via == "patch" {
						return f.env.Do("PATCH", path("/tickets/%s", tk.ID), f.member.Token, map[string]any{"status": tc.to})
					}
					return f.env.Do("POST", path("/tickets/%s/transition", tk.ID), f.member.Token, map[string]any{"to_status": tc.to})
				}
				r := send()
				r.Expect(t, tc.status)
				m := r.Map(t)
				switch {
				case tc.status == 422:
					msg := r.Error().Message + strings.Join(r.Error().Details, " ")
					if r.ErrorCode() != "VALIDATION_ERROR" {
						t.Fatal(r.ErrorCode())
					}
					if tc.to == "Done" {
						for _, want := range []string{"Open", "Done", "Flow strict"} {
							if !strings.Contains(r.Error().Message, want) {
								t.Fatalf("message %q lacks %q", r.Error().Message, want)
							}
						}
					} else if !strings.Contains(msg, "Missing") {
						t.Fatal(msg)
					}
					var after ticket.Ticket
					f.env.Do("GET", path("/tickets/%s", tk.ID), f.member.Token, nil).Expect(t, 200).Decode(t, &after)
					if after.Status != "Open" || f.outbox(t, "ticket.status_changed", tk.ID) != 0 {
						t.Fatal("a rejected move changed the ticket")
					}
				case tc.warn:
					tkm, _ := m["ticket"].(map[string]any)
					if tkm["status"] != tc.to || !strings.Contains(m["warning"].(string), "Flow warn") {
						t.Fatalf("%v", m)
					}
					if f.outbox(t, "ticket.status_changed", tk.ID) != 1 {
						t.Fatal("no event for a warned move")
					}
				default:
					if m["status"] != tc.to || m["warning"] != nil {
						t.Fatalf("%v", m)
					}
				}
			})
		}
	}
}

type activityItem struct {
	Type      string     `json:"type"`
	Actor     *uuid.UUID `json:"actor"`
	Timestamp string     `json:"timestamp"`
	Payload   struct {
		AuditLogID uuid.UUID `json:"audit_log_id"`
		Action     string    `json:"action"`
		EntityType string    `json:"entity_type"`
		Changes    []struct {
			Field string `json:"field"`
			Old   any    `json:"old"`
			New   any    `json:"new"`
		} `json:"changes"`
	} `json:"payload"`
}

func activity(t *testing.T, f *fixture, id uuid.UUID) []activityItem {
	t.Helper()
	var pg struct {
		Items   []activityItem `json:"items"`
		HasMore bool           `json:"has_more"`
	}
	f.env.Do("GET", path("/tickets/%s/activity?limit=100", id), f.viewer.Token, nil).Expect(t, 200).Decode(t, &pg)
	return pg.Items
}
