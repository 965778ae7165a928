package timeentry_test

import (
	"testing"

	"tracker/api/apitest"
)

// The entry's user and an Admin edit the same time entry: the stale
// If-Match is 412 and overwrites nothing (apitest.CheckConditional); submit
// answers with the entry's new ETag.
func TestTimeEntryETags(t *testing.T) {
	t.Parallel()
	w := setup(t)
	created := w.env.Do("POST", "/api/v1/time-entries", w.member.Token, w.body(w.member, nil)).Expect(t, 201)
	w.env.CheckConditional(t, apitest.Conditional{Path: "/api/v1/time-entries/" + created.Map(t)["id"].(string), Created: created,
		A: w.member.Token, B: w.admin.Token, Field: "duration_minutes",
		PatchA: map[string]any{"duration_minutes": 30}, PatchB: map[string]any{"duration_minutes": 45, "description": "B"}})

	other := w.create(t, w.member, nil)
	submitted := w.do("POST", entryPath(other, "/submit"), w.member, nil).Expect(t, 200)
	if got := w.do("GET", entryPath(other, ""), w.member, nil).Expect(t, 200).Header.Get("ETag"); got == "" || got != submitted.Header.Get("ETag") {
		t.Fatalf("ETag after submit %q, GET %q", submitted.Header.Get("ETag"), got)
	}
}
