package sprints_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/statusflow"
	"tracker/domain/testfactory"
	"tracker/store/ticketdb"
)

type board struct {
	Sprint  map[string]any `json:"sprint"`
	Columns []struct {
		Status  string           `json:"status"`
		Tickets []map[string]any `json:"tickets"`
	} `json:"columns"`
}

func (b board) layout() string {
	var cols []string
	for _, c := range b.Columns {
		cols = append(cols, fmt.Sprintf("%s:%d", c.Status, len(c.Tickets)))
	}
	return strings.Join(cols, ",")
}

func TestBoard(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("200 Default workflow columns in order, empty ones included", func(t *testing.T) {
		s := w.sprint(t, w.Project, "board", "2025-01-01", "2025-01-14")
		id := uuid.MustParse(sid(s))
		a := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Title: "a", Status: "InProgress", SprintID: &id}).ID
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Title: "b", Status: "InProgress", SprintID: &id})
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Title: "c", Status: "Done", SprintID: &id})
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Title: "not in sprint", Status: "Todo"})
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Title: "deleted", Status: "Todo", SprintID: &id}).ID
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)

		var b board
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &b)
		if got := b.layout(); got != "Backlog:0,Todo:0,InProgress:2,InReview:0,Done:1,Cancelled:0" {
			t.Fatalf("columns %s", got)
		}
		if b.Sprint["id"] != sid(s) || b.Sprint["status"] != "Planned" {
			t.Fatalf("sprint %v", b.Sprint)
		}
		tk := b.Columns[2].Tickets[0]
		for _, f := range []string{"id", "project_id", "ticket_number", "title", "description", "status", "priority",
			"assignee_id", "reporter_id", "sprint_id", "created_at", "updated_at"} {
			if _, ok := tk[f]; !ok {
				t.Fatalf("ticket lacks %s: %v", f, tk)
			}
		}
		if tk["id"] != a.String() || tk["title"] != "a" || tk["priority"] != "None" || tk["sprint_id"] != sid(s) || tk["reporter_id"] != w.Owner.ID.String() {
			t.Fatalf("ticket %v", tk)
		}
		// q narrows the board (the search language); columns stay.
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board?q=category:in_progress+-b", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &b)
		if got := b.layout(); got != "Backlog:0,Todo:0,InProgress:1,InReview:0,Done:0,Cancelled:0" {
			t.Fatalf("q columns %s", got)
		}
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board?q=nope:x", w.Viewer.Token, nil).Expect(t, 422)
	})

	t.Run("200 the project's own workflow; unknown statuses last", func(t *testing.T) {
		wf := testfactory.Workflow(t, w.Env.DB, w.Owner.OrgID, testfactory.WorkflowOpts{Name: "Kanban", Statuses: []statusflow.Status{
			{Name: "Open", Category: "todo"}, {Name: "Doing", Category: "in_progress"}, {Name: "Shipped", Category: "done"}}})
		p := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "KAN", WorkflowID: &wf.ID})
		s := w.sprint(t, p, "kanban", "2025-01-01", "2025-01-03")
		id := uuid.MustParse(sid(s))
		testfactory.Ticket(t, w.Env.DB, p, w.Owner.ID, testfactory.TicketOpts{Status: "Shipped", SprintID: &id})
		testfactory.Ticket(t, w.Env.DB, p, w.Owner.ID, testfactory.TicketOpts{Status: "Legacy", SprintID: &id})
		var b board
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.Member.Token, nil).Expect(t, 200).Decode(t, &b)
		if got := b.layout(); got != "Open:0,Doing:0,Shipped:1,Legacy:1" {
			t.Fatalf("columns %s", got)
		}
		// The burndown counts the workflow's done category.
		bd := w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.Member.Token, nil).Expect(t, 200).Map(t)
		last := bd["data"].([]any)[2].(map[string]any)
		if last["completed_tickets"] != float64(1) || last["total_tickets"] != float64(2) {
			t.Fatalf("burndown %v", bd)
		}
	})

	t.Run("403 and 404", func(t *testing.T) {
		s := w.sprint(t, w.Project, "x", "2025-01-01", "2025-01-02")
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.UnassignedReporter.Token, nil).Expect(t, 403)
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/"+uuid.NewString()+"/board", w.Member.Token, nil).Expect(t, 404)
	})
}

func TestBurndown(t *testing.T) {
	t.Parallel()
	w := setup(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -3)
	end := today.AddDate(0, 0, 2)
	day := func(n int, hour int) time.Time { return start.AddDate(0, 0, n).Add(time.Duration(hour) * time.Hour) }
	s := w.sprint(t, w.Project, "burn", start.Format("2006-01-02"), end.Format("2006-01-02"))
	id := uuid.MustParse(sid(s))
	ticket := func(status string) ticketdb.Row {
		return testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: status, SprintID: &id})
	}

	// Done on day 1 at noon, after starting work on day 0.
	t1 := ticket("Done")
	testfactory.StatusChange(t, w.Env.DB, t1, testfactory.StatusChangeOpts{From: "Backlog", To: "InProgress", At: day(0, 10)})
	testfactory.StatusChange(t, w.Env.DB, t1, testfactory.StatusChangeOpts{From: "InProgress", To: "Done", At: day(1, 12)})
	// Done today, just after midnight.
	t2 := ticket("Done")
	testfactory.StatusChange(t, w.Env.DB, t2, testfactory.StatusChangeOpts{From: "Todo", To: "Done", At: day(3, 0).Add(time.Second)})
	// Never moved.
	ticket("Backlog")
	// Done on day 0, reopened on day 2.
	t4 := ticket("InProgress")
	testfactory.StatusChange(t, w.Env.DB, t4, testfactory.StatusChangeOpts{From: "Backlog", To: "Done", At: day(0, 9)})
	testfactory.StatusChange(t, w.Env.DB, t4, testfactory.StatusChangeOpts{From: "Done", To: "InProgress", At: day(2, 9)})
	// Done before the sprint began.
	t5 := ticket("Done")
	testfactory.StatusChange(t, w.Env.DB, t5, testfactory.StatusChangeOpts{From: "Backlog", To: "Done", At: day(-5, 9)})
	// Done, but in no sprint: not counted.
	testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: "Done"})

	bd := w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.Viewer.Token, nil).Expect(t, 200).Map(t)
	if bd["sprint_id"] != sid(s) {
		t.Fatalf("burndown %v", bd)
	}
	data := bd["data"].([]any)
	wantCompleted := []float64{2, 3, 2, 3, 3, 3} // days 4 and 5 are still to come: today's counts
	if len(data) != len(wantCompleted) {
		t.Fatalf("%d days: %v", len(data), data)
	}
	for i, d := range data {
		e := d.(map[string]any)
		if e["date"] != start.AddDate(0, 0, i).Format("2006-01-02") || e["total_tickets"] != float64(5) ||
			e["completed_tickets"] != wantCompleted[i] || e["remaining_tickets"] != 5-wantCompleted[i] {
			t.Fatalf("day %d: %v (all %v)", i, e, data)
		}
	}

	t.Run("403 and 404", func(t *testing.T) {
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.UnassignedReporter.Token, nil).Expect(t, 403)
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.Outsider.Token, nil).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every sprint route: a non-member learns
// nothing (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	s := w.sprint(t, w.Project, "x", "2025-01-01", "2025-01-02")
	tk := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
	pp := "/api/v1/projects/" + w.Project.ID.String() + "/sprints"
	sp := "/api/v1/sprints/" + sid(s)
	w.CheckAccess(t, []apitest.Route{
		{Method: "POST", Path: pp, Body: map[string]any{"name": "y", "start_date": "2025-01-01", "end_date": "2025-01-02"}, Write: true},
		{Method: "GET", Path: pp},
		{Method: "GET", Path: sp},
		{Method: "PATCH", Path: sp, Body: map[string]any{"name": "z"}, Write: true},
		{Method: "POST", Path: sp + "/start", Write: true},
		{Method: "POST", Path: sp + "/complete", Write: true},
		{Method: "POST", Path: sp + "/batch-assign", Body: map[string]any{"ticket_ids": []any{tk}}, Write: true},
		{Method: "DELETE", Path: sp, Write: true},
		{Method: "GET", Path: sp + "/board"},
		{Method: "GET", Path: sp + "/burndown"},
		{Method: "GET", Path: "/api/v1/projects/" + w.Project.ID.String() + "/velocity"},
	})
}
