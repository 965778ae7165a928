package exchange_test

import (
	"testing"
	"time"

	"tracker/domain/exchange/export/exportseed"
)

// TestImportLinearCSVEndToEnd imports a real Linear export through the
// route: tickets with Linear's numbers, statuses (Triage and Canceled
// placed by category), priorities, people, parents, cycles as sprints with
// their dates, the project as a custom field, resolution dates as status
// changes; a re-run duplicates nothing.
func TestImportLinearCSVEndToEnd(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "linear_export.csv")
	st := f.runFile(t, f.b, fileForm{format: "linear_csv", file: file})
	sum := st["summary"].(map[string]any)
	if st["status"] != "completed" || st["format"] != "linear_csv" || sum["tickets"] != 10.0 || sum["parents"] != 2.0 ||
		sum["sprints"] != 2.0 || sum["labels"] != 5.0 || sum["users_invited"] != 1.0 {
		t.Fatalf("import %v", st)
	}
	if p, ok := st["problems"].([]any); !ok || len(p) != 0 {
		t.Fatalf("problems %v", st["problems"])
	}
	if n := count(t, f, `SELECT ticket_counter FROM projects WHERE org_id = $1 AND key = 'CLA' AND name = 'Claw'`, f.b); n != 10 {
		t.Fatalf("counter %d", n)
	}
	ticket := func(n int) (status, priority, parent, assignee string) {
		t.Helper()
		row := f.env.DB.Pool.QueryRow(t.Context(), `SELECT t.status, t.priority, coalesce('CLA-' || pt.ticket_number, ''), coalesce(u.email, '')
		    FROM tickets t JOIN projects p ON p.id = t.project_id
		    LEFT JOIN tickets pt ON pt.id = t.parent_id LEFT JOIN users u ON u.id = t.assignee_id
		    WHERE p.org_id = $1 AND p.key = 'CLA' AND t.ticket_number = $2`, f.b, n)
		if err := row.Scan(&status, &priority, &parent, &assignee); err != nil {
			t.Fatal(err)
		}
		return
	}
	if s, p, par, a := ticket(1); s != "InProgress" || p != "High" || par != "CLA-4" || a != "testingthisproduct101@gmail.com" {
		t.Fatalf("CLA-1 %s %s %s %s", s, p, par, a)
	}
	if s, p, _, _ := ticket(2); s != "Cancelled" || p != "Low" {
		t.Fatalf("CLA-2 %s %s", s, p)
	}
	if s, _, _, _ := ticket(3); s != "Backlog" {
		t.Fatalf("CLA-3 (Triage) %s", s)
	}
	if s, p, par, _ := ticket(7); s != "Todo" || p != "Critical" || par != "CLA-6" {
		t.Fatalf("CLA-7 %s %s %s", s, p, par)
	}
	// Cycle 1 keeps its own dates; CLA-1 is in it.
	if n := count(t, f, `SELECT count(*) FROM sprints s JOIN projects p ON p.id = s.project_id JOIN tickets t ON t.sprint_id = s.id
	    WHERE p.org_id = $1 AND s.name = 'Cycle 1' AND s.start_date = '2023-02-06' AND s.end_date = '2023-02-20'
	    AND t.ticket_number IN (1, 5, 9)`, f.b); n != 3 {
		t.Fatalf("%d tickets in Cycle 1 with its dates", n)
	}
	var project string
	f.env.ScanRow(t, &project, `SELECT v.text_value FROM ticket_custom_values v JOIN custom_fields cf ON cf.id = v.field_id
	    JOIN tickets t ON t.id = v.ticket_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND cf.key = 'linear_project' AND t.ticket_number = 1`, f.b)
	if project != "Claw Alpha" {
		t.Fatalf("CLA-1 linear_project %q", project)
	}
	// Completed (CLA-9) and Canceled (CLA-2, CLA-10) are status changes at
	// their times.
	var at time.Time
	f.env.ScanRow(t, &at, `SELECT a.created_at FROM audit_log a JOIN tickets t ON t.id = a.entity_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND t.ticket_number = 9 AND a.action = 'status_changed' AND a.changes->0->>'new' = 'Done'`, f.b)
	if !at.Equal(time.Date(2023, 2, 11, 1, 52, 26, 0, time.UTC)) {
		t.Fatalf("CLA-9 resolved at %v", at)
	}
	if n := count(t, f, `SELECT count(*) FROM audit_log a JOIN tickets t ON t.id = a.entity_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND a.action = 'status_changed'`, f.b); n != 3 {
		t.Fatalf("%d status changes", n)
	}
	// The creator is invited, never enrolled.
	if n := count(t, f, `SELECT count(*) FROM invites WHERE org_id = $1 AND email = 'testingthisproduct101@gmail.com'`, f.b); n != 1 {
		t.Fatalf("%d invites", n)
	}
	again := f.runFile(t, f.b, fileForm{format: "linear_csv", file: file})
	if s := again["summary"].(map[string]any); again["status"] != "completed" || s["tickets"] != 0.0 {
		t.Fatalf("re-run %v", again)
	}
	if n := count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1`, f.b); n != 10 {
		t.Fatalf("%d tickets after a re-run", n)
	}
	if n := count(t, f, `SELECT count(*) FROM audit_log a JOIN tickets t ON t.id = a.entity_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND a.action = 'status_changed'`, f.b); n != 3 {
		t.Fatalf("%d status changes after a re-run", n)
	}
}
