package sprints_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
)

func TestBatchAssignSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)
	s := w.sprint(t, w.Project, "assign", "2025-01-01", "2025-01-14")
	prev := w.sprint(t, w.Project, "previous", "2024-12-01", "2024-12-14")
	prevID := uuid.MustParse(sid(prev))
	path := "/api/v1/sprints/" + sid(s) + "/batch-assign"
	t1 := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
	t2 := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{SprintID: &prevID}).ID

	t.Run("200 assigns, idempotent, audited", func(t *testing.T) {
		r := w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": []any{t1, t2, t1}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(2) {
			t.Fatalf("assigned %v", r)
		}
		r = w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": []any{t1, t2}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(0) {
			t.Fatalf("assigned %v", r)
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM tickets WHERE sprint_id = $1`, sid(s)); n != 2 {
			t.Fatalf("in sprint %d", n)
		}
		audit := w.Env.Audit(t, "ticket", t2) // its creation, then the move
		if len(audit) != 2 || audit[1].Changes[0].Field != "sprint_id" || audit[1].Changes[0].Old != sid(prev) || audit[1].Changes[0].New != sid(s) {
			t.Fatalf("audit %+v", audit)
		}
		ev := w.Env.Outbox(t, w.Owner.OrgID, "ticket.updated")
		if len(ev) != 2 || ev[0]["data"].(map[string]any)["sprint_id"] != sid(s) {
			t.Fatalf("events %v", ev)
		}
	})

	t.Run("422", func(t *testing.T) {
		otherProject := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "OTH"})
		elsewhere := testfactory.Ticket(t, w.Env.DB, otherProject, w.Owner.ID, testfactory.TicketOpts{}).ID
		outsideProject := testfactory.Project(t, w.Env.DB, w.Outsider.OrgID, testfactory.ProjectOpts{Key: "OUT"})
		foreign := testfactory.Ticket(t, w.Env.DB, outsideProject, w.Outsider.ID, testfactory.TicketOpts{}).ID
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		for name, ids := range map[string][]any{
			"other project": {t1, elsewhere},
			"other org":     {foreign},
			"deleted":       {gone},
			"empty":         {},
		} {
			t.Run(name, func(t *testing.T) {
				w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": ids}).Expect(t, 422)
			})
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM tickets WHERE id = $1 AND sprint_id IS NOT NULL`, elsewhere); n != 0 {
			t.Fatal("ticket of another project assigned")
		}
	})

	t.Run("409 Completed sprint", func(t *testing.T) {
		done := w.sprint(t, w.Project, "done", "2025-01-01", "2025-01-02")
		w.Env.Do("POST", "/api/v1/sprints/"+sid(done)+"/start", w.Member.Token, nil).Expect(t, 200)
		w.Env.Do("POST", "/api/v1/sprints/"+sid(done)+"/complete", w.Member.Token, nil).Expect(t, 200)
		w.Env.Do("POST", "/api/v1/sprints/"+sid(done)+"/batch-assign", w.Member.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 409)
	})

	t.Run("403 and 404", func(t *testing.T) {
		w.Env.Do("POST", path, w.Viewer.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 403)
		w.Env.Do("POST", path, w.Outsider.Token, map[string]any{"ticket_ids": []any{t1}}).Expect(t, 404)
	})
}

func TestDeleteSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("403 Member", func(t *testing.T) {
		s := w.sprint(t, w.Project, "keep", "2025-01-01", "2025-01-02")
		r := w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.Member.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatal(r.Error().Message)
		}
	})

	t.Run("204 empty sprint is deleted for real", func(t *testing.T) {
		s := w.sprint(t, w.Project, "empty", "2025-01-01", "2025-01-02")
		id := uuid.MustParse(sid(s))
		// A soft-deleted ticket still pointing at it does not block the delete.
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{SprintID: &id}).ID
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.Admin.Token, nil).Expect(t, 204)
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM sprints WHERE id = $1`, id); n != 0 {
			t.Fatal("row left")
		}
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s), w.Admin.Token, nil).Expect(t, 404)
	})

	t.Run("dry run, 409, cascade", func(t *testing.T) {
		s := w.sprint(t, w.Project, "full", "2025-01-01", "2025-01-02")
		id := uuid.MustParse(sid(s))
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{SprintID: &id})
		testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{SprintID: &id})
		outside := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID

		dry := w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s)+"?cascade=true&dry_run=true", w.Admin.Token, nil).Expect(t, 200).Map(t)
		if dry["sprint_id"] != sid(s) || dry["dependents"].(map[string]any)["tickets"] != float64(2) {
			t.Fatalf("dry run %v", dry)
		}
		r := w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.Admin.Token, nil).Expect(t, 409)
		if e := r.Error(); e.Code != "CONFLICT" || !strings.Contains(e.Message, "sprint") || e.Details[0] != "tickets: 2" {
			t.Fatalf("error %+v", e)
		}
		w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s)+"?cascade=true", w.Admin.Token, nil).Expect(t, 204)
		w.Env.Do("GET", "/api/v1/sprints/"+sid(s), w.Admin.Token, nil).Expect(t, 404)
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM tickets WHERE sprint_id = $1 AND deleted_at IS NOT NULL`, id); n != 2 {
			t.Fatalf("soft-deleted tickets %d", n)
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NULL`, outside); n != 1 {
			t.Fatal("unrelated ticket deleted")
		}
		jobs := w.Env.Outbox(t, w.Owner.OrgID, "job.cascade_delete")
		if len(jobs) != 1 || jobs[0]["entity_type"] != "sprint" || jobs[0]["entity_id"] != sid(s) {
			t.Fatalf("jobs %v", jobs)
		}
	})

	t.Run("404", func(t *testing.T) {
		s := w.sprint(t, w.Project, "x", "2025-01-01", "2025-01-02")
		w.Env.Do("DELETE", "/api/v1/sprints/"+sid(s), w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("DELETE", "/api/v1/sprints/"+uuid.NewString(), w.Admin.Token, nil).Expect(t, 404)
	})
}
