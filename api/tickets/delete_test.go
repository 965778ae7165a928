package tickets_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
	"tracker/store/ticketdb"
)

func TestDelete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env

	t.Run("204 without comments: deleted for real, with its label links", func(t *testing.T) {
		tk := f.ticket(t, "d")
		testfactory.Label(t, f.env.DB, f.owner.OrgID, testfactory.LabelOpts{Name: "bug", Tickets: []uuid.UUID{tk.ID}})
		testfactory.Tag(t, f.env.DB, f.owner.OrgID, testfactory.TagOpts{EntityType: "ticket", EntityID: tk.ID})
		env.Do("DELETE", path("/tickets/%s", tk.ID), f.admin.Token, nil).Expect(t, 204)
		var n int
		f.env.ScanRow(t, &n, `SELECT (SELECT count(*) FROM tickets WHERE id = $1) + (SELECT count(*) FROM ticket_labels WHERE ticket_id = $1)
		                 + (SELECT count(*) FROM entity_tags WHERE entity_id = $1)`, tk.ID)
		if n != 0 {
			t.Fatal("ticket, label link or tag kept")
		}
		env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil).Expect(t, 404)
		f.env.ScanRow(t, &n, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'deleted'`, tk.ID)
		if n != 1 {
			t.Fatal("no audit row")
		}
	})

	t.Run("204 with time entries: a tombstone whose purge is scheduled", func(t *testing.T) {
		tk := f.ticket(t, "with time")
		testfactory.TimeEntry(t, f.env.DB, ticketdb.Row{ID: tk.ID, OrgID: f.owner.OrgID, ProjectID: f.project}, f.member.ID,
			testfactory.TimeEntryOpts{Minutes: 30})
		env.Do("DELETE", path("/tickets/%s", tk.ID), f.admin.Token, nil).Expect(t, 204)
		env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil).Expect(t, 404)
		var kept, jobs int
		f.env.ScanRow(t, &kept, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NOT NULL`, tk.ID)
		f.env.ScanRow(t, &jobs, `SELECT count(*) FROM outbox WHERE topic = 'job.cascade_delete' AND payload->>'entity_id' = $1`, tk.ID.String())
		if kept != 1 || jobs != 1 {
			t.Fatalf("tombstone %d, purge jobs %d", kept, jobs)
		}
	})

	t.Run("409 with comments, 200 dry run, 204 cascade", func(t *testing.T) {
		tk := f.ticket(t, "c")
		f.comment(t, tk.ID)
		f.comment(t, tk.ID)
		r := env.Do("DELETE", path("/tickets/%s", tk.ID), f.admin.Token, nil).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" || len(r.Error().Details) != 1 || r.Error().Details[0] != "comments: 2" {
			t.Fatalf("%s", r.Body)
		}
		m := env.Do("DELETE", path("/tickets/%s?cascade=true&dry_run=true", tk.ID), f.admin.Token, nil).Expect(t, 200).Map(t)
		if m["ticket_id"] != tk.ID.String() || m["dependents"].(map[string]any)["comments"] != float64(2) {
			t.Fatalf("%v", m)
		}
		env.Do("DELETE", path("/tickets/%s?dry_run=true", tk.ID), f.admin.Token, nil).Expect(t, 200)
		env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil).Expect(t, 200)
		env.Do("DELETE", path("/tickets/%s?cascade=true", tk.ID), f.owner.Token, nil).Expect(t, 204)
		env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil).Expect(t, 404)
		var n int
		f.env.ScanRow(t, &n, `SELECT count(*) FROM outbox WHERE topic = 'job.cascade_delete' AND payload->>'entity_id' = $1`, tk.ID.String())
		if n != 1 {
			t.Fatal("no cascade job")
		}
		f.env.ScanRow(t, &n, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NOT NULL`, tk.ID)
		if n != 1 {
			t.Fatal("not soft-deleted")
		}
	})

	t.Run("204 referenced elsewhere falls back to a soft delete", func(t *testing.T) {
		tk := f.ticket(t, "ref")
		other := f.ticket(t, "holder")
		// a row of another table pointing at the ticket without cascade
		f.env.Exec(t, `CREATE TABLE IF NOT EXISTS test_refs (ticket_id uuid REFERENCES tickets (id))`)
		f.env.Exec(t, `INSERT INTO test_refs VALUES ($1)`, tk.ID)
		env.Do("DELETE", path("/tickets/%s", tk.ID), f.admin.Token, nil).Expect(t, 204)
		env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil).Expect(t, 404)
		env.Do("GET", path("/tickets/%s", other.ID), f.owner.Token, nil).Expect(t, 200)
		var n int
		f.env.ScanRow(t, &n, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NOT NULL`, tk.ID)
		if n != 1 {
			t.Fatal("not kept as a soft-deleted row")
		}
	})

	t.Run("422 bad query", func(t *testing.T) {
		tk := f.ticket(t, "q")
		env.Do("DELETE", path("/tickets/%s?cascade=maybe", tk.ID), f.admin.Token, nil).Expect(t, 422)
	})

	t.Run("403 below Admin", func(t *testing.T) {
		tk := f.ticket(t, "q")
		for _, tok := range []string{f.member.Token, f.viewer.Token, f.reporter.Token} {
			env.Do("DELETE", path("/tickets/%s", tk.ID), tok, nil).Expect(t, 403)
		}
	})

	t.Run("404", func(t *testing.T) {
		tk := f.ticket(t, "q")
		env.Do("DELETE", path("/tickets/%s", tk.ID), f.outsider.Token, nil).Expect(t, 404)
		env.Do("DELETE", path("/tickets/%s", uuid.New()), f.owner.Token, nil).Expect(t, 404)
	})
}
