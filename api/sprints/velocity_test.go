package sprints_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
	"tracker/store/ticketdb"
)

// TestEstimates: the burndown and the board sum the tickets' estimates
// beside their counts, and the velocity lists the last completed sprints,
// newest first, with what each committed and completed.
func TestEstimates(t *testing.T) {
	t.Parallel()
	w := setup(t)
	estimate := func(tk ticketdb.Row, e string) {
		w.Env.Exec(t, `UPDATE tickets SET estimate = $2::numeric WHERE id = $1`, tk.ID, e)
	}
	mk := func(name, start, end string, done, open string) string {
		s := w.sprint(t, w.Project, name, start, end)
		id := uuid.MustParse(sid(s))
		d := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: "Done", SprintID: &id})
		testfactory.StatusChange(t, w.Env.DB, d, testfactory.StatusChangeOpts{From: "Backlog", To: "Done", At: mustDay(t, start)})
		estimate(d, done)
		o := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: "InProgress", SprintID: &id})
		estimate(o, open)
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: "Todo", SprintID: &id}) // no estimate
		return sid(s)
	}
	old := mk("old", "2025-01-01", "2025-01-14", "3", "2.5")
	recent := mk("recent", "2025-01-15", "2025-01-28", "5", "1")
	active := mk("active", "2025-01-29", "2025-02-11", "8", "0.25")
	for _, s := range []string{old, recent} {
		w.Env.Do("POST", "/api/v1/sprints/"+s+"/start", w.Member.Token, nil).Expect(t, 200)
		w.Env.Do("POST", "/api/v1/sprints/"+s+"/complete", w.Member.Token, nil).Expect(t, 200)
	}

	bd := w.Env.Do("GET", "/api/v1/sprints/"+active+"/burndown", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	last := bd["data"].([]any)[13].(map[string]any)
	if last["total_estimate"] != 8.25 || last["completed_estimate"] != 8.0 || last["remaining_estimate"] != 0.25 || last["total_tickets"] != 3.0 {
		t.Fatalf("burndown %v", last)
	}
	b := w.Env.Do("GET", "/api/v1/sprints/"+active+"/board", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	if b["total_estimate"] != 8.25 || b["completed_estimate"] != 8.0 || b["remaining_estimate"] != 0.25 {
		t.Fatalf("board %v", b)
	}
	cols := map[string]any{}
	for _, c := range b["columns"].([]any) {
		cols[c.(map[string]any)["status"].(string)] = c.(map[string]any)["total_estimate"]
	}
	if cols["Done"] != 8.0 || cols["InProgress"] != 0.25 || cols["Todo"] != 0.0 {
		t.Fatalf("columns %v", cols)
	}

	v := w.Env.Do("GET", "/api/v1/projects/"+w.Project.ID.String()+"/velocity", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	sprints := v["sprints"].([]any)
	if len(sprints) != 2 {
		t.Fatalf("velocity %v", v)
	}
	first, second := sprints[0].(map[string]any), sprints[1].(map[string]any)
	if first["sprint_id"] != recent || first["name"] != "recent" || first["start_date"] != "2025-01-15" || first["end_date"] != "2025-01-28" ||
		first["committed_estimate"] != 6.0 || first["completed_estimate"] != 5.0 || first["committed_tickets"] != 3.0 || first["completed_tickets"] != 1.0 {
		t.Fatalf("newest %v", first)
	}
	if second["sprint_id"] != old || second["committed_estimate"] != 5.5 || second["completed_estimate"] != 3.0 {
		t.Fatalf("older %v", second)
	}
	one := w.Env.Do("GET", "/api/v1/projects/"+w.Project.ID.String()+"/velocity?sprints=1", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	if n := len(one["sprints"].([]any)); n != 1 {
		t.Fatalf("sprints=1 gave %d", n)
	}
	for _, bad := range []string{"0", "25", "x", "-1"} {
		w.Env.Do("GET", "/api/v1/projects/"+w.Project.ID.String()+"/velocity?sprints="+bad, w.Viewer.Token, nil).Expect(t, 422)
	}
	w.Env.Do("GET", "/api/v1/projects/"+w.Project.ID.String()+"/velocity", w.UnassignedReporter.Token, nil).Expect(t, 403)
	w.Env.Do("GET", "/api/v1/projects/"+w.Project.ID.String()+"/velocity", w.Outsider.Token, nil).Expect(t, 404)
	w.Env.Do("GET", "/api/v1/projects/"+uuid.NewString()+"/velocity", w.Member.Token, nil).Expect(t, 404)
}

func mustDay(t *testing.T, d string) time.Time {
	t.Helper()
	at, err := time.Parse("2006-01-02", d)
	if err != nil {
		t.Fatal(err)
	}
	return at.Add(12 * time.Hour)
}
