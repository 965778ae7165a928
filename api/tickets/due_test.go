package tickets_test

import (
	"encoding/json"
	"strings"
	"testing"

	"tracker/domain/ticket"
)

// TestDueEstimate: due_date and estimate through create, GET, list, PATCH
// (null clears), batch update, the activity trail and the webhook payload;
// 422s name the field.
func TestDueEstimate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env

	tk := f.create(t, f.member.Token, f.project, map[string]any{"title": "due", "due_date": "2026-12-01", "estimate": 3.5})
	if tk.DueDate == nil || tk.DueDate.String() != "2026-12-01" || tk.Estimate == nil || tk.Estimate.String() != "3.50" {
		t.Fatalf("create %+v", tk)
	}
	raw := env.Do("GET", path("/tickets/%s", tk.ID), f.viewer.Token, nil).Expect(t, 200).Body
	if !strings.Contains(string(raw), `"due_date":"2026-12-01","estimate":3.50`) {
		t.Fatalf("GET %s", raw)
	}
	plain := f.ticket(t, "plain")
	raw = env.Do("GET", path("/tickets/%s", plain.ID), f.viewer.Token, nil).Expect(t, 200).Body
	if !strings.Contains(string(raw), `"due_date":null,"estimate":null`) {
		t.Fatalf("GET without %s", raw)
	}
	list := env.Do("GET", path("/projects/%s/tickets?limit=100", f.project), f.viewer.Token, nil).Expect(t, 200).Body
	if !strings.Contains(string(list), `"due_date":"2026-12-01","estimate":3.50`) {
		t.Fatalf("list %s", list)
	}

	var got ticket.Ticket
	env.Do("PATCH", path("/tickets/%s", tk.ID), f.member.Token, map[string]any{"due_date": "2027-01-15", "estimate": 8}).Expect(t, 200).Decode(t, &got)
	if got.DueDate.String() != "2027-01-15" || got.Estimate.String() != "8.00" {
		t.Fatalf("patch %+v", got)
	}
	acts := activity(t, f, tk.ID)
	ch := map[string][2]any{}
	for _, c := range acts[len(acts)-1].Payload.Changes {
		ch[c.Field] = [2]any{c.Old, c.New}
	}
	if ch["due_date"] != [2]any{"2026-12-01", "2027-01-15"} || ch["estimate"] != [2]any{3.5, 8.0} {
		t.Fatalf("changes %+v", ch)
	}
	var payload []byte
	env.ScanRow(t, &payload, `SELECT payload FROM outbox WHERE topic = 'ticket.updated' AND payload->'data'->>'id' = $1`, tk.ID.String())
	var ev struct{ Data map[string]any }
	_ = json.Unmarshal(payload, &ev)
	if ev.Data["due_date"] != "2027-01-15" || ev.Data["estimate"] != 8.0 {
		t.Fatalf("webhook payload %s", payload)
	}

	env.Do("PATCH", path("/tickets/%s", tk.ID), f.member.Token, map[string]any{"due_date": nil, "estimate": nil}).Expect(t, 200).Decode(t, &got)
	if got.DueDate != nil || got.Estimate != nil {
		t.Fatalf("null did not clear %+v", got)
	}

	a, b := f.ticket(t, "a"), f.ticket(t, "b")
	env.Do("POST", path("/tickets/batch-update"), f.member.Token, map[string]any{"ticket_ids": ids(a, b), "due_date": "2026-12-24", "estimate": 0.25}).Expect(t, 200)
	for _, x := range []ticket.Ticket{a, b} {
		if g := f.get(t, x.ID); g.DueDate == nil || g.DueDate.String() != "2026-12-24" || g.Estimate.String() != "0.25" {
			t.Fatalf("batch %+v", g)
		}
	}

	for body, want := range map[string]string{
		`{"estimate": -1}`:                      "estimate: must be at least 0",
		`{"estimate": 1.005}`:                   `estimate: \"1.005\" is not a number with at most two decimal places`,
		`{"estimate": 1000000.01}`:              "estimate: must be at most 1000000",
		`{"estimate": "3"}`:                     "estimate: ",
		`{"due_date": "2026-13-01"}`:            `due_date: \"2026-13-01\" is not a date in the form YYYY-MM-DD`,
		`{"due_date": "tomorrow"}`:              "due_date: ",
		`{"title": "ok", "due_date": 20261201}`: "due_date: a date is a string",
	} {
		r := env.Do("PATCH", path("/tickets/%s", a.ID), f.member.Token, body)
		if r.Status != 422 || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if g := f.get(t, a.ID); g.Estimate.String() != "0.25" {
		t.Fatalf("a refused patch changed the ticket %+v", g)
	}
	r := env.Do("POST", path("/projects/%s/tickets", f.project), f.member.Token, map[string]any{"title": "x", "estimate": -0.5})
	r.Expect(t, 422)
	if !strings.Contains(r.Error().Message+string(r.Body), "estimate") {
		t.Fatalf("%s", r.Body)
	}
}
