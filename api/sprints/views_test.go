package sprints_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/sprintdb/worktest"
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
		s := w.sprint(t, w.project, "board", "2025-01-01", "2025-01-14")
		id := uuid.MustParse(sid(s))
		a := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Title: "a", Status: "InProgress", SprintID: &id})
		worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Title: "b", Status: "InProgress", SprintID: &id})
		worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Title: "c", Status: "Done", SprintID: &id})
		worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Title: "not in sprint", Status: "Todo"})
		gone := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Title: "deleted", Status: "Todo", SprintID: &id})
		worktest.Exec(t, w.env.DB, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)

		var b board
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.viewer.Token, nil).Expect(t, 200).Decode(t, &b)
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
		if tk["id"] != a.String() || tk["title"] != "a" || tk["priority"] != "None" || tk["sprint_id"] != sid(s) || tk["reporter_id"] != w.owner.ID.String() {
			t.Fatalf("ticket %v", tk)
		}
		// q narrows the board (the search language); columns stay.
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board?q=category:in_progress+-b", w.viewer.Token, nil).Expect(t, 200).Decode(t, &b)
		if got := b.layout(); got != "Backlog:0,Todo:0,InProgress:1,InReview:0,Done:0,Cancelled:0" {
			t.Fatalf("q columns %s", got)
		}
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board?q=nope:x", w.viewer.Token, nil).Expect(t, 422)
	})

	t.Run("200 the project's own workflow; unknown statuses last", func(t *testing.T) {
		p := worktest.NewProject(t, w.env.DB, w.owner.OrgID, "KAN")
		wf := domain.NewID()
		worktest.Exec(t, w.env.DB, `INSERT INTO workflows (id, org_id, name, statuses, transitions) VALUES ($1, $2, 'Kanban',
			'[{"name":"Open","category":"todo"},{"name":"Doing","category":"in_progress"},{"name":"Shipped","category":"done"}]', '[]')`,
			wf, w.owner.OrgID)
		worktest.Exec(t, w.env.DB, `UPDATE projects SET workflow_id = $1 WHERE id = $2`, wf, p.ID)
		s := w.sprint(t, p, "kanban", "2025-01-01", "2025-01-03")
		id := uuid.MustParse(sid(s))
		worktest.NewTicket(t, w.env.DB, p, w.owner.ID, worktest.Ticket{Status: "Shipped", SprintID: &id})
		worktest.NewTicket(t, w.env.DB, p, w.owner.ID, worktest.Ticket{Status: "Legacy", SprintID: &id})
		var b board
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.member.Token, nil).Expect(t, 200).Decode(t, &b)
		if got := b.layout(); got != "Open:0,Doing:0,Shipped:1,Legacy:1" {
			t.Fatalf("columns %s", got)
		}
		// The burndown counts the workflow's done category.
		bd := w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.member.Token, nil).Expect(t, 200).Map(t)
		last := bd["data"].([]any)[2].(map[string]any)
		if last["completed_tickets"] != float64(1) || last["total_tickets"] != float64(2) {
			t.Fatalf("burndown %v", bd)
		}
	})

	t.Run("403 and 404", func(t *testing.T) {
		s := w.sprint(t, w.project, "x", "2025-01-01", "2025-01-02")
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.unassignedReporter.Token, nil).Expect(t, 403)
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/board", w.outside.Token, nil).Expect(t, 404)
		w.env.Do("GET", "/api/v1/sprints/"+uuid.NewString()+"/board", w.member.Token, nil).Expect(t, 404)
	})
}

func TestBurndown(t *testing.T) {
	t.Parallel()
	w := setup(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -3)
	end := today.AddDate(0, 0, 2)
	day := func(n int, hour int) time.Time { return start.AddDate(0, 0, n).Add(time.Duration(hour) * time.Hour) }
	s := w.sprint(t, w.project, "burn", start.Format("2006-01-02"), end.Format("2006-01-02"))
	id := uuid.MustParse(sid(s))
	ticket := func(status string) uuid.UUID {
		return worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Status: status, SprintID: &id})
	}
	org := w.owner.OrgID

	// Done on day 1 at noon, after starting work on day 0.
	t1 := ticket("Done")
	worktest.StatusAudit(t, w.env.DB, org, t1, "Backlog", "InProgress", day(0, 10))
	worktest.StatusAudit(t, w.env.DB, org, t1, "InProgress", "Done", day(1, 12))
	// Done today, just after midnight.
	t2 := ticket("Done")
	worktest.StatusAudit(t, w.env.DB, org, t2, "Todo", "Done", day(3, 0).Add(time.Second))
	// Never moved.
	ticket("Backlog")
	// Done on day 0, reopened on day 2.
	t4 := ticket("InProgress")
	worktest.StatusAudit(t, w.env.DB, org, t4, "Backlog", "Done", day(0, 9))
	worktest.StatusAudit(t, w.env.DB, org, t4, "Done", "InProgress", day(2, 9))
	// Done before the sprint began.
	t5 := ticket("Done")
	worktest.StatusAudit(t, w.env.DB, org, t5, "Backlog", "Done", day(-5, 9))
	// Done, but in no sprint: not counted.
	worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{Status: "Done"})

	bd := w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.viewer.Token, nil).Expect(t, 200).Map(t)
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
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.unassignedReporter.Token, nil).Expect(t, 403)
		w.env.Do("GET", "/api/v1/sprints/"+sid(s)+"/burndown", w.outside.Token, nil).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every sprint route: a non-member learns
// nothing (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	s := w.sprint(t, w.project, "x", "2025-01-01", "2025-01-02")
	tk := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
	pp := "/api/v1/projects/" + w.project.ID.String() + "/sprints"
	sp := "/api/v1/sprints/" + sid(s)
	routes := []struct {
		method, path string
		body         any
		write        bool
	}{
		{"POST", pp, map[string]any{"name": "y", "start_date": "2025-01-01", "end_date": "2025-01-02"}, true},
		{"GET", pp, nil, false},
		{"GET", sp, nil, false},
		{"PATCH", sp, map[string]any{"name": "z"}, true},
		{"POST", sp + "/start", nil, true},
		{"POST", sp + "/complete", nil, true},
		{"POST", sp + "/batch-assign", map[string]any{"ticket_ids": []any{tk}}, true},
		{"DELETE", sp, nil, true},
		{"GET", sp + "/board", nil, false},
		{"GET", sp + "/burndown", nil, false},
	}
	for _, r := range routes {
		w.env.Do(r.method, r.path, w.outside.Token, r.body).Expect(t, 404)
		if r.write {
			w.env.Do(r.method, r.path, w.viewer.Token, r.body).Expect(t, 403)
		} else {
			w.env.Do(r.method, r.path, w.viewer.Token, nil).Expect(t, 200)
		}
	}
}
