package sprints_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
)

func TestCreateSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/projects/" + w.Project.ID.String() + "/sprints"

	t.Run("201 Planned", func(t *testing.T) {
		s := w.Env.Do("POST", path, w.Member.Token, map[string]any{"name": "S1", "start_date": "2025-03-03", "end_date": "2025-03-16"}).Expect(t, 201).Map(t)
		if s["status"] != "Planned" || s["name"] != "S1" || s["goal"] != nil || s["start_date"] != "2025-03-03" ||
			s["end_date"] != "2025-03-16" || s["project_id"] != w.Project.ID.String() || s["id"] == nil || s["created_at"] == nil {
			t.Fatalf("sprint %v", s)
		}
		g := w.Env.Do("POST", path, w.Member.Token, map[string]any{"name": "S2", "goal": "ship", "start_date": "2025-03-03", "end_date": "2025-03-03"}).Expect(t, 201).Map(t)
		if g["goal"] != "ship" {
			t.Fatalf("sprint %v", g)
		}
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no name":          {"start_date": "2025-01-01", "end_date": "2025-01-02"},
			"blank name":       {"name": "  ", "start_date": "2025-01-01", "end_date": "2025-01-02"},
			"no start":         {"name": "x", "end_date": "2025-01-02"},
			"no end":           {"name": "x", "start_date": "2025-01-01"},
			"bad date":         {"name": "x", "start_date": "2025-13-01", "end_date": "2025-12-02"},
			"not iso":          {"name": "x", "start_date": "01/02/2025", "end_date": "2025-12-02"},
			"timestamp":        {"name": "x", "start_date": "2025-01-01T00:00:00Z", "end_date": "2025-12-02"},
			"end before start": {"name": "x", "start_date": "2025-01-10", "end_date": "2025-01-09"},
			"over a year":      {"name": "x", "start_date": "2025-01-01", "end_date": "2026-01-03"},
		} {
			t.Run(name, func(t *testing.T) {
				if r := w.Env.Do("POST", path, w.Member.Token, body).Expect(t, 422); r.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatal(r.ErrorCode())
				}
			})
		}
	})

	t.Run("403 below Member", func(t *testing.T) {
		body := map[string]any{"name": "x", "start_date": "2025-01-01", "end_date": "2025-01-02"}
		for _, u := range []string{w.Viewer.Token, w.Reporter.Token, w.UnassignedReporter.Token} {
			w.Env.Do("POST", path, u, body).Expect(t, 403)
		}
	})

	t.Run("404", func(t *testing.T) {
		body := map[string]any{"name": "x", "start_date": "2025-01-01", "end_date": "2025-01-02"}
		w.Env.Do("POST", path, w.Outsider.Token, body).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/projects/"+uuid.NewString()+"/sprints", w.Member.Token, body).Expect(t, 404)
		gone := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "GONE"})
		w.Env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, gone.ID)
		w.Env.Do("POST", "/api/v1/projects/"+gone.ID.String()+"/sprints", w.Member.Token, body).Expect(t, 404)
	})
}

func TestListGetUpdateSprint(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/projects/" + w.Project.ID.String() + "/sprints"
	a := w.sprint(t, w.Project, "a", "2025-01-01", "2025-01-14")
	b := w.sprint(t, w.Project, "b", "2025-01-15", "2025-01-28")
	other := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "OTH"})
	w.sprint(t, other, "elsewhere", "2025-01-01", "2025-01-02")

	t.Run("200 list paginated", func(t *testing.T) {
		p1 := w.Env.Do("GET", path+"?limit=1", w.Viewer.Token, nil).Expect(t, 200).Map(t)
		if items := p1["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != sid(a) || p1["has_more"] != true {
			t.Fatalf("page 1 %v", p1)
		}
		p2 := w.Env.Do("GET", path+"?limit=1&cursor="+p1["next_cursor"].(string), w.Viewer.Token, nil).Expect(t, 200).Map(t)
		if items := p2["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != sid(b) || p2["has_more"] != false {
			t.Fatalf("page 2 %v", p2)
		}
		w.Env.Do("GET", path, w.Reporter.Token, nil).Expect(t, 200)
	})

	t.Run("200 get", func(t *testing.T) {
		if g := w.Env.Do("GET", "/api/v1/sprints/"+sid(a), w.Viewer.Token, nil).Expect(t, 200).Map(t); g["name"] != "a" || g["start_date"] != "2025-01-01" {
			t.Fatalf("sprint %v", g)
		}
	})

	t.Run("200 patch name, goal, dates; null goal clears", func(t *testing.T) {
		p := "/api/v1/sprints/" + sid(a)
		s := w.Env.Do("PATCH", p, w.Member.Token, map[string]any{"name": "a2", "goal": "focus", "end_date": "2025-01-20"}).Expect(t, 200).Map(t)
		if s["name"] != "a2" || s["goal"] != "focus" || s["end_date"] != "2025-01-20" || s["start_date"] != "2025-01-01" || s["status"] != "Planned" {
			t.Fatalf("sprint %v", s)
		}
		s = w.Env.Do("PATCH", p, w.Member.Token, map[string]any{"goal": nil}).Expect(t, 200).Map(t)
		if s["goal"] != nil || s["name"] != "a2" {
			t.Fatalf("sprint %v", s)
		}
		audit := w.Env.Audit(t, "sprint", uuid.MustParse(sid(a)))
		if last := audit[len(audit)-1]; last.Action != "updated" || last.Changes[0].Field != "goal" || last.Changes[0].New != nil {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("422 patch", func(t *testing.T) {
		p := "/api/v1/sprints/" + sid(a)
		for name, body := range map[string]map[string]any{
			"end before start": {"end_date": "2024-12-31"},
			"start after end":  {"start_date": "2025-02-01"},
			"null name":        {"name": nil},
			"blank name":       {"name": ""},
			"null date":        {"start_date": nil},
			"bad date":         {"end_date": "soon"},
		} {
			t.Run(name, func(t *testing.T) {
				w.Env.Do("PATCH", p, w.Member.Token, body).Expect(t, 422)
			})
		}
	})

	t.Run("403", func(t *testing.T) {
		w.Env.Do("PATCH", "/api/v1/sprints/"+sid(a), w.Viewer.Token, map[string]any{"name": "v"}).Expect(t, 403)
		w.Env.Do("GET", "/api/v1/sprints/"+sid(a), w.UnassignedReporter.Token, nil).Expect(t, 403)
		w.Env.Do("GET", path, w.UnassignedReporter.Token, nil).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("GET", path, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/"+sid(a), w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("PATCH", "/api/v1/sprints/"+sid(a), w.Outsider.Token, map[string]any{"name": "o"}).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/"+uuid.NewString(), w.Member.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/nope", w.Member.Token, nil).Expect(t, 404)
	})
}

func TestStartComplete(t *testing.T) {
	t.Parallel()
	w := setup(t)
	s := w.sprint(t, w.Project, "life", "2025-01-01", "2025-01-14")
	p := "/api/v1/sprints/" + sid(s)

	t.Run("409 complete a Planned sprint", func(t *testing.T) {
		r := w.Env.Do("POST", p+"/complete", w.Member.Token, nil).Expect(t, 409)
		if e := r.Error(); e.Code != "CONFLICT" || !strings.Contains(e.Message, "Planned") || e.Details[0] != "status: Planned" {
			t.Fatalf("error %+v", e)
		}
	})

	t.Run("403 viewer", func(t *testing.T) {
		w.Env.Do("POST", p+"/start", w.Viewer.Token, nil).Expect(t, 403)
	})

	t.Run("200 start, then 409 start again", func(t *testing.T) {
		got := w.Env.Do("POST", p+"/start", w.Member.Token, nil).Expect(t, 200).Map(t)
		if got["status"] != "Active" || got["id"] != sid(s) {
			t.Fatalf("sprint %v", got)
		}
		r := w.Env.Do("POST", p+"/start", w.Member.Token, nil).Expect(t, 409)
		if !strings.Contains(r.Error().Message, "Active") {
			t.Fatal(r.Error().Message)
		}
		ev := w.Env.Outbox(t, w.Owner.OrgID, "sprint.started")
		if len(ev) != 1 || ev[0]["data"].(map[string]any)["status"] != "Active" || ev[0]["data"].(map[string]any)["id"] != sid(s) {
			t.Fatalf("events %v", ev)
		}
	})

	t.Run("200 complete, then 409 for both", func(t *testing.T) {
		got := w.Env.Do("POST", p+"/complete", w.Member.Token, nil).Expect(t, 200).Map(t)
		if got["status"] != "Completed" {
			t.Fatalf("sprint %v", got)
		}
		for _, action := range []string{"/start", "/complete"} {
			r := w.Env.Do("POST", p+action, w.Member.Token, nil).Expect(t, 409)
			if !strings.Contains(r.Error().Message, "Completed") {
				t.Fatal(r.Error().Message)
			}
		}
		ev := w.Env.Outbox(t, w.Owner.OrgID, "sprint.completed")
		if len(ev) != 1 || ev[0]["data"].(map[string]any)["status"] != "Completed" || ev[0]["type"] != "sprint.completed" {
			t.Fatalf("events %v", ev)
		}
		var actions []string
		for _, a := range w.Env.Audit(t, "sprint", uuid.MustParse(sid(s))) {
			actions = append(actions, a.Action)
		}
		if strings.Join(actions, ",") != "created,started,completed" {
			t.Fatalf("audit %v", actions)
		}
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("POST", p+"/start", w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/sprints/"+uuid.NewString()+"/complete", w.Member.Token, nil).Expect(t, 404)
	})
}
