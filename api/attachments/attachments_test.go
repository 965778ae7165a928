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
	"tracker/store/objectstore"
	"tracker/store/sprintdb/worktest"
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

var cases = []struct {
	name string
	run  func(t *testing.T, w world)
}{
	{"presign, PUT, confirm, list, download the same bytes, delete", testFlow},
	{"PUT with another length or type is rejected by the storage", testTamperedUpload},
	{"confirm of a key never uploaded is 422", func(t *testing.T, w world) {
		u := w.presign(t, w.member, w.ticket, "never.txt", "text/plain", 5)
		r := w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "never.txt", "text/plain", 5)).Expect(t, 422)
		if !strings.Contains(string(r.Body), "no object has been uploaded") {
			t.Fatalf("body %s", r.Body)
		}
	}},
	{"confirm of another ticket's or org's key is 422", func(t *testing.T, w world) {
		body := []byte("elsewhere")
		u := w.presign(t, w.member, w.otherTicket, "x.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "x.txt", "text/plain", len(body))).Expect(t, 422)
		forged := u
		forged.StorageKey = strings.Replace(u.StorageKey, w.owner.OrgID.String(), w.outside.OrgID.String(), 1)
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, forged, "x.txt", "text/plain", len(body))).Expect(t, 422)
		for _, key := range []string{"../" + u.StorageKey, "org/" + w.owner.OrgID.String() + "/tickets/" + w.ticket.String() + "/not-a-uuid/x.txt"} {
			forged.StorageKey = key
			w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, forged, "x.txt", "text/plain", len(body))).Expect(t, 422)
		}
		// The rightful ticket still confirms it.
		w.env.Do("POST", ticketPath(w.otherTicket, "/confirm"), w.member.Token, confirmBody(w.member, u, "x.txt", "text/plain", len(body))).Expect(t, 201)
	}},
	{"confirm with another size or type than uploaded is 422", func(t *testing.T, w world) {
		body := []byte("twelve bytes")
		u := w.presign(t, w.member, w.ticket, "m.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "m.txt", "text/plain", len(body)+1)).Expect(t, 422)
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "m.txt", "text/html", len(body))).Expect(t, 422)
	}},
	{"uploaded_by must be the caller; a second confirm is 409", func(t *testing.T, w world) {
		body := []byte("once")
		u := w.presign(t, w.member, w.ticket, "once.txt", "text/plain", len(body))
		if code := put(t, u, "text/plain", body); code != 200 {
			t.Fatalf("upload %d", code)
		}
		r := w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.admin, u, "once.txt", "text/plain", len(body))).Expect(t, 422)
		if !strings.Contains(string(r.Body), "uploaded_by") {
			t.Fatalf("body %s", r.Body)
		}
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "once.txt", "text/plain", len(body))).Expect(t, 201)
		r = w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "once.txt", "text/plain", len(body))).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("body %s", r.Body)
		}
	}},
	{"roles: Reporter on an assigned project and above; Viewer 403; outsider 404", testRoles},
	{"delete: the uploader or an Admin", testDeleteRights},
	{"presign validation", testValidation},
}

func testFlow(t *testing.T, w world) {
	body := []byte("%PDF-1.7 pretend \x00\x01\x02 binary")
	name := "Quarterly report (v2).pdf"
	u := w.presign(t, w.reporter, w.ticket, name, "application/pdf", len(body))
	prefix := "org/" + w.owner.OrgID.String() + "/tickets/" + w.ticket.String() + "/"
	if !strings.HasPrefix(u.StorageKey, prefix) || !strings.HasSuffix(u.StorageKey, "/Quarterly_report__v2_.pdf") ||
		u.Method != "PUT" || u.Headers["Content-Type"] != "application/pdf" || u.ExpiresAt == "" || u.UploadURL == "" {
		t.Fatalf("presign %+v", u)
	}
	if code := put(t, u, "application/pdf", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	a := w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.reporter.Token,
		confirmBody(w.reporter, u, name, "application/pdf", len(body))).Expect(t, 201).Map(t)
	if a["filename"] != name || a["storage_key"] != u.StorageKey || a["uploaded_by"] != w.reporter.ID.String() ||
		a["ticket_id"] != w.ticket.String() || a["size_bytes"] != float64(len(body)) || a["content_type"] != "application/pdf" ||
		a["download_url"] != nil || a["id"] == nil || a["created_at"] == nil {
		t.Fatalf("confirmed %v", a)
	}
	id := a["id"].(string)

	// The ticket's activity and a ticket.updated event name the attachment.
	audit := worktest.Audit(t, w.env.DB, "ticket", w.ticket)
	last := audit[len(audit)-1]
	if last.Action != attachment.ActionAdded || last.Changes[0].Field != "attachment" ||
		last.Changes[0].New.(map[string]any)["filename"] != name {
		t.Fatalf("audit %+v", last)
	}
	events := worktest.Outbox(t, w.env.DB, w.owner.OrgID, domain.EventTicketUpdated)
	if ev := events[len(events)-1]; ev["data"].(map[string]any)["id"] != w.ticket.String() {
		t.Fatalf("event %v", ev)
	}

	var page struct {
		Items []map[string]any `json:"items"`
	}
	w.env.Do("GET", ticketPath(w.ticket, ""), w.viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	var listed map[string]any
	for _, it := range page.Items {
		if it["id"] == id {
			listed = it
		}
	}
	if listed == nil || listed["download_url"] == nil {
		t.Fatalf("list %v", page.Items)
	}
	res, got := download(t, listed["download_url"].(string))
	if res.StatusCode != 200 || !bytes.Equal(got, body) || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("download %d %q %v", res.StatusCode, got, res.Header)
	}
	one := w.env.Do("GET", "/api/v1/attachments/"+id, w.viewer.Token, nil).Expect(t, 200).Map(t)
	if _, got := download(t, one["download_url"].(string)); !bytes.Equal(got, body) {
		t.Fatalf("download by id %q", got)
	}

	w.env.Do("DELETE", "/api/v1/attachments/"+id, w.reporter.Token, nil).Expect(t, 204)
	w.env.Do("GET", "/api/v1/attachments/"+id, w.viewer.Token, nil).Expect(t, 404)
	jobs := worktest.Outbox(t, w.env.DB, w.owner.OrgID, attachment.TopicDeleteObjects)
	if keys := jobs[len(jobs)-1]["keys"].([]any); len(keys) != 1 || keys[0] != u.StorageKey {
		t.Fatalf("delete job %v", jobs)
	}
	audit = worktest.Audit(t, w.env.DB, "ticket", w.ticket)
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
		u := w.presign(t, w.member, w.ticket, "t.txt", "text/plain", len(body))
		if code := put(t, u, send.ctype, send.body); code < 400 || code > 499 {
			t.Fatalf("%s: storage answered %d", name, code)
		}
		if _, err := w.objects.Head(context.Background(), u.StorageKey); !errors.Is(err, objectstore.ErrNotFound) {
			t.Fatalf("%s: stored anyway (%v)", name, err)
		}
		w.env.Do("POST", ticketPath(w.ticket, "/confirm"), w.member.Token, confirmBody(w.member, u, "t.txt", "text/plain", len(body))).Expect(t, 422)
	}
}

func testRoles(t *testing.T, w world) {
	req := map[string]any{"filename": "a.txt", "content_type": "text/plain", "size_bytes": 3}
	path := ticketPath(w.ticket, "/presign")
	for _, u := range []string{w.reporter.Token, w.member.Token, w.admin.Token, w.owner.Token} {
		w.env.Do("POST", path, u, req).Expect(t, 200)
	}
	for _, u := range []string{w.viewer.Token, w.unassignedReporter.Token, w.env.APIKey(w.member, []string{"read"})} {
		if r := w.env.Do("POST", path, u, req).Expect(t, 403); r.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("body %s", r.Body)
		}
	}
	other := worktest.NewProject(t, w.env.DB, w.owner.OrgID, "OTH"+strings.ToUpper(uuid.NewString()[:3]))
	w.env.Do("POST", path, w.env.APIKey(w.owner, []string{"write"}, other.ID), req).Expect(t, 403)
	w.env.Do("POST", path, w.outside.Token, req).Expect(t, 404)
	w.env.Do("GET", ticketPath(w.ticket, ""), w.outside.Token, nil).Expect(t, 404)
	w.env.Do("GET", ticketPath(w.ticket, ""), w.unassignedReporter.Token, nil).Expect(t, 403)
	w.env.Do("POST", ticketPath(uuid.New(), "/presign"), w.member.Token, req).Expect(t, 404)
	w.env.Do("POST", path, "", req).Expect(t, 401)
	a := w.attach(t, w.member, w.ticket, "seen.txt", []byte("abc"))
	w.env.Do("GET", "/api/v1/attachments/"+a["id"].(string), w.outside.Token, nil).Expect(t, 404)
	w.env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.outside.Token, nil).Expect(t, 404)
	w.env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.viewer.Token, nil).Expect(t, 403)
}

func testDeleteRights(t *testing.T, w world) {
	a := w.attach(t, w.reporter, w.ticket, "mine.txt", []byte("mine"))
	b := w.attach(t, w.member, w.ticket, "theirs.txt", []byte("theirs"))
	other := w.env.Member(w.owner, "member")
	r := w.env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), other.Token, nil).Expect(t, 403)
	if !strings.Contains(r.Error().Message, "Admin") {
		t.Fatalf("body %s", r.Body)
	}
	w.env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), w.reporter.Token, nil).Expect(t, 403)
	w.env.Do("DELETE", "/api/v1/attachments/"+b["id"].(string), w.admin.Token, nil).Expect(t, 204)
	w.env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.reporter.Token, nil).Expect(t, 204)
	w.env.Do("DELETE", "/api/v1/attachments/"+a["id"].(string), w.reporter.Token, nil).Expect(t, 404)
}

func testValidation(t *testing.T, w world) {
	path := ticketPath(w.ticket, "/presign")
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
		if r := w.env.Do("POST", path, w.member.Token, req); r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// The largest allowed size and a non-ASCII name are fine.
	w.env.Do("POST", path, w.member.Token, map[string]any{"filename": "Überblick 📎.txt", "content_type": "Text/Plain; charset=UTF-8", "size_bytes": maxBytes}).Expect(t, 200)
}
