package cascadedb

import (
	"context"
	"maps"
	"testing"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/storetest"
)

func setup(t *testing.T) (db *store.DB, a, b, other tree) {
	t.Helper()
	db = storetest.New(t)
	org, user := newOrg(t, db)
	label := newLabel(t, db, org)
	a = newTree(t, db, org, user, label, "AAA", 20)
	b = newTree(t, db, org, user, label, "BBB", 5)
	org2, user2 := newOrg(t, db)
	other = newTree(t, db, org2, user2, newLabel(t, db, org2), "AAA", 5)
	return db, a, b, other
}

func scalar(t *testing.T, db *store.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Q().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func assertUnchanged(t *testing.T, db *store.DB, name string, p uuid.UUID, before map[string]int) {
	t.Helper()
	if after := counts(t, db, p); !maps.Equal(before, after) {
		t.Errorf("%s changed: before %v, after %v", name, before, after)
	}
}

func TestPurgeProject(t *testing.T) {
	t.Parallel()
	db, a, b, other := setup(t)
	bBefore, otherBefore := counts(t, db, b.ProjectID), counts(t, db, other.ProjectID)
	softDelete(t, db, "projects", a.ProjectID)

	if n := purge(t, db, Root{OrgID: a.OrgID, Type: "project", ID: a.ProjectID}); n == 0 {
		t.Fatal("nothing purged")
	}
	got := counts(t, db, a.ProjectID)
	want := map[string]int{"projects": 0, "project_members": 0, "sprints": 0, "tickets": 0, "comments": 0,
		"ticket_labels": 0, "ticket_tags": 0, "project_tags": 0}
	if hasTimeEntries(t, db) {
		// The approved entry keeps its ticket and the project as tombstones.
		want = map[string]int{"projects": 1, "project_members": 0, "sprints": 0, "tickets": 1, "comments": 0,
			"ticket_labels": 0, "ticket_tags": 1, "project_tags": 1, "time_entries": 1, "entry_tags": 1}
		if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1 AND deleted_at IS NULL`, a.Approved); n != 0 {
			t.Error("the tombstone ticket is visible")
		}
		if n := scalar(t, db, `SELECT count(*) FROM projects WHERE id = $1 AND deleted_at IS NOT NULL`, a.ProjectID); n != 1 {
			t.Error("the project tombstone lost its deleted_at")
		}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("left of the project: %v, want %v", got, want)
	}
	assertUnchanged(t, db, "sibling project", b.ProjectID, bBefore)
	assertUnchanged(t, db, "other org", other.ProjectID, otherBefore)
	if n := scalar(t, db, `SELECT count(*) FROM labels WHERE id = $1`, a.LabelID); n != 1 {
		t.Error("the shared label was deleted")
	}

	// Running the plan again changes nothing (a resumed workflow).
	purge(t, db, Root{OrgID: a.OrgID, Type: "project", ID: a.ProjectID})
	if again := counts(t, db, a.ProjectID); !maps.Equal(again, want) {
		t.Fatalf("second run: %v", again)
	}
}

func TestPurgeSprint(t *testing.T) {
	t.Parallel()
	db, a, b, _ := setup(t)
	bBefore := counts(t, db, b.ProjectID)
	s := a.Sprints[0]
	softDelete(t, db, "sprints", s)
	exec(t, db.Q(), `UPDATE tickets SET deleted_at = now() WHERE sprint_id = $1`, s)

	purge(t, db, Root{OrgID: a.OrgID, Type: "sprint", ID: s})
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1`, a.Tickets[0]); n != 0 {
		t.Error("the sprint's ticket survived")
	}
	if n := scalar(t, db, `SELECT count(*) FROM comments WHERE ticket_id = ANY ($1)`, a.Tickets[:2]); n != 0 {
		t.Errorf("%d comments of the sprint's tickets survived", n)
	}
	wantSprint := 0
	if hasTimeEntries(t, db) {
		if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1 AND sprint_id IS NULL AND deleted_at IS NOT NULL`, a.Approved); n != 1 {
			t.Error("the approved ticket is not a detached tombstone")
		}
	}
	if n := scalar(t, db, `SELECT count(*) FROM sprints WHERE id = $1`, s); n != wantSprint {
		t.Errorf("sprint rows %d, want %d", n, wantSprint)
	}
	// Everything else of the project is untouched.
	if n := scalar(t, db, `SELECT count(*) FROM sprints WHERE id = $1`, a.Sprints[1]); n != 1 {
		t.Error("the other sprint was deleted")
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE project_id = $1 AND deleted_at IS NULL`, a.ProjectID); n != 18 {
		t.Errorf("live tickets %d, want 18", n)
	}
	if n := scalar(t, db, `SELECT count(*) FROM comments WHERE ticket_id = ANY ($1)`, a.Tickets[2:]); n != 54 {
		t.Errorf("comments of other tickets %d, want 54", n)
	}
	assertUnchanged(t, db, "sibling project", b.ProjectID, bBefore)
}

func TestPurgeTicket(t *testing.T) {
	t.Parallel()
	db, a, b, _ := setup(t)
	bBefore := counts(t, db, b.ProjectID)
	victim := a.Tickets[5]
	softDelete(t, db, "tickets", victim)
	purge(t, db, Root{OrgID: a.OrgID, Type: "ticket", ID: victim})
	for _, sql := range []string{
		`SELECT count(*) FROM tickets WHERE id = $1`,
		`SELECT count(*) FROM comments WHERE ticket_id = $1`,
		`SELECT count(*) FROM ticket_labels WHERE ticket_id = $1`,
		`SELECT count(*) FROM entity_tags WHERE entity_id = $1`,
	} {
		if n := scalar(t, db, sql, victim); n != 0 {
			t.Errorf("%s: %d left", sql, n)
		}
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE project_id = $1`, a.ProjectID); n != 19 {
		t.Errorf("project tickets %d, want 19", n)
	}
	if n := scalar(t, db, `SELECT count(*) FROM comments`); n != (19+5+5)*3 {
		t.Errorf("comments %d, want %d", n, (19+5+5)*3)
	}
	assertUnchanged(t, db, "sibling project", b.ProjectID, bBefore)

	if !hasTimeEntries(t, db) {
		return
	}
	// A ticket with an approved entry keeps the entry and stays a tombstone.
	softDelete(t, db, "tickets", a.Tickets[0])
	softDelete(t, db, "tickets", a.Approved)
	purge(t, db, Root{OrgID: a.OrgID, Type: "ticket", ID: a.Approved})
	purge(t, db, Root{OrgID: a.OrgID, Type: "ticket", ID: a.Tickets[0]})
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1`, a.Approved); n != 1 {
		t.Error("the approved ticket was deleted")
	}
	if n := scalar(t, db, `SELECT count(*) FROM comments WHERE ticket_id = $1`, a.Approved); n != 0 {
		t.Error("the tombstone kept its comments")
	}
	if n := scalar(t, db, `SELECT count(*) FROM time_entries WHERE ticket_id = ANY ($1)`, []uuid.UUID{a.Tickets[0], a.Approved}); n != 1 {
		t.Errorf("time entries left %d, want the approved one", n)
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1`, a.Tickets[0]); n != 0 {
		t.Error("the ticket with only draft entries survived")
	}
}

func TestPurgeLabel(t *testing.T) {
	t.Parallel()
	db, a, b, other := setup(t)
	keep := newLabel(t, db, a.OrgID)
	exec(t, db.Q(), `INSERT INTO ticket_labels (org_id, ticket_id, label_id) VALUES ($1, $2, $3)`, a.OrgID, a.Tickets[0], keep)
	softDelete(t, db, "labels", a.LabelID)
	purge(t, db, Root{OrgID: a.OrgID, Type: "label", ID: a.LabelID})
	if n := scalar(t, db, `SELECT count(*) FROM labels WHERE id = $1`, a.LabelID); n != 0 {
		t.Error("label survived")
	}
	if n := scalar(t, db, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, a.LabelID); n != 0 {
		t.Error("links survived")
	}
	if n := scalar(t, db, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, keep); n != 1 {
		t.Error("another label's link was removed")
	}
	if n := scalar(t, db, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, other.LabelID); n != 5 {
		t.Error("the other org's links changed")
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE project_id = ANY ($1)`, []uuid.UUID{a.ProjectID, b.ProjectID}); n != 25 {
		t.Error("tickets were touched")
	}
}

func TestStateAndPlan(t *testing.T) {
	t.Parallel()
	db, a, _, _ := setup(t)
	ctx := context.Background()
	r := Root{OrgID: a.OrgID, Type: "project", ID: a.ProjectID}
	if st, _ := State(ctx, db.Q(), r); st != RootLive {
		t.Fatalf("live project state %v", st)
	}
	if st, _ := State(ctx, db.Q(), Root{OrgID: uuid.New(), Type: "project", ID: a.ProjectID}); st != RootGone {
		t.Fatalf("another org's project state %v, want gone", st)
	}
	if _, err := Plan("workflow"); err == nil {
		t.Fatal("unknown root type accepted")
	}
}

func TestRepliesAndUnknownReferences(t *testing.T) {
	t.Parallel()
	db, a, _, _ := setup(t)
	// A reply in a surviving ticket to a comment of the purged ticket, and a
	// table the purge does not know that references another purged ticket.
	reply := a.Comments[3*3] // first comment of Tickets[3]
	exec(t, db.Q(), `UPDATE comments SET parent_comment_id = $1 WHERE id = $2`, a.Comments[3*4], reply)
	exec(t, db.Q(), `CREATE TABLE ext_links (id serial PRIMARY KEY, ticket_id uuid NOT NULL REFERENCES tickets (id))`)
	exec(t, db.Q(), `INSERT INTO ext_links (ticket_id) VALUES ($1)`, a.Tickets[6])
	softDelete(t, db, "tickets", a.Tickets[4])
	softDelete(t, db, "tickets", a.Tickets[6])

	purge(t, db, Root{OrgID: a.OrgID, Type: "ticket", ID: a.Tickets[4]})
	purge(t, db, Root{OrgID: a.OrgID, Type: "ticket", ID: a.Tickets[6]})
	if n := scalar(t, db, `SELECT count(*) FROM comments WHERE id = $1 AND parent_comment_id IS NULL`, reply); n != 1 {
		t.Error("the reply in another ticket was not detached and kept")
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1`, a.Tickets[4]); n != 0 {
		t.Error("ticket 4 survived")
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE id = $1`, a.Tickets[6]); n != 1 {
		t.Error("a ticket referenced by an unknown table was deleted")
	}
	if n := scalar(t, db, `SELECT count(*) FROM ext_links`); n != 1 {
		t.Error("the unknown table was touched")
	}
}
