package sprints_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/store/sprintdb/worktest"
)

func TestBatchAssignSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)
	s := w.sprint(t, w.project, "assign", "2025-01-01", "2025-01-14")
	prev := w.sprint(t, w.project, "previous", "2024-12-01", "2024-12-14")
	prevID := uuid.MustParse(sid(prev))
	path := "/api/v1/sprints/" + sid(s) + "/batch-assign"
	t1 := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
	t2 := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{SprintID: &prevID})

	t.Run("200 assigns, idempotent, audited", func(t *testing.T) {
		r := w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": []any{t1, t2, t1}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(2) {
			t.Fatalf("assigned %v", r)
		}
		r = w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": []any{t1, t2}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(0) {
			t.Fatalf("assigned %v", r)
		}
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM tickets WHERE sprint_id = $1`, sid(s)); n != 2 {
			t.Fatalf("in sprint %d", n)
		}
		audit := worktest.Audit(t, w.env.DB, "ticket", t2)
		if len(audit) != 1 || audit[0].Changes[0].Field != "sprint_id" || audit[0].Changes[0].Old != sid(prev) || audit[0].Changes[0].New != sid(s) {
			t.Fatalf("audit %+v", audit)
		}
		ev := worktest.Outbox(t, w.env.DB, w.owner.OrgID, "ticket.updated")
		if len(ev) != 2 || ev[0]["data"].(map[string]any)["sprint_id"] != sid(s) {
			t.Fatalf("events %v", ev)
		}
	})

	t.Run("422", func(t *testing.T) {
		otherProject := worktest.NewProject(t, w.env.DB, w.owner.OrgID, "OTH")
		elsewhere := worktest.NewTicket(t, w.env.DB, otherProject, w.owner.ID, worktest.Ticket{})
		outsideProject := worktest.NewProject(t, w.env.DB, w.outside.OrgID, "OUT")
		foreign := worktest.NewTicket(t, w.env.DB, outsideProject, w.outside.ID, worktest.Ticket{})
		gone := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
		worktest.Exec(t, w.env.DB, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		for name, ids := range map[string][]any{
			"other project": {t1, elsewhere},
			"other org":     {foreign},
			"deleted":       {gone},
			"empty":         {},
		} {
			t.Run(name, func(t *testing.T) {
				w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": ids}).Expect(t, 422)
			})
		}
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM tickets WHERE id = $1 AND sprint_id IS NOT NULL`, elsewhere); n != 0 {
			t.Fatal("ticket of another project assigned")
		}
	})

	t.Run("409 Completed sprint", func(t *testing.T) {
		done := w.sprint(t, w.project, "done", "2025-01-01", "2025-01-02")
		w.env.Do("POST", "/api/v1/sprints/"+sid(done)+"/start", w.member.Token, nil).Expect(t, 200)
		w.env.Do("POST", "/api/v1/sprints/"+sid(done)+"/complete", w.member.Token, nil).Expect(t, 200)
		w.env.Do("POST", "/api/v1/sprints/"+sid(done)+"/batch-assign", w.member.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 409)
	})

	t.Run("403 and 404", func(t *testing.T) {
		w.env.Do("POST", path, w.viewer.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 403)
		w.env.Do("POST", path, w.outside.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 404)
	})
}

func TestDeleteSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("403 Member", func(t *testing.T) {
		s := w.sprint(t, w.project, "keep", "2025-01-01", "2025-01-02")
		r := w.env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.member.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatal(r.Error().Message)
		}
	})

	t.Run("204 empty sprint is deleted for real", func(t *testing.T) {
		s := w.sprint(t, w.project, "empty", "2025-01-01", "2025-01-02")
		id := uuid.MustParse(sid(s))
		// A soft-deleted ticket still pointing at it does not block the delete.
		gone := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{SprintID: &id})
		worktest.Exec(t, w.env.DB, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		w.env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.admin.Token, nil).Expect(t, 204)
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM sprints WHERE id = $1`, id); n != 0 {
			t.Fatal("row left")
		}
		w.env.Do("GET", "/api/v1/sprints/"+sid(s), w.admin.Token, nil).Expect(t, 404)
	})

	t.Run("dry run, 409, cascade", func(t *testing.T) {
		s := w.sprint(t, w.project, "full", "2025-01-01", "2025-01-02")
		id := uuid.MustParse(sid(s))
		worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{SprintID: &id})
		worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{SprintID: &id})
		outside := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})

		dry := w.env.Do("DELETE", "/api/v1/sprints/"+sid(s)+"?cascade=true&dry_run=true", w.admin.Token, nil).Expect(t, 200).Map(t)
		if dry["sprint_id"] != sid(s) || dry["dependents"].(map[string]any)["tickets"] != float64(2) {
			t.Fatalf("dry run %v", dry)
		}
		r := w.env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.admin.Token, nil).Expect(t, 409)
		if e := r.Error(); e.Code != "CONFLICT" || !strings.Contains(e.Message, "sprint") || e.Details[0] != "tickets: 2" {
			t.Fatalf("error %+v", e)
		}
		w.env.Do("DELETE", "/api/v1/sprints/"+sid(s)+"?cascade=true", w.admin.Token, nil).Expect(t, 204)
		w.env.Do("GET", "/api/v1/sprints/"+sid(s), w.admin.Token, nil).Expect(t, 404)
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM tickets WHERE sprint_id = $1 AND deleted_at IS NOT NULL`, id); n != 2 {
			t.Fatalf("soft-deleted tickets %d", n)
		}
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NULL`, outside); n != 1 {
			t.Fatal("unrelated ticket deleted")
		}
		jobs := worktest.Outbox(t, w.env.DB, w.owner.OrgID, "job.cascade_delete")
		if len(jobs) != 1 || jobs[0]["entity_type"] != "sprint" || jobs[0]["entity_id"] != sid(s) {
			t.Fatalf("jobs %v", jobs)
		}
	})

	t.Run("404", func(t *testing.T) {
		s := w.sprint(t, w.project, "x", "2025-01-01", "2025-01-02")
		w.env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.outside.Token, nil).Expect(t, 404)
		w.env.Do("DELETE", "/api/v1/sprints/"+uuid.NewString(), w.admin.Token, nil).Expect(t, 404)
	})
}
