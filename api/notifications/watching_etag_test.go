package notifications_test

import (
	"strings"
	"testing"

	"tracker/api/apitest"
)

// A ticket's GET says whether the caller watches it, so its validator
// changes when that does: a conditional GET with the tag read before
// watching (or unwatching) gets the new answer, not a 304 with a stale
// watching. The tag a GET sent still works as If-Match, as does the plain
// version.
func TestWatchingChangesTheTicketsETag(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.createTicket(t, w.Member, nil)
	url := w.ticketURL(id)
	get := func(u apitest.User, inm string) (int, string, *bool) {
		t.Helper()
		h := map[string]string{}
		if inm != "" {
			h["If-None-Match"] = inm
		}
		res := w.Env.DoHeaders("GET", url, u.Token, nil, h)
		if res.Status == 304 {
			return 304, res.Header.Get("ETag"), nil
		}
		res.Expect(t, 200)
		var out struct{ Watching *bool }
		res.Decode(t, &out)
		if out.Watching == nil {
			t.Fatal("ticket GET has no watching")
		}
		return 200, res.Header.Get("ETag"), out.Watching
	}

	// Not watching: the plain version, as before.
	_, plain, watching := get(w.Viewer, "")
	if *watching || plain != `"1"` {
		t.Fatalf("viewer: watching %v, ETag %s", *watching, plain)
	}
	if status, tag, _ := get(w.Viewer, plain); status != 304 || tag != plain {
		t.Fatalf("unchanged: %d %s", status, tag)
	}

	// Watch: the old tag no longer matches; the answer says watching.
	w.Env.Do("PUT", url+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
	status, watchTag, watching := get(w.Viewer, plain)
	if status != 200 || !*watching || watchTag == plain || watchTag != `"1-watching"` {
		t.Fatalf("after watching: %d %s watching %v", status, watchTag, watching)
	}
	if status, tag, _ := get(w.Viewer, watchTag); status != 304 || tag != watchTag {
		t.Fatalf("watching, unchanged: %d %s", status, tag)
	}
	// Another reader's tag is theirs: the reporter watches, the Admin not.
	if _, tag, _ := get(w.Member, ""); tag != watchTag {
		t.Fatalf("reporter's ETag %s", tag)
	}
	if _, tag, _ := get(w.Admin, ""); tag != plain {
		t.Fatalf("admin's ETag %s", tag)
	}

	// Unwatch: the watching tag no longer matches; the answer says not.
	w.Env.Do("DELETE", url+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
	status, tag, watching := get(w.Viewer, watchTag)
	if status != 200 || *watching || tag != plain {
		t.Fatalf("after unwatching: %d %s watching %v", status, tag, watching)
	}

	// If-Match takes the tag a GET sent, with or without the variant. A
	// PATCH answers as a GET does: watching, and the ETag to match.
	res := w.Env.DoHeaders("PATCH", url, w.Member.Token, map[string]any{"title": "Renamed"},
		map[string]string{"If-Match": watchTag}).Expect(t, 200)
	var patched struct{ Watching *bool }
	res.Decode(t, &patched)
	next := res.Header.Get("ETag")
	if next != `"2-watching"` || patched.Watching == nil || !*patched.Watching {
		t.Fatalf("reporter's PATCH: ETag %s, body %s", next, res.Body)
	}
	if status, tag, _ := get(w.Member, next); status != 304 || tag != next {
		t.Fatalf("reporter's GET after the PATCH: %d %s", status, tag)
	}
	// Stale, with or without the variant: 412 and nothing written.
	for _, stale := range []string{watchTag, plain} {
		apitest.ExpectCode(t, w.Env.DoHeaders("PATCH", url, w.Admin.Token, map[string]any{"title": "Stale"},
			map[string]string{"If-Match": stale}), 412, "PRECONDITION_FAILED")
	}
	// An unknown variant, or a weak tag, names no version.
	for _, bad := range []string{`"2-other"`, `W/"2-watching"`, `"2-"`, `"-watching"`} {
		apitest.ExpectCode(t, w.Env.DoHeaders("PATCH", url, w.Admin.Token, map[string]any{"title": "Odd"},
			map[string]string{"If-Match": bad}), 412, "PRECONDITION_FAILED")
	}
	// The Admin writes with the reporter's tag; the Admin does not watch.
	res = w.Env.DoHeaders("PATCH", url, w.Admin.Token, map[string]any{"title": "Plain"},
		map[string]string{"If-Match": next}).Expect(t, 200)
	if tag := res.Header.Get("ETag"); tag != `"3"` || !strings.Contains(string(res.Body), `"watching":false`) {
		t.Fatalf("admin's PATCH: ETag %s, body %s", tag, res.Body)
	}
	// A transition answers as a PATCH does.
	moved := w.Env.Do("POST", url+"/transition", w.Member.Token, map[string]any{"to_status": "Todo"}).Expect(t, 200)
	if tag := moved.Header.Get("ETag"); tag != `"4-watching"` || !strings.Contains(string(moved.Body), `"watching":true`) {
		t.Fatalf("reporter's transition: ETag %s, body %s", tag, moved.Body)
	}
	_, cur, _ := get(w.Member, "")
	if cur != `"4-watching"` {
		t.Fatalf("reporter's ETag %s", cur)
	}
	// DELETE too: stale 412, the GET's current tag 204.
	apitest.ExpectCode(t, w.Env.DoHeaders("DELETE", url, w.Admin.Token, nil, map[string]string{"If-Match": watchTag}),
		412, "PRECONDITION_FAILED")
	w.Env.DoHeaders("DELETE", url, w.Admin.Token, nil, map[string]string{"If-Match": cur}).Expect(t, 204)
}
