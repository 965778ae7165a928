package apitest

import (
	"fmt"
	"testing"
)

// Conditional is one resource's ETag contract, checked over HTTP by
// CheckConditional: two clients read the same resource, the first writes
// with its ETag, the second (holding the first's old ETag) gets 412 and
// overwrites nothing; If-None-Match is 304; a fresh ETag succeeds.
type Conditional struct {
	// Path is the resource's URL (GET, PATCH and DELETE).
	Path string
	// Created is the create's response ("" ETag skips that check).
	Created Resp
	// A and B are the two clients' credentials; both may PATCH, and B may
	// DELETE.
	A, B string
	// PatchA and PatchB set Field to different values.
	Field          string
	PatchA, PatchB map[string]any
	// DeleteQuery is appended to the DELETE's path (e.g. "?cascade=true").
	DeleteQuery string
	// Kept, when set, checks what a delete would take along is still there
	// after the refused (stale) delete.
	Kept func()
}

// CheckConditional runs c's checks.
func (e *Env) CheckConditional(t *testing.T, c Conditional) {
	t.Helper()
	field := func(r Resp) string { return fmt.Sprint(r.Map(t)[c.Field]) }
	a := e.Do("GET", c.Path, c.A, nil).Expect(t, 200)
	b := e.Do("GET", c.Path, c.B, nil).Expect(t, 200)
	etag := a.Header.Get("ETag")
	if etag == "" || etag != b.Header.Get("ETag") {
		t.Fatalf("%s: ETags %q and %q", c.Path, etag, b.Header.Get("ETag"))
	}
	if c.Created.Status != 0 && c.Created.Header.Get("ETag") != etag {
		t.Fatalf("%s: create sent ETag %q, GET %q", c.Path, c.Created.Header.Get("ETag"), etag)
	}
	// Unchanged: If-None-Match is 304 without a body.
	nm := e.DoHeaders("GET", c.Path, c.A, nil, map[string]string{"If-None-Match": etag}).Expect(t, 304)
	if len(nm.Body) != 0 || nm.Header.Get("ETag") != etag {
		t.Fatalf("%s: 304 body %q ETag %q", c.Path, nm.Body, nm.Header.Get("ETag"))
	}

	// Client A writes first; the answer carries the new ETag.
	wa := e.DoHeaders("PATCH", c.Path, c.A, c.PatchA, map[string]string{"If-Match": etag}).Expect(t, 200)
	newTag := wa.Header.Get("ETag")
	if newTag == "" || newTag == etag {
		t.Fatalf("%s: ETag after the write %q (before %q)", c.Path, newTag, etag)
	}
	// Client B, with the ETag it read before A's write: 412, nothing written.
	wb := e.DoHeaders("PATCH", c.Path, c.B, c.PatchB, map[string]string{"If-Match": etag}).Expect(t, 412)
	if wb.ErrorCode() != "PRECONDITION_FAILED" {
		t.Fatalf("%s: code %q", c.Path, wb.ErrorCode())
	}
	got := e.Do("GET", c.Path, c.B, nil).Expect(t, 200)
	if field(got) != fmt.Sprint(c.PatchA[c.Field]) || got.Header.Get("ETag") != newTag {
		t.Fatalf("%s: after the refused write: %s (ETag %s, want %s)", c.Path, got.Body, got.Header.Get("ETag"), newTag)
	}
	// A stale no-op is refused too; the old ETag no longer gets a 304.
	e.DoHeaders("PATCH", c.Path, c.B, c.PatchA, map[string]string{"If-Match": etag}).Expect(t, 412)
	e.DoHeaders("GET", c.Path, c.A, nil, map[string]string{"If-None-Match": etag}).Expect(t, 200)
	// A weak tag never matches If-Match (strong comparison).
	e.DoHeaders("PATCH", c.Path, c.B, c.PatchB, map[string]string{"If-Match": "W/" + newTag}).Expect(t, 412)

	// B reads again and writes with the current ETag (a list works).
	wb = e.DoHeaders("PATCH", c.Path, c.B, c.PatchB, map[string]string{"If-Match": etag + ", " + newTag}).Expect(t, 200)
	cur := wb.Header.Get("ETag")
	if field(wb) != fmt.Sprint(c.PatchB[c.Field]) || cur == "" || cur == newTag {
		t.Fatalf("%s: fresh write: %s (ETag %s)", c.Path, wb.Body, cur)
	}
	// The same write again with the current ETag succeeds.
	cur = e.DoHeaders("PATCH", c.Path, c.B, c.PatchB, map[string]string{"If-Match": cur}).Expect(t, 200).Header.Get("ETag")

	// DELETE with a stale ETag is 412 and the resource stays; with the
	// current one it goes.
	e.DoHeaders("DELETE", c.Path+c.DeleteQuery, c.B, nil, map[string]string{"If-Match": newTag}).Expect(t, 412)
	if still := e.Do("GET", c.Path, c.B, nil).Expect(t, 200); still.Header.Get("ETag") != cur {
		t.Fatalf("%s: ETag %s after a refused delete, want %s", c.Path, still.Header.Get("ETag"), cur)
	}
	if c.Kept != nil {
		c.Kept()
	}
	e.DoHeaders("DELETE", c.Path+c.DeleteQuery, c.B, nil, map[string]string{"If-Match": cur}).Expect(t, 204)
	e.Do("GET", c.Path, c.B, nil).Expect(t, 404)
}
