package attachments_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/domain/testfactory"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
)

// TestAttachments runs one table of cases against both object stores: the
// whole flow over real HTTP, and every way an upload or a confirm can be
// wrong.
func TestAttachments(t *testing.T) {
	t.Parallel()
	for _, backend := range backendNames {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			w := setup(t, backend)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, w) })
			}
		})
	}
}

// attachmentCase is one case of TestAttachments, run on each storage.
type attachmentCase struct {
	name string
	run  func(t *testing.T, w world)
}

var cases = []attachmentCase{
	{"presign, PUT, confirm, list, download the same bytes, delete", testFlow},
	{"PUT with another length or type is rejected by the storage", testTamperedUpload},
	{"confirm of another ticket's or org's key is 422", func(t *testing.T, w world) {
		body := []byte("elsewhere")
		u := w.presign(t, w.Member, w.otherTicket, "x.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "x.txt", "text/plain", len(body))).Expect(t, 422)
		forged := u
		forged.StorageKey = strings.Replace(u.StorageKey, w.Owner.OrgID.String(), w.Outsider.OrgID.String(), 1)
		w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, forged, "x.txt", "text/plain", len(body))).Expect(t, 422)
		for _, key := range []string{"../" + u.StorageKey, "org/" + w.Owner.OrgID.String() + "/tickets/" + w.Ticket.ID.String() + "/not-a-uuid/x.txt"} {
			forged.StorageKey = key
			w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, forged, "x.txt", "text/plain", len(body))).Expect(t, 422)
		}
		// The rightful ticket still confirms it.
		w.Env.Do("POST", ticketPath(w.otherTicket, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "x.txt", "text/plain", len(body))).Expect(t, 201)
	}},
	{"confirm with another size or type than uploaded is 422", func(t *testing.T, w world) {
		body := []byte("twelve bytes")
		u := w.presign(t, w.Member, w.Ticket.ID, "m.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "m.txt", "text/plain", len(body)+1)).Expect(t, 422)
		w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "m.txt", "text/html", len(body))).Expect(t, 422)
	}},
	{"uploaded_by must be the caller; a second confirm is 409", func(t *testing.T, w world) {
		body := []byte("once")
		u := w.presign(t, w.Member, w.Ticket.ID, "once.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		r := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Admin, u, "once.txt", "text/plain", len(body))).Expect(t, 422)
		if !strings.Contains(string(r.Body), "uploaded_by") {
			t.Fatalf("body %s", r.Body)
		}
		w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "once.txt", "text/plain", len(body))).Expect(t, 201)
		r = w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "once.txt", "text/plain", len(body))).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("body %s", r.Body)
		}
	}},
	{"a replay of the upload URL after confirm is refused; the confirmed bytes stay", testReplayAfterConfirm},
	{"confirm records what was presigned: no other name, no other confirmer", testConfirmBindsPresign},
	{"roles: Reporter on an assigned project and above; Viewer 403; outsider 404", testRoles},
	{"delete: the uploader or an Admin", testDeleteRights},
	{"presign validation", testValidation},
}

func testFlow(t *testing.T, w world) {
	body := []byte("%PDF-1.7 pretend \x00\x01\x02 binary")
	name := "Quarterly report (v2).pdf"
	testfactory.NumberValue(t, w.Env.DB, w.Owner.OrgID, w.Ticket.ID, "points", 5)
	u := w.presign(t, w.Reporter, w.Ticket.ID, name, "application/pdf", len(body))
	prefix := "org/" + w.Owner.OrgID.String() + "/tickets/" + w.Ticket.ID.String() + "/"
	if !strings.HasPrefix(u.StorageKey, prefix) || !strings.HasSuffix(u.StorageKey, "/Quarterly_report__v2_.pdf") ||
		u.Method != "PUT" || u.Headers["Content-Type"] != "application/pdf" || u.ExpiresAt == "" || u.UploadURL == "" {
		t.Fatalf("presign %+v", u)
	}
	if code := put(t, u, "application/pdf", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Reporter.Token,
		confirmBody(w.Reporter, u, name, "application/pdf", len(body))).Expect(t, 201).Map(t)
	if a["filename"] != name || a["storage_key"] != u.StorageKey || a["uploaded_by"] != w.Reporter.ID.String() ||
		a["ticket_id"] != w.Ticket.ID.String() || a["size_bytes"] != float64(len(body)) || a["content_type"] != "application/pdf" ||
		a["download_url"] != nil || a["id"] == nil || a["created_at"] == nil || a["state"] != "ready" {
		t.Fatalf("confirmed %v", a)
	}
	id := a["id"].(string)

	// The ticket's activity and a ticket.updated event name the attachment;
	// the event's ticket is rendered whole, custom values included.
	audit := w.Env.Audit(t, "ticket", w.Ticket.ID)
	last := audit[len(audit)-1]
	if last.Action != attachment.ActionAdded || last.Changes[0].Field != "attachment" ||
		last.Changes[0].New.(map[string]any)["filename"] != name {
		t.Fatalf("audit %+v", last)
	}
	events := w.Env.Outbox(t, w.Owner.OrgID, domain.EventTicketUpdated)
	if ev := events[len(events)-1]; ev["data"].(map[string]any)["id"] != w.Ticket.ID.String() ||
		ev["data"].(map[string]any)["custom_fields"].(map[string]any)["points"] != 5.0 {
		t.Fatalf("event %v", ev)
	}

	var page struct {
		Items []map[string]any `json:"items"`
	}
	w.Env.Do("GET", ticketPath(w.Ticket.ID, ""), w.Viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	var listed map[string]any
	for _, it := range page.Items {
		if it["id"] == id {
			listed = it
		}
	}
	if listed == nil || listed["download_url"] == nil {
		t.Fatalf("list %v", page.Items)
	}
	res, got := objectstoretest.Get(t, listed["download_url"].(string))
	if res.StatusCode != 200 || !bytes.Equal(got, body) || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("download %d %q %v", res.StatusCode, got, res.Header)
	}
	one := w.Env.Do("GET", "/api/v1/attachments/"+id, w.Viewer.Token, nil).Expect(t, 200).Map(t)
	if _, got := objectstoretest.Get(t, one["download_url"].(string)); !bytes.Equal(got, body) {
		t.Fatalf("download by id %q", got)
	}

	w.Env.Do("DELETE", "/api/v1/attachments/"+id, w.Reporter.Token, nil).Expect(t, 204)
	w.Env.Do("GET", "/api/v1/attachments/"+id, w.Viewer.Token, nil).Expect(t, 404)
	jobs := w.Env.Outbox(t, w.Owner.OrgID, attachment.TopicDeleteObjects)
	if keys := jobs[len(jobs)-1]["keys"].([]any); len(keys) != 1 || keys[0] != u.StorageKey {
		t.Fatalf("delete job %v", jobs)
	}
	audit = w.Env.Audit(t, "ticket", w.Ticket.ID)
	if last := audit[len(audit)-1]; last.Action != attachment.ActionRemoved || last.Changes[0].New != nil {
		t.Fatalf("audit %+v", last)
	}
	// The object is removed by the durable job, not by the request.
	if _, err := w.objects.Head(context.Background(), u.StorageKey); err != nil {
		t.Fatalf("object gone before the job ran: %v", err)
	}
}

func testTamperedUpload(t *testing.T, w world) {
	body := []byte("hello world")
	for name, send := range map[string]struct {
		ctype string
		body  []byte
	}{
		"longer":     {"text/plain", append(body, '!')},
		"shorter":    {"text/plain", body[:5]},
		"other type": {"text/html", body},
	} {
		u := w.presign(t, w.Member, w.Ticket.ID, "t.txt", "text/plain", len(body))
		if code := put(t, u, send.ctype, send.body); code < 400 || code > 499 {
			t.Fatalf("%s: storage answered %d", name, code)
		}
		if _, err := w.objects.Head(context.Background(), u.StorageKey); !errors.Is(err, objectstore.ErrNotFound) {
			t.Fatalf("%s: stored anyway (%v)", name, err)
		}
		// Nothing was stored: confirm records a pending attachment, which
		// its uploader may delete.
		a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "t.txt", "text/plain", len(body))).Expect(t, 201).Map(t)
		if a["state"] != "pending" || a["download_url"] != nil {
			t.Fatalf("%s: confirmed %v", name, a)
		}
		w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Member.Token, nil).Expect(t, 204)
	}
}

func testRoles(t *testing.T, w world) {
	req := map[string]any{"filename": "a.txt", "content_type": "text/plain", "size_bytes": 3}
	path := ticketPath(w.Ticket.ID, "/presign")
	for _, u := range []string{w.Reporter.Token, w.Member.Token, w.Admin.Token, w.Owner.Token} {
		w.Env.Do("POST", path, u, req).Expect(t, 200)
	}
	for _, u := range []string{w.Viewer.Token, w.UnassignedReporter.Token, w.Env.APIKey(w.Member, []string{"read"})} {
		if r := w.Env.Do("POST", path, u, req).Expect(t, 403); r.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("body %s", r.Body)
		}
	}
	other := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{})
	w.Env.Do("POST", path, w.Env.APIKey(w.Owner, []string{"write"}, other.ID), req).Expect(t, 403)
	w.Env.Do("POST", path, w.Outsider.Token, req).Expect(t, 404)
	w.Env.Do("GET", ticketPath(w.Ticket.ID, ""), w.Outsider.Token, nil).Expect(t, 404)
	w.Env.Do("GET", ticketPath(w.Ticket.ID, ""), w.UnassignedReporter.Token, nil).Expect(t, 403)
	w.Env.Do("POST", ticketPath(uuid.New(), "/presign"), w.Member.Token, req).Expect(t, 404)
	w.Env.Do("POST", path, "", req).Expect(t, 401)
	a := w.attach(t, w.Member, w.Ticket.ID, "seen.txt", []byte("abc"))
	w.Env.Do("GET", "/api/v1/attachments/"+a["id"].(string), w.Outsider.Token, nil).Expect(t, 404)
	w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Outsider.Token, nil).Expect(t, 404)
	w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Viewer.Token, nil).Expect(t, 403)
}

func testDeleteRights(t *testing.T, w world) {
	a := w.attach(t, w.Reporter, w.Ticket.ID, "mine.txt", []byte("mine"))
	b := w.attach(t, w.Member, w.Ticket.ID, "theirs.txt", []byte("theirs"))
	other := w.Env.Member(w.Owner, "member")
	r := w.Env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), other.Token, nil).Expect(t, 403)
	if !strings.Contains(r.Error().Message, "Admin") {
		t.Fatalf("body %s", r.Body)
	}
	w.Env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), w.Reporter.Token, nil).Expect(t, 403)
	w.Env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), w.Admin.Token, nil).Expect(t, 204)
	w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Reporter.Token, nil).Expect(t, 204)
	w.Env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.Reporter.Token, nil).Expect(t, 404)
}

func testValidation(t *testing.T, w world) {
	path := ticketPath(w.Ticket.ID, "/presign")
	for name, req := range map[string]map[string]any{
		"missing everything":  {},
		"slash in name":       {"filename": "a/b.txt", "content_type": "text/plain", "size_bytes": 1},
		"backslash in name":   {"filename": `a\b.txt`, "content_type": "text/plain", "size_bytes": 1},
		"control char":        {"filename": "a\x07.txt", "content_type": "text/plain", "size_bytes": 1},
		"dot dot":             {"filename": "..", "content_type": "text/plain", "size_bytes": 1},
		"blank name":          {"filename": "  ", "content_type": "text/plain", "size_bytes": 1},
		"long name":           {"filename": strings.Repeat("n", 256), "content_type": "text/plain", "size_bytes": 1},
		"bad media type":      {"filename": "a.txt", "content_type": "text", "size_bytes": 1},
		"garbage media type":  {"filename": "a.txt", "content_type": "a/b; =", "size_bytes": 1},
		"zero size":           {"filename": "a.txt", "content_type": "text/plain", "size_bytes": 0},
		"negative size":       {"filename": "a.txt", "content_type": "text/plain", "size_bytes": -5},
		"over the max":        {"filename": "a.txt", "content_type": "text/plain", "size_bytes": maxBytes + 1},
		"size not an integer": {"filename": "a.txt", "content_type": "text/plain", "size_bytes": "ten"},
	} {
		if r := w.Env.Do("POST", path, w.Member.Token, req); r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// The largest allowed size and a non-ASCII name are fine.
	w.Env.Do("POST", path, w.Member.Token, map[string]any{"filename": "Überblick 📎.txt", "content_type": "Text/Plain; charset=UTF-8", "size_bytes": maxBytes}).Expect(t, 200)
}

// testReplayAfterConfirm: the uploader keeps the presigned URL for its 15
// minutes and, once the attachment is confirmed (and perhaps reviewed),
// sends other bytes of the same length and type to it.
func testReplayAfterConfirm(t *testing.T, w world) {
	body := []byte("the reviewed invoice, v1")
	evil := bytes.Repeat([]byte("X"), len(body))
	u := w.presign(t, w.Member, w.Ticket.ID, "invoice.pdf", "application/pdf", len(body))
	if code := put(t, u, "application/pdf", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token,
		confirmBody(w.Member, u, "invoice.pdf", "application/pdf", len(body))).Expect(t, 201).Map(t)
	if code := put(t, u, "application/pdf", evil); code != 412 {
		t.Fatalf("replay answered %d", code)
	}
	// Without the condition the storage refuses the request outright.
	bare := u
	bare.Headers = map[string]string{"Content-Type": "application/pdf"}
	if code := put(t, bare, "application/pdf", evil); code < 400 || code > 499 {
		t.Fatalf("replay without If-None-Match answered %d", code)
	}
	one := w.Env.Do("GET", "/api/v1/attachments/"+a["id"].(string), w.Viewer.Token, nil).Expect(t, 200).Map(t)
	if _, got := objectstoretest.Get(t, one["download_url"].(string)); !bytes.Equal(got, body) {
		t.Fatalf("the confirmed object changed: %q", got)
	}
}

// testConfirmBindsPresign: confirm cannot rename the upload (its name is
// shown in the ticket and becomes the download's filename), nor can anyone
// but the presigner confirm it.
func testConfirmBindsPresign(t *testing.T, w world) {
	body := []byte("holiday photo")
	u := w.presign(t, w.Member, w.Ticket.ID, "photo.jpg", "image/jpeg", len(body))
	if code := put(t, u, "image/jpeg", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	for _, name := range []string{"photo.jpg.exe", "Photo.jpg", "photo\u202egpj.exe", "photo_jpg"} {
		r := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, name, "image/jpeg", len(body)))
		if r.Status != 422 || !strings.Contains(string(r.Body), "filename") {
			t.Fatalf("rename to %q: %d %s", name, r.Status, r.Body)
		}
	}
	// Another member of the ticket, naming themself as the uploader.
	r := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Admin.Token, confirmBody(w.Admin, u, "photo.jpg", "image/jpeg", len(body)))
	if r.Status != 422 || !strings.Contains(string(r.Body), "storage_key") {
		t.Fatalf("confirm by another user: %d %s", r.Status, r.Body)
	}
	a := w.Env.Do("POST", ticketPath(w.Ticket.ID, "/confirm"), w.Member.Token, confirmBody(w.Member, u, "photo.jpg", "image/jpeg", len(body))).Expect(t, 201).Map(t)
	if a["filename"] != "photo.jpg" {
		t.Fatalf("confirmed %v", a)
	}
}
