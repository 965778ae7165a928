package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// importRaw posts a document as it is (the harness's do marshals bodies).
func (s *stack) importRaw(path, token string, doc []byte) resp {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.BaseURL+"/api/v1"+path, bytes.NewReader(doc))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Body: b}
}

// importNormalized is a document without what differs between two
// exports of equal data.
func importNormalized(t *testing.T, raw []byte) string {
	t.Helper()
	var d export.Document
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	d.Source, d.ExportedAt = "", time.Time{}
	b, _ := json.Marshal(d)
	return string(b)
}

// TestImportSurvivesAWorkerKill: an import runs as the Import workflow on
// the real dev server; the worker is killed with SIGKILL in the middle;
// after a restart the import completes with exact counts, no duplicate, and
// the target org exports the same document as the source.
func TestImportSurvivesAWorkerKill(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	// Small, slow batches so the kill lands mid-import; their pauses alone
	// (12 batches of 40) outlast the API's 3 s wait, so it answers 202.
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_IMPORT_BATCH": "40", "TRACKER_TEST_IMPORT_PAUSE": "400ms"})
	s.run("api")
	w := s.run("worker")
	u := s.register("owner")
	seeded, doc, target := importFixture(t, s, db, u, 4)

	r := s.importRaw("/import?org_id="+target.String(), u.Token, doc)
	if r.Status != 202 {
		t.Fatalf("POST /import: %d %s (want 202: the slowed import takes longer than the wait)", r.Status, r.Body)
	}
	id := r.m(t)["import_id"].(string)
	tickets := func() int { return scalar(t, db, `SELECT count(*) FROM tickets WHERE org_id = $1`, target) }
	waitFor(t, 60*time.Second, "the first batches", func() bool { return tickets() >= 80 })
	w.kill()
	time.Sleep(300 * time.Millisecond) // a COMMIT sent just before the kill may still land
	mid := tickets()
	if mid >= seeded.Tickets {
		t.Fatalf("the import finished before the kill (%d tickets)", mid)
	}
	st := s.must(200, "GET", "/imports/"+id, u.Token, nil).m(t)
	if st["status"] != "running" || st["progress"].(map[string]any)["tickets_processed"].(float64) != float64(mid) {
		t.Fatalf("mid-import status %v with %d tickets", st, mid)
	}
	time.Sleep(time.Second)
	if now := tickets(); now != mid {
		t.Fatalf("tickets still arriving with the worker dead: %d then %d", mid, now)
	}

	s.run("worker")
	waitFor(t, 120*time.Second, "the import to complete", func() bool {
		st = s.must(200, "GET", "/imports/"+id, u.Token, nil).m(t)
		return st["status"] == "completed" || st["status"] == "failed"
	})
	checkImport(t, s, db, u, id, st, seeded, doc, target)
}

// importFixture seeds an org with the given number of projects of 120
// tickets, exports it,
// and makes the target org with the source's people in their roles (an
// import never enrolls anyone: it invites, so they join first, as an Admin
// adds existing users).
func importFixture(t *testing.T, s *stack, db *store.DB, u user, projects int) (exportseed.Seeded, []byte, uuid.UUID) {
	t.Helper()
	seeded, err := exportseed.Seed(context.Background(), db, u.OrgID, u.ID, exportseed.Options{Projects: projects,
		TicketsPerProject: 120, CommentsPerTicket: 2, EntriesPerTicket: 1})
	if err != nil {
		t.Fatal(err)
	}
	doc := s.must(200, "GET", "/export?org_id="+u.OrgID.String(), u.Token, nil).Body
	target := uuid.MustParse(s.must(201, "POST", "/orgs", u.Token, map[string]any{"name": "Target", "slug": "target-" + uuid.NewString()[:8]}).m(t)["id"].(string))
	var src export.Document
	if err := json.Unmarshal(doc, &src); err != nil {
		t.Fatal(err)
	}
	for _, m := range src.Users {
		if m.Role == nil {
			continue
		}
		var uid uuid.UUID
		if err := db.Q().QueryRow(context.Background(), `SELECT id FROM users WHERE email = $1`, m.Email).Scan(&uid); err != nil {
			t.Fatal(err)
		}
		if uid == u.ID {
			continue
		}
		s.must(201, "POST", "/orgs/"+target.String()+"/members", u.Token, map[string]any{"user_id": uid, "role": strings.ToLower(*m.Role)})
	}
	return seeded, doc, target
}

// checkImport asserts a completed import: its summary, exactly the seeded
// rows in the target (none twice), and the target exporting the same
// document as the source. It returns the number of tickets stored more than
// once (0 unless it fails).
func checkImport(t *testing.T, s *stack, db *store.DB, u user, id string, st map[string]any, seeded exportseed.Seeded, doc []byte, target uuid.UUID) int {
	t.Helper()
	want := map[string]float64{"users_created": 0, "workflows_created": 1, "labels_created": 2, "projects_created": float64(len(seeded.ProjectKeys)),
		"sprints_created": float64(3 * len(seeded.ProjectKeys)), "tickets_created": float64(seeded.Tickets), "comments_created": float64(seeded.Comments),
		"time_entries_created": float64(seeded.Entries), "links_created": float64(seeded.Links),
		"parents_set": float64(seeded.Parents)}
	sum, _ := st["summary"].(map[string]any)
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %v, want %v (%v)", k, sum[k], v, st)
		}
	}
	counts := map[string]int{
		"tickets":  scalar(t, db, `SELECT count(*) FROM tickets WHERE org_id = $1`, target),
		"distinct": scalar(t, db, `SELECT count(DISTINCT (project_id, ticket_number)) FROM tickets WHERE org_id = $1`, target),
		"comments": scalar(t, db, `SELECT count(*) FROM comments WHERE org_id = $1`, target),
		"entries":  scalar(t, db, `SELECT count(*) FROM time_entries WHERE org_id = $1`, target),
		"keys":     scalar(t, db, `SELECT count(*) FROM import_key_map WHERE import_id = $1 AND kind = 'ticket'`, id),
	}
	if counts["tickets"] != seeded.Tickets || counts["distinct"] != seeded.Tickets || counts["comments"] != seeded.Comments ||
		counts["entries"] != seeded.Entries || counts["keys"] != seeded.Tickets {
		t.Fatalf("rows in the target %v, seeded %+v", counts, seeded)
	}
	again := s.must(200, "GET", "/export?org_id="+target.String(), u.Token, nil).Body
	if importNormalized(t, again) != importNormalized(t, doc) {
		t.Fatal("the target's export differs from the source's")
	}
	return counts["tickets"] - counts["distinct"]
}

// importRun is an import in flight: the source's document, the target org
// and what the source was seeded with.
type importRun struct {
	id     string
	target uuid.UUID
	seeded exportseed.Seeded
	doc    []byte
}

// startImport seeds u's org with the given number of projects, exports it
// and posts the export to a new target org; the import must answer 202 (the
// stack's import batches are slowed so that it runs as a workflow a while).
func (s *stack) startImport(db *store.DB, u user, projects int) importRun {
	t := s.t
	t.Helper()
	seeded, doc, target := importFixture(t, s, db, u, projects)
	r := s.importRaw("/import?org_id="+target.String(), u.Token, doc)
	if r.Status != 202 {
		t.Fatalf("POST /import: %d %s (want 202: the slowed import takes longer than the wait)", r.Status, r.Body)
	}
	return importRun{id: r.m(t)["import_id"].(string), target: target, seeded: seeded, doc: doc}
}

// tickets counts the target's tickets.
func (ir importRun) tickets(t *testing.T, db *store.DB) int {
	return scalar(t, db, `SELECT count(*) FROM tickets WHERE org_id = $1`, ir.target)
}

// finishImport waits for the import to end and checks it (checkImport),
// returning the number of tickets stored more than once.
func (s *stack) finishImport(db *store.DB, u user, ir importRun, timeout time.Duration) int {
	t := s.t
	t.Helper()
	var st map[string]any
	waitFor(t, timeout, "the import to complete", func() bool {
		st = s.must(200, "GET", "/imports/"+ir.id, u.Token, nil).m(t)
		return st["status"] == "completed" || st["status"] == "failed"
	})
	return checkImport(t, s, db, u, ir.id, st, ir.seeded, ir.doc, ir.target)
}
