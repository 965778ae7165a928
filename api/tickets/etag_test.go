package tickets_test

import (
	"fmt"
	"strings"
	"testing"
)

// Two clients read the same ticket; the first writes with its ETag, the
// second (holding the first's old ETag) gets 412 and overwrites nothing.
// If-None-Match with the current ETag is 304.
func TestStaleIfMatchIs412(t *testing.T) {
	t.Parallel()
	f := setup(t)
	created := f.env.Do("POST", fmt.Sprintf("/api/v1/projects/%s/tickets", f.project), f.member.Token,
		map[string]any{"title": "Shared"}).Expect(t, 201)
	id := created.Map(t)["id"].(string)
	path := "/api/v1/tickets/" + id
	if created.Header.Get("ETag") == "" {
		t.Fatal("create sent no ETag")
	}

	// The reporter watches the ticket: their GET's tag is the version's
	// watching variant (both name the version in If-Match).
	a := f.env.Do("GET", path, f.member.Token, nil).Expect(t, 200)
	b := f.env.Do("GET", path, f.admin.Token, nil).Expect(t, 200)
	etag := b.Header.Get("ETag")
	if etag == "" || a.Header.Get("ETag") != etag[:len(etag)-1]+`-watching"` || etag != created.Header.Get("ETag") {
		t.Fatalf("ETags %q %q %q", created.Header.Get("ETag"), a.Header.Get("ETag"), etag)
	}
	// Unchanged: If-None-Match is 304 without a body.
	nm := f.env.DoHeaders("GET", path, f.admin.Token, nil, map[string]string{"If-None-Match": etag}).Expect(t, 304)
	if len(nm.Body) != 0 || nm.Header.Get("ETag") != etag {
		t.Fatalf("304 body %q etag %q", nm.Body, nm.Header.Get("ETag"))
	}

	// Client A writes first.
	wa := f.env.DoHeaders("PATCH", path, f.member.Token, map[string]any{"title": "A's title"},
		map[string]string{"If-Match": etag}).Expect(t, 200)
	newTag := wa.Header.Get("ETag")
	if newTag == "" || newTag == etag {
		t.Fatalf("ETag after the write %q (before %q)", newTag, etag)
	}
	// Client B, with the ETag it read before A's write: 412, nothing written.
	wb := f.env.DoHeaders("PATCH", path, f.admin.Token, map[string]any{"title": "B's title", "priority": "high"},
		map[string]string{"If-Match": etag}).Expect(t, 412)
	if wb.ErrorCode() != "PRECONDITION_FAILED" {
		t.Fatalf("code %q", wb.ErrorCode())
	}
	// A's answer is the watching reporter's; B does not watch.
	got := f.env.Do("GET", path, f.admin.Token, nil).Expect(t, 200)
	plain := strings.Replace(newTag, "-watching", "", 1)
	if m := got.Map(t); m["title"] != "A's title" || m["priority"] == "high" || newTag == plain || got.Header.Get("ETag") != plain {
		t.Fatalf("after the refused write: %s (ETag %s, A's %s)", got.Body, got.Header.Get("ETag"), newTag)
	}
	var audits int
	f.env.ScanRow(t, &audits, "SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'updated'", id)
	if audits != 1 {
		t.Fatalf("%d update audit rows, want 1", audits)
	}
	// A stale no-op is refused too; the old ETag no longer gets a 304.
	f.env.DoHeaders("PATCH", path, f.admin.Token, map[string]any{"title": "A's title"}, map[string]string{"If-Match": etag}).Expect(t, 412)
	f.env.DoHeaders("GET", path, f.member.Token, nil, map[string]string{"If-None-Match": etag}).Expect(t, 200)
	// B reads again and writes with the current ETag; a list and * work.
	f.env.DoHeaders("PATCH", path, f.admin.Token, map[string]any{"priority": "high"},
		map[string]string{"If-Match": etag + ", " + newTag}).Expect(t, 200)
	f.env.DoHeaders("PATCH", path, f.admin.Token, map[string]any{"priority": "low"}, map[string]string{"If-Match": "*"}).Expect(t, 200)
	// A weak tag never matches If-Match (strong comparison).
	cur := f.env.Do("GET", path, f.admin.Token, nil).Expect(t, 200).Header.Get("ETag")
	f.env.DoHeaders("PATCH", path, f.admin.Token, map[string]any{"priority": "medium"}, map[string]string{"If-Match": "W/" + cur}).Expect(t, 412)

	// DELETE with a stale ETag is 412 and the ticket stays; with the
	// current one it goes.
	f.env.DoHeaders("DELETE", path, f.admin.Token, nil, map[string]string{"If-Match": etag}).Expect(t, 412)
	f.env.Do("GET", path, f.admin.Token, nil).Expect(t, 200)
	f.env.DoHeaders("DELETE", path, f.admin.Token, nil, map[string]string{"If-Match": cur}).Expect(t, 204)
	f.env.Do("GET", path, f.admin.Token, nil).Expect(t, 404)
}

// A comment on a ticket does not change the ticket's version.
func TestCommentsLeaveTheTicketVersion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	created := f.env.Do("POST", fmt.Sprintf("/api/v1/projects/%s/tickets", f.project), f.member.Token,
		map[string]any{"title": "Quiet"}).Expect(t, 201)
	id := created.Map(t)["id"].(string)
	f.env.Exec(t, `INSERT INTO comments (id, org_id, ticket_id, author_id, body) VALUES (gen_random_uuid(), $1, $2, $3, 'hello')`,
		f.owner.OrgID, id, f.member.ID)
	// Read by the Admin, who does not watch it (the reporter's tag has the
	// watching variant).
	if got := f.env.Do("GET", "/api/v1/tickets/"+id, f.admin.Token, nil).Expect(t, 200).Header.Get("ETag"); got != created.Header.Get("ETag") {
		t.Fatalf("ETag %s after a comment, was %s", got, created.Header.Get("ETag"))
	}
}
