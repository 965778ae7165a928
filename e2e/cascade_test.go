package e2e

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// bulk fills a project with n tickets of c comments each (replies chained),
// a sprint holding the first tickets, the label on every ticket, tags and a
// member, straight in SQL: the test needs volume, not the API's paths.
func bulk(t *testing.T, db *store.DB, org, userID, project, label uuid.UUID, n, c int) {
	t.Helper()
	sprint := domain.NewID()
	sqlExec(t, db, `INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date) VALUES ($1, $2, $3, 'bulk', '2025-01-01', '2025-01-14')`,
		sprint, org, project)
	sqlExec(t, db, `INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, org, project, userID)
	sqlExec(t, db, `INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id, sprint_id)
		SELECT gen_random_uuid(), $1, $2, 1000 + i, 'bulk ' || i, 'Todo', $3, CASE WHEN i <= 5 THEN $4::uuid END
		FROM generate_series(1, $5::int) i`, org, project, userID, sprint, n)
	for j := 0; j < c; j++ { // one reply level per round: each comment answers the previous one
		sqlExec(t, db, `INSERT INTO comments (id, org_id, ticket_id, author_id, body, parent_comment_id)
			SELECT gen_random_uuid(), t.org_id, t.id, $3, 'c',
			       (SELECT c.id FROM comments c WHERE c.ticket_id = t.id ORDER BY c.created_at DESC, c.id DESC LIMIT 1)
			FROM tickets t WHERE t.project_id = $1 AND t.org_id = $2`, project, org, userID)
	}
	sqlExec(t, db, `INSERT INTO ticket_labels (org_id, ticket_id, label_id) SELECT org_id, id, $2 FROM tickets WHERE project_id = $1`, project, label)
	sqlExec(t, db, `INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		SELECT gen_random_uuid(), org_id, 'ticket', id, 'k', 'v' FROM tickets WHERE project_id = $1`, project)
}

// projectRows counts every row that belongs to a project.
func projectRows(t *testing.T, db *store.DB, p uuid.UUID) map[string]int {
	t.Helper()
	out := map[string]int{}
	for name, sql := range map[string]string{
		"projects":        `SELECT count(*) FROM projects WHERE id = $1`,
		"project_members": `SELECT count(*) FROM project_members WHERE project_id = $1`,
		"sprints":         `SELECT count(*) FROM sprints WHERE project_id = $1`,
		"tickets":         `SELECT count(*) FROM tickets WHERE project_id = $1`,
		"comments":        `SELECT count(*) FROM comments WHERE ticket_id IN (SELECT id FROM tickets WHERE project_id = $1)`,
		"ticket_labels":   `SELECT count(*) FROM ticket_labels WHERE ticket_id IN (SELECT id FROM tickets WHERE project_id = $1)`,
		"ticket_tags":     `SELECT count(*) FROM entity_tags WHERE entity_type = 'ticket' AND entity_id IN (SELECT id FROM tickets WHERE project_id = $1)`,
	} {
		out[name] = scalar(t, db, sql, p)
	}
	return out
}

// TestCascadeDeleteSurvivesAWorkerKill: DELETE ?cascade=true hides the
// project at once; the worker is killed mid-purge; after a restart the purge
// completes, nothing of the project is left and nothing else is touched.
func TestCascadeDeleteSurvivesAWorkerKill(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	// Small, slow batches so the kill lands mid-purge.
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_CASCADE_BATCH": "25", "TRACKER_TEST_CASCADE_PAUSE": "150ms"})
	s.run("api")
	w := s.run("worker")
	u := s.register("owner")
	doomed, sibling, check := cascadeFixture(t, s, db, u)
	total := projectRows(t, db, doomed)["comments"]

	r := s.do("DELETE", "/projects/"+doomed.String()+"?cascade=true", u.Token, nil)
	if r.routeMissing() {
		t.Log("DELETE /projects not mounted: soft-deleting and scheduling the purge directly")
		ctx := context.Background()
		if err := db.InTx(ctx, func(q store.Querier) error {
			if _, err := q.Exec(ctx, `UPDATE projects SET deleted_at = now() WHERE id = $1`, doomed); err != nil {
				return err
			}
			return domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: u.OrgID, EntityType: "project", EntityID: doomed}, time.Now())
		}); err != nil {
			t.Fatal(err)
		}
	} else if r.Status != 204 {
		t.Fatalf("DELETE ?cascade=true: %d %s", r.Status, r.Body)
	} else {
		s.must(404, "GET", "/projects/"+doomed.String(), u.Token, nil) // gone from reads at once
	}

	waitFor(t, 60*time.Second, "the purge to start", func() bool {
		return scalar(t, db, `SELECT count(*) FROM comments WHERE ticket_id IN (SELECT id FROM tickets WHERE project_id = $1)`, doomed) < total
	})
	w.kill()
	time.Sleep(300 * time.Millisecond) // a COMMIT sent just before the kill may still land
	mid := projectRows(t, db, doomed)
	if mid["comments"] == 0 || mid["projects"] == 0 {
		t.Fatalf("the purge finished before the kill: %v", mid)
	}
	time.Sleep(time.Second)
	if now := projectRows(t, db, doomed); !maps.Equal(now, mid) {
		t.Fatalf("rows still changing with the worker dead: %v then %v", mid, now)
	}

	s.run("worker")
	waitFor(t, 120*time.Second, "the purge to complete", func() bool {
		for _, n := range projectRows(t, db, doomed) {
			if n != 0 {
				return false
			}
		}
		return true
	})
	check()
	s.must(200, "GET", "/projects/"+sibling.String(), u.Token, nil)
}

// cascadeFixture makes a project to delete (40 tickets of 10 chained
// comments), a sibling project and another org's project of the same
// shapes sharing a label name; check asserts that the sibling, the other
// org and the label are as they were.
func cascadeFixture(t *testing.T, s *stack, db *store.DB, u user) (doomed, sibling uuid.UUID, check func()) {
	t.Helper()
	label := testfactory.Label(t, db, u.OrgID, testfactory.LabelOpts{Name: "shared", Color: "#fff"}).ID
	doomed = s.createProject(db, u, "DOOM")
	sibling = s.createProject(db, u, "KEEP")
	bulk(t, db, u.OrgID, u.ID, doomed, label, 40, 10)
	bulk(t, db, u.OrgID, u.ID, sibling, label, 5, 3)
	other := s.register("other") // another org, same shapes
	otherLabel := testfactory.Label(t, db, other.OrgID, testfactory.LabelOpts{Name: "shared", Color: "#fff"}).ID
	otherProject := s.createProject(db, other, "DOOM")
	bulk(t, db, other.OrgID, other.ID, otherProject, otherLabel, 5, 3)
	siblingBefore, otherBefore := projectRows(t, db, sibling), projectRows(t, db, otherProject)
	return doomed, sibling, func() {
		t.Helper()
		if after := projectRows(t, db, sibling); !maps.Equal(after, siblingBefore) {
			t.Errorf("the sibling project changed: %v, was %v", after, siblingBefore)
		}
		if after := projectRows(t, db, otherProject); !maps.Equal(after, otherBefore) {
			t.Errorf("the other org changed: %v, was %v", after, otherBefore)
		}
		if n := scalar(t, db, `SELECT count(*) FROM labels WHERE id = $1`, label); n != 1 {
			t.Error("the shared label was deleted")
		}
	}
}
