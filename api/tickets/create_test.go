package tickets_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	url := path("/projects/%s/tickets", f.project)

	t.Run("201 defaults, reporter from the caller, event and audit", func(t *testing.T) {
		tk := f.create(t, f.member.Token, f.project, map[string]any{"title": "First", "reporter_id": f.owner.ID})
		if tk.Status != "Backlog" || tk.Priority != "None" || tk.ReporterID != f.member.ID || tk.Description != nil ||
			tk.AssigneeID != nil || tk.SprintID != nil || tk.ProjectID != f.project || tk.TicketNumber < 1 {
			t.Fatalf("ticket %+v", tk)
		}
		if f.outbox(t, "ticket.created", tk.ID) != 1 {
			t.Fatal("no ticket.created outbox row")
		}
		var n int
		f.env.ScanRow(t, &n, `SELECT count(*) FROM audit_log WHERE entity_type = 'ticket' AND entity_id = $1 AND action = 'created' AND actor_id = $2`, tk.ID, f.member.ID)
		if n != 1 {
			t.Fatal("no audit row by the caller")
		}
		// The event's data is the ticket as created, number included.
		var number, orgID, title string
		f.env.ScanRow(t, &number, `SELECT payload->'data'->>'ticket_number' FROM outbox WHERE topic = 'ticket.created' AND payload->'data'->>'id' = $1`, tk.ID.String())
		f.env.ScanRow(t, &orgID, `SELECT payload->>'org_id' FROM outbox WHERE topic = 'ticket.created' AND payload->'data'->>'id' = $1`, tk.ID.String())
		f.env.ScanRow(t, &title, `SELECT payload->'data'->>'title' FROM outbox WHERE topic = 'ticket.created' AND payload->'data'->>'id' = $1`, tk.ID.String())
		if number != fmt.Sprint(tk.TicketNumber) || orgID != f.owner.OrgID.String() || title != "First" {
			t.Fatalf("event data: number %s (want %d), org %s, title %q", number, tk.TicketNumber, orgID, title)
		}
	})

	t.Run("201 all fields, case-insensitive status and priority", func(t *testing.T) {
		tk := f.create(t, f.owner.Token, f.project, map[string]any{"title": "Full", "description": "d",
			"status": "inprogress", "priority": "high", "assignee_id": f.viewer.ID})
		if tk.Status != "InProgress" || tk.Priority != "High" || *tk.Description != "d" || *tk.AssigneeID != f.viewer.ID {
			t.Fatalf("ticket %+v", tk)
		}
	})

	t.Run("201 assigned reporter; numbers follow each other", func(t *testing.T) {
		a := f.create(t, f.reporter.Token, f.project, map[string]any{"title": "R1"})
		b := f.create(t, f.reporter.Token, f.project, map[string]any{"title": "R2"})
		if b.TicketNumber != a.TicketNumber+1 {
			t.Fatalf("numbers %d %d", a.TicketNumber, b.TicketNumber)
		}
		var counter int32
		f.env.ScanRow(t, &counter, `SELECT ticket_counter FROM projects WHERE id = $1`, f.project)
		if counter != b.TicketNumber {
			t.Fatalf("counter %d, last number %d", counter, b.TicketNumber)
		}
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no title":          {},
			"blank title":       {"title": "  "},
			"long title":        {"title": strings.Repeat("x", 501)},
			"bad priority":      {"title": "x", "priority": "Urgent"},
			"unknown status":    {"title": "x", "status": "Nope"},
			"assignee outsider": {"title": "x", "assignee_id": f.outsider.ID},
			"assignee not uuid": {"title": "x", "assignee_id": "nope"},
			"title not string":  {"title": 5},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", url, f.owner.Token, body).Expect(t, 422)
				if r.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatal(r.ErrorCode())
				}
			})
		}
		// A wrongly typed member of the embedded Content is named by its key.
		if d := env.Do("POST", url, f.owner.Token, map[string]any{"title": 5}).Expect(t, 422).Error().Details; len(d) != 1 || d[0] != "title: must be a string" {
			t.Fatalf("title not string: details %q", d)
		}
		f.create(t, f.owner.Token, f.project, map[string]any{"title": strings.Repeat("é", 500)})
	})

	t.Run("400 malformed", func(t *testing.T) {
		env.Do("POST", url, f.owner.Token, "{").Expect(t, 400)
	})

	t.Run("403", func(t *testing.T) {
		r := env.Do("POST", url, f.viewer.Token, map[string]any{"title": "x"}).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Reporter") {
			t.Fatal(r.Error().Message)
		}
		other := f.newProject(t, "UNA")
		env.Do("POST", path("/projects/%s/tickets", other), f.reporter.Token, map[string]any{"title": "x"}).Expect(t, 403)
		key := env.APIKey(f.owner, []string{"write"}, other)
		env.Do("POST", url, key, map[string]any{"title": "x"}).Expect(t, 403)
		readKey := env.APIKey(f.owner, []string{"read"})
		env.Do("POST", url, readKey, map[string]any{"title": "x"}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		env.Do("POST", url, f.outsider.Token, map[string]any{"title": "x"}).Expect(t, 404)
		env.Do("POST", path("/projects/%s/tickets", uuid.New()), f.owner.Token, map[string]any{"title": "x"}).Expect(t, 404)
		env.Do("POST", path("/projects/nope/tickets"), f.owner.Token, map[string]any{"title": "x"}).Expect(t, 404)
		gone := f.newProject(t, "GONE")
		f.env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, gone)
		env.Do("POST", path("/projects/%s/tickets", gone), f.owner.Token, map[string]any{"title": "x"}).Expect(t, 404)
	})

	t.Run("401", func(t *testing.T) {
		env.Do("POST", url, "", map[string]any{"title": "x"}).Expect(t, 401)
	})

	t.Run("status must be one of the project's workflow", func(t *testing.T) {
		p := f.newProject(t, "WF")
		f.workflow(t, p, "Kanban", "none", []string{"Open", "Closed"}, nil)
		tk := f.create(t, f.owner.Token, p, map[string]any{"title": "x"})
		if tk.Status != "Open" { // no Backlog in this workflow: its first status
			t.Fatal(tk.Status)
		}
		env.Do("POST", path("/projects/%s/tickets", p), f.owner.Token, map[string]any{"title": "x", "status": "Backlog"}).Expect(t, 422)
		f.create(t, f.owner.Token, p, map[string]any{"title": "x", "status": "Closed"})
	})
}

func TestCreateConcurrentNumbers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	p := f.newProject(t, "RACE")
	const n, workers = 200, 32
	jobs := make(chan int, n)
	for i := range n {
		jobs <- i
	}
	close(jobs)
	errs := make(chan string, n)
	numbers := make(chan int32, n)
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for range jobs {
				r := f.env.Do("POST", path("/projects/%s/tickets", p), f.member.Token, map[string]any{"title": "race"})
				if r.Status != 201 {
					errs <- string(r.Body)
					continue
				}
				var tk ticket.Ticket
				r.Decode(t, &tk)
				numbers <- tk.TicketNumber
			}
		}()
	}
	for range workers {
		<-done
	}
	close(errs)
	close(numbers)
	for e := range errs {
		t.Errorf("create failed: %s", e)
	}
	seen := map[int32]bool{}
	for num := range numbers {
		if seen[num] {
			t.Errorf("number %d twice", num)
		}
		seen[num] = true
	}
	for i := int32(1); i <= n; i++ {
		if !seen[i] {
			t.Errorf("number %d missing", i)
		}
	}
	if len(seen) != n {
		t.Errorf("%d numbers, want %d", len(seen), n)
	}
}

// A body naming title twice, or once exactly and once in another case, is
// refused (encoding/json kept the last: "second" was stored), on create
// and on update; nothing changes.
func TestTicketBodyNamesAreExactAndUnique(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, "original")
	for _, body := range []string{`{"title":"first","Title":"second"}`, `{"title":"first","title":"second"}`,
		`{"Title":"second"}`, `{"title":"first","priority":"Low","PRIORITY":"Critical"}`} {
		for _, c := range []struct{ method, path string }{{"POST", path("/projects/%s/tickets", f.project)}, {"PATCH", path("/tickets/%s", tk.ID)}} {
			if r := f.env.Do(c.method, c.path, f.owner.Token, body); r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
				t.Errorf("%s %s: %d %s", c.method, body, r.Status, r.Body)
			}
		}
	}
	var titles []string
	f.env.ScanRow(t, &titles, `SELECT array_agg(title ORDER BY title) FROM tickets WHERE project_id = $1`, f.project)
	if len(titles) != 1 || titles[0] != "original" {
		t.Fatalf("titles %q", titles)
	}
}
