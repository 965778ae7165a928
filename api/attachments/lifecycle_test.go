package attachments_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"tracker/domain/attachment"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/objectstore"
)

func init() {
	cases = append(cases,
		attachmentCase{"the delete job removes the object, idempotently", testDeleteJob},
		attachmentCase{"the cleanup removes only old unconfirmed uploads", testSweep},
		attachmentCase{"export lists attachments (not the bytes); import accepts them", testExport},
	)
}

func testDeleteJob(t *testing.T, w world) {
	ctx := context.Background()
	a := w.attach(t, w.Member, w.Ticket.ID, "gone.txt", []byte("soon gone"))
	key := a["storage_key"].(string)
	w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Member.Token, nil).Expect(t, 204)
	jobs := w.Env.Outbox(t, w.Owner.OrgID, attachment.TopicDeleteObjects)
	var keys []string
	for _, k := range jobs[len(jobs)-1]["keys"].([]any) {
		keys = append(keys, k.(string))
	}
	for i := 0; i < 2; i++ { // a retried job finds nothing and succeeds
		if err := w.svc.DeleteObjects(ctx, keys, nil); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	if _, err := w.objects.Head(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("object still there: %v", err)
	}
}

func testSweep(t *testing.T, w world) {
	ctx := context.Background()
	confirmed := w.attach(t, w.Member, w.Ticket.ID, "kept.txt", []byte("kept"))
	u := w.presign(t, w.Member, w.Ticket.ID, "orphan.txt", "text/plain", 6)
	if code := put(t, u, "text/plain", []byte("orphan")); code != 200 {
		t.Fatalf("upload %d", code)
	}
	// Too recent: nothing goes.
	if _, err := w.svc.SweepUnconfirmed(ctx, "", time.Now().Add(-attachment.UnconfirmedTTL), 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := w.objects.Head(ctx, u.StorageKey); err != nil {
		t.Fatalf("a fresh upload was swept: %v", err)
	}
	// Once older than the cutoff, in pages of one: the orphan goes, the
	// confirmed object stays.
	after, deleted := "", 0
	for i := 0; i < 1000; i++ {
		page, err := w.svc.SweepUnconfirmed(ctx, after, time.Now().Add(time.Minute), 1)
		if err != nil {
			t.Fatal(err)
		}
		deleted += page.Deleted
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	if deleted == 0 {
		t.Fatal("nothing swept")
	}
	if _, err := w.objects.Head(ctx, u.StorageKey); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("orphan kept: %v", err)
	}
	if _, err := w.objects.Head(ctx, confirmed["storage_key"].(string)); err != nil {
		t.Fatalf("confirmed object swept: %v", err)
	}
	// The records of those presigns are gone with them: the orphan can no
	// longer be confirmed, and the confirmed key is still a 409.
	var n int
	w.Env.ScanRow(t, &n, `SELECT count(*) FROM attachment_uploads WHERE ticket_id = $1`, w.Ticket.ID)
	if n != 0 {
		t.Fatalf("%d presign records kept", n)
	}
	w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "orphan.txt", "text/plain", 6)).Expect(t, 422)
	again := upload{StorageKey: confirmed["storage_key"].(string)}
	w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, again, "kept.txt", "text/plain", 4)).Expect(t, 409)
}

func testExport(t *testing.T, w world) {
	a := w.attach(t, w.Member, w.Ticket.ID, "exported.txt", []byte("exported bytes"))
	doc := w.Env.Do("GET", "/api/v1/export?org_id="+w.Owner.OrgID.String(), w.Owner.Token, nil).Expect(t, 200)
	var d struct {
		Projects []struct {
			Key     string `json:"key"`
			Tickets []struct {
				Number      float64          `json:"number"`
				Attachments []map[string]any `json:"attachments"`
			} `json:"tickets"`
		} `json:"projects"`
	}
	doc.Decode(t, &d)
	var (
		found map[string]any
		rows  [][]any // the JSON's attachments as the SQLite table's rows
	)
	for _, p := range d.Projects {
		for _, tk := range p.Tickets {
			for i, f := range tk.Attachments {
				if f["storage_key"] == a["storage_key"] {
					found = f
				}
				rows = append(rows, []any{p.Key, int64(tk.Number), int64(i), f["filename"], f["content_type"],
					int64(f["size_bytes"].(float64)), f["storage_key"], f["uploaded_by"], f["created_at"]})
			}
		}
	}
	if found == nil || found["filename"] != "exported.txt" || found["uploaded_by"] != w.Member.Email ||
		found["size_bytes"] != float64(len("exported bytes")) || found["content_type"] != "text/plain" {
		t.Fatalf("exported attachment %v", found)
	}
	if strings.Contains(string(doc.Body), "exported bytes") {
		t.Fatal("the export carries the file's bytes")
	}
	checkSQLiteAttachments(t, w, rows)
	other := w.Env.Register("Importer")
	if r := w.Env.Do("POST", "/api/v1/import", other.Token, doc.Body); r.Status != 200 && r.Status != 202 {
		t.Fatalf("import %d %s", r.Status, r.Body)
	}
}

// checkSQLiteAttachments exports the org as SQLite and checks its
// attachments table holds exactly want (the JSON export's attachments as
// rows, in document order) and no file bytes.
func checkSQLiteAttachments(t *testing.T, w world, want [][]any) {
	t.Helper()
	r := w.Env.Do("GET", "/api/v1/export?format=sqlite&org_id="+w.Owner.OrgID.String(), w.Owner.Token, nil).Expect(t, 200)
	if bytes.Contains(r.Body, []byte("exported bytes")) {
		t.Fatal("the sqlite export carries the file's bytes")
	}
	path := filepath.Join(t.TempDir(), "export.sqlite")
	if err := os.WriteFile(path, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	var got [][]any
	err := exportdb.ReadTable(context.Background(), path, "attachments", func(v []any) error {
		got = append(got, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("sqlite attachments\n%v\nwant (from the JSON export)\n%v", got, want)
	}
}
