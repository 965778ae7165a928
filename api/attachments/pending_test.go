package attachments_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/attachment"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
)

func init() {
	cases = append(cases,
		attachmentCase{"confirm before the upload is 201 pending; the upload makes it ready", testConfirmBeforeUpload},
		attachmentCase{"an object of another size or type: confirm after it is 422, before it removes the attachment", testWrongObject},
		attachmentCase{"never uploaded: the last look at the deadline removes it with an activity entry", testNeverUploaded},
	)
}

// verifyJob is the outbox's verification job of attachment id.
func (w world) verifyJob(t *testing.T, id string) attachment.VerifyJob {
	t.Helper()
	for _, m := range w.Env.Outbox(t, w.Owner.OrgID, attachment.TopicVerify) {
		if m["attachment_id"] == id {
			b, _ := json.Marshal(m)
			var job attachment.VerifyJob
			if err := json.Unmarshal(b, &job); err != nil {
				t.Fatal(err)
			}
			return job
		}
	}
	t.Fatalf("no verification job for %s", id)
	return attachment.VerifyJob{}
}

func (w world) verify(t *testing.T, job attachment.VerifyJob, final bool, want string) attachment.Verification {
	t.Helper()
	v, err := w.svc.Verify(context.Background(), job, final)
	if err != nil || v.Outcome != want {
		t.Fatalf("verify (final %v): %+v %v, want %s", final, v, err, want)
	}
	return v
}

// listed is the ticket's attachment of id as the list shows it (nil when
// it is not listed).
func (w world) listed(t *testing.T, id string) map[string]any {
	t.Helper()
	var page struct {
		Items []map[string]any `json:"items"`
	}
	w.Env.Do("GET", ticketPath(w.Ticket.ID, "?limit=100"), w.Member.Token, nil).Expect(t, 200).Decode(t, &page)
	for _, a := range page.Items {
		if a["id"] == id {
			return a
		}
	}
	return nil
}

// removedEntry is the ticket's activity entry of the system's removal of
// attachment id: its reason, "" when there is none.
func (w world) removedEntry(t *testing.T, id string) string {
	t.Helper()
	var actor *uuid.UUID
	var via []byte
	err := w.Env.DB.Pool.QueryRow(context.Background(), `SELECT actor_id, via FROM audit_log
		WHERE entity_type = 'ticket' AND entity_id = $1 AND action = $2 AND changes -> 0 -> 'old' ->> 'id' = $3`,
		w.Ticket.ID, attachment.ActionRemoved, id).Scan(&actor, &via)
	if err != nil {
		return ""
	}
	var v struct {
		Job    string `json:"job"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(via, &v); err != nil || actor != nil || v.Job != "attachment_verify" {
		t.Fatalf("removal entry: actor %v, via %s", actor, via)
	}
	return v.Reason
}

func testConfirmBeforeUpload(t *testing.T, w world) {
	body := []byte("arrives after its confirm")
	u := w.presign(t, w.Member, w.Ticket.ID, "late.txt", "text/plain", len(body))
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "late.txt", "text/plain", len(body))).Expect(t, 201).Map(t)
	id, _ := a["id"].(string)
	if a["state"] != "pending" || a["download_url"] != nil || a["storage_key"] != u.StorageKey || a["uploaded_by"] != w.Member.ID.String() {
		t.Fatalf("confirmed %v", a)
	}
	// Listed and readable while pending, without a download URL.
	if l := w.listed(t, id); l == nil || l["state"] != "pending" || l["download_url"] != nil {
		t.Fatalf("listed %v", l)
	}
	got := w.Env.Do("GET", "/api/v1/attachments/"+id, w.Member.Token, nil).Expect(t, 200).Map(t)
	if got["state"] != "pending" || got["download_url"] != nil {
		t.Fatalf("read %v", got)
	}
	// The confirm enqueued its verification, due a day later; a second
	// confirm of the key is still a 409.
	job := w.verifyJob(t, id)
	created, _ := time.Parse(time.RFC3339Nano, a["created_at"].(string))
	if d := job.Deadline.Sub(created.Add(attachment.PendingTTL)); d < -time.Second || d > time.Second {
		t.Fatalf("deadline %v, confirmed at %v", job.Deadline, a["created_at"])
	}
	w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "late.txt", "text/plain", len(body))).Expect(t, 409)
	w.verify(t, job, false, attachment.OutcomePending)

	// The upload, then the job's next look: ready. (The local store tells
	// the attachments of each upload, so there it is ready at once.)
	if code := put(t, u, "text/plain", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	if w.backend == "local" {
		if l := w.listed(t, id); l["state"] != "ready" {
			t.Fatalf("the local store's upload left it %v", l["state"])
		}
	}
	w.verify(t, job, false, attachment.OutcomeReady)
	w.verify(t, job, true, attachment.OutcomeReady) // settled: a later look changes nothing
	l := w.listed(t, id)
	if l["state"] != "ready" || l["download_url"] == nil {
		t.Fatalf("listed %v", l)
	}
	resp, got2 := objectstoretest.Get(t, l["download_url"].(string))
	if resp.StatusCode != 200 || string(got2) != string(body) {
		t.Fatalf("download %d %q", resp.StatusCode, got2)
	}
}

// putOther stores an object of another type under the key of u, as only a
// holder of the storage's own credentials could (the presigned URL binds
// the announced type and length).
func (w world) putOther(t *testing.T, u upload, ctype string, body []byte) {
	t.Helper()
	p, err := w.objects.PresignPut(context.Background(), u.StorageKey, ctype, int64(len(body)), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code, b := objectstoretest.Put(t, p.Method, p.URL, p.Headers, body); code != 200 {
		t.Fatalf("other upload %d %s", code, b)
	}
}

func testWrongObject(t *testing.T, w world) {
	body := []byte("<b>not text</b>")
	// Uploaded first: confirm checks the object and refuses.
	u := w.presign(t, w.Member, w.Ticket.ID, "w1.txt", "text/plain", len(body))
	w.putOther(t, u, "text/html", body)
	r := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "w1.txt", "text/plain", len(body))).Expect(t, 422)
	if !strings.Contains(string(r.Body), "content_type: does not match the uploaded object") {
		t.Fatalf("body %s", r.Body)
	}

	// Confirmed first: the look that finds the wrong object removes the
	// attachment and its object, and says so on the ticket's activity.
	u = w.presign(t, w.Member, w.Ticket.ID, "w2.txt", "text/plain", len(body))
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "w2.txt", "text/plain", len(body))).Expect(t, 201).Map(t)
	id := a["id"].(string)
	job := w.verifyJob(t, id)
	w.putOther(t, u, "text/html", body)
	if w.backend != "local" { // the local store has verified it on upload
		v := w.verify(t, job, false, attachment.OutcomeRemoved)
		if !strings.HasPrefix(v.Reason, "content_type") {
			t.Fatalf("reason %q", v.Reason)
		}
	}
	w.verify(t, job, false, attachment.OutcomeGone)
	if reason := w.removedEntry(t, id); !strings.HasPrefix(reason, "content_type") {
		t.Fatalf("removal reason %q", reason)
	}
	w.Env.Do("GET", "/api/v1/attachments/"+id, w.Member.Token, nil).Expect(t, 404)
	if w.listed(t, id) != nil {
		t.Fatal("a removed attachment is listed")
	}
	w.runDeleteJobs(t, u.StorageKey)
	// The key is spent: with its object gone, it cannot be confirmed again.
	w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "w2.txt", "text/plain", len(body))).Expect(t, 422)
}

// runDeleteJobs runs the object removals enqueued for key, as the worker
// would, and checks the object is gone.
func (w world) runDeleteJobs(t *testing.T, key string) {
	t.Helper()
	ctx := context.Background()
	n := 0
	for _, m := range w.Env.Outbox(t, w.Owner.OrgID, attachment.TopicDeleteObjects) {
		for _, k := range m["keys"].([]any) {
			if k == key {
				n++
				if err := w.svc.DeleteObjects(ctx, []string{key}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("no removal of %s enqueued", key)
	}
	if _, err := w.objects.Head(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("object still there: %v", err)
	}
}

func testNeverUploaded(t *testing.T, w world) {
	u := w.presign(t, w.Member, w.Ticket.ID, "never.txt", "text/plain", 5)
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "never.txt", "text/plain", 5)).Expect(t, 201).Map(t)
	id := a["id"].(string)
	job := w.verifyJob(t, id)
	w.verify(t, job, false, attachment.OutcomePending)
	if w.removedEntry(t, id) != "" {
		t.Fatal("removed before the deadline")
	}
	v := w.verify(t, job, true, attachment.OutcomeRemoved)
	if v.Reason != attachment.ReasonNeverUploaded || w.removedEntry(t, id) != attachment.ReasonNeverUploaded {
		t.Fatalf("reason %q", v.Reason)
	}
	w.verify(t, job, true, attachment.OutcomeGone) // a repeated last look removes nothing more
	if w.listed(t, id) != nil {
		t.Fatal("a removed attachment is listed")
	}
	// The key is spent: it cannot be confirmed again.
	w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "never.txt", "text/plain", 5)).Expect(t, 422)
	n := 0
	for _, e := range w.Env.Audit(t, "ticket", w.Ticket.ID) {
		if e.Action == attachment.ActionRemoved && e.Changes[0].Old.(map[string]any)["id"] == id {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d removal entries", n)
	}
}
