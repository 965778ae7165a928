package sprints_test

import (
	"testing"

	"tracker/api/apitest"
)

// Two clients edit the same sprint: the stale If-Match is 412 and
// overwrites nothing (apitest.CheckConditional); start answers with the
// sprint's new ETag.
func TestSprintETags(t *testing.T) {
	t.Parallel()
	w := setup(t)
	created := w.Env.Do("POST", "/api/v1/projects/"+w.Project.ID.String()+"/sprints", w.Member.Token,
		map[string]any{"name": "Tagged", "start_date": "2030-01-01", "end_date": "2030-01-14"}).Expect(t, 201)
	path := "/api/v1/sprints/" + sid(created.Map(t))
	w.Env.CheckConditional(t, apitest.Conditional{Path: path, Created: created, A: w.Member.Token, B: w.Admin.Token,
		Field: "name", PatchA: map[string]any{"name": "A's sprint"}, PatchB: map[string]any{"name": "B's sprint", "goal": "B"}})

	other := "/api/v1/sprints/" + sid(w.sprint(t, w.Project, "Other", "2030-02-01", "2030-02-14"))
	started := w.Env.Do("POST", other+"/start", w.Member.Token, nil).Expect(t, 200)
	if got := w.Env.Do("GET", other, w.Member.Token, nil).Expect(t, 200).Header.Get("ETag"); got == "" || got != started.Header.Get("ETag") {
		t.Fatalf("ETag after start %q, GET %q", started.Header.Get("ETag"), got)
	}
}
