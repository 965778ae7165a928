package statusflow_test

import (
	"strings"
	"testing"
	"tracker/api/apitest"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"

	"github.com/google/uuid"
)

func TestUpdateWorkflow(t *testing.T) {
	t.Parallel()
	g, orgPath := newOrg(t)
	env, owner, admin, member, viewer, outsider := g.Env, g.Owner, g.Admin, g.Member, g.Viewer, g.Outsider
	w := env.Do("POST", orgPath, owner.Token, body("Flow")).Expect(t, 201).Map(t)
	env.Do("POST", orgPath, owner.Token, body("Taken")).Expect(t, 201)
	path := "/api/v1/workflows/" + w["id"].(string)
	def := apitest.Scalar[uuid.UUID](t, env, `SELECT id FROM workflows WHERE org_id = $1 AND name = 'Default'`, owner.OrgID).String()

	t.Run("200 partial update keeps the rest", func(t *testing.T) {
		got := env.Do("PATCH", path, admin.Token, map[string]any{"enforcement": "strict"}).Expect(t, 200).Map(t)
		if got["enforcement"] != "strict" || got["name"] != "Flow" || len(got["statuses"].([]any)) != 3 || len(got["transitions"].([]any)) != 2 {
			t.Fatalf("workflow %v", got)
		}
		got = env.Do("PATCH", path, admin.Token, map[string]any{"name": "Flow 2"}).Expect(t, 200).Map(t)
		if got["name"] != "Flow 2" || got["enforcement"] != "strict" {
			t.Fatalf("workflow %v", got)
		}
		if n := auditCount(t, env, w["id"], "updated"); n != 2 {
			t.Fatalf("audit rows %d", n)
		}
	})
	t.Run("200 statuses and transitions are replaced together", func(t *testing.T) {
		got := env.Do("PATCH", path, owner.Token, map[string]any{
			"statuses":    []st{{"name": "New", "category": "todo"}, {"name": "Gone", "category": "cancelled"}},
			"transitions": []st{{"from": "New", "to": "Gone"}},
		}).Expect(t, 200).Map(t)
		sts := got["statuses"].([]any)
		tr := got["transitions"].([]any)
		if len(sts) != 2 || sts[0].(map[string]any)["name"] != "New" || len(tr) != 1 {
			t.Fatalf("workflow %v", got)
		}
		got = env.Do("PATCH", path, owner.Token, map[string]any{"transitions": []st{}}).Expect(t, 200).Map(t)
		if len(got["transitions"].([]any)) != 0 {
			t.Fatalf("transitions %v", got["transitions"])
		}
	})
	t.Run("200 the Default workflow's definition can change", func(t *testing.T) {
		env.Do("PATCH", "/api/v1/workflows/"+def, owner.Token, map[string]any{"enforcement": "warn"}).Expect(t, 200)
	})
	t.Run("400 malformed", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PATCH", path, owner.Token, "[1"), 400, "BAD_REQUEST")
	})
	t.Run("401", func(t *testing.T) { env.Do("PATCH", path, "", map[string]any{"name": "x"}).Expect(t, 401) })
	t.Run("403 below Admin", func(t *testing.T) {
		for _, token := range []string{member.Token, viewer.Token, env.APIKey(owner, []string{"write"})} {
			apitest.ExpectCode(t, env.Do("PATCH", path, token, map[string]any{"name": "x"}), 403, "FORBIDDEN")
		}
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PATCH", path, outsider.Token, map[string]any{"name": "x"}), 404, "not_found")
		apitest.ExpectCode(t, env.Do("PATCH", "/api/v1/workflows/"+uuid.NewString(), owner.Token, map[string]any{"name": "x"}), 404, "not_found")
	})
	t.Run("409 name taken", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PATCH", path, owner.Token, map[string]any{"name": "taken"}), 409, "CONFLICT")
		apitest.ExpectCode(t, env.Do("PATCH", path, owner.Token, map[string]any{"name": "Default"}), 409, "CONFLICT")
	})
	t.Run("422", func(t *testing.T) {
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"name null":        {map[string]any{"name": nil}, "name"},
			"statuses null":    {map[string]any{"statuses": nil}, "statuses"},
			"empty statuses":   {map[string]any{"statuses": []st{}}, "statuses"},
			"bad enforcement":  {map[string]any{"enforcement": "loose"}, "enforcement"},
			"kept transitions": {map[string]any{"statuses": []st{{"name": "Other", "category": "todo"}}, "transitions": []st{{"from": "Other", "to": "New"}}}, "transitions[0].to"},
			"bad category":     {map[string]any{"statuses": []st{{"name": "X", "category": "later"}}}, "statuses[0].category"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("PATCH", path, owner.Token, c.body)
				apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
				if d := r.Error().Details; len(d) == 0 || !strings.HasPrefix(d[0], c.field+":") {
					t.Fatalf("details %v, want %s", d, c.field)
				}
			})
		}
		// Statuses that no longer cover the kept transitions.
		env.Do("PATCH", path, owner.Token, map[string]any{
			"statuses":    []st{{"name": "A", "category": "todo"}, {"name": "B", "category": "done"}},
			"transitions": []st{{"from": "A", "to": "B"}},
		}).Expect(t, 200)
		r := env.Do("PATCH", path, owner.Token, map[string]any{"statuses": []st{{"name": "A", "category": "todo"}}})
		apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
		if d := r.Error().Details; len(d) != 1 || !strings.HasPrefix(d[0], "transitions[0].to:") {
			t.Fatalf("details %v", d)
		}
		// The Default workflow keeps its name.
		apitest.ExpectCode(t, env.Do("PATCH", "/api/v1/workflows/"+def, owner.Token, map[string]any{"name": "Renamed"}), 422, "VALIDATION_ERROR")
	})
}

func TestDeleteWorkflow(t *testing.T) {
	t.Parallel()
	g, orgPath := newOrg(t)
	env, owner, admin, member, viewer, outsider := g.Env, g.Owner, g.Admin, g.Member, g.Viewer, g.Outsider
	def := apitest.Scalar[uuid.UUID](t, env, `SELECT id FROM workflows WHERE org_id = $1 AND name = 'Default'`, owner.OrgID).String()

	t.Run("204 unused, then 404", func(t *testing.T) {
		w := env.Do("POST", orgPath, owner.Token, body("Tmp")).Expect(t, 201).Map(t)
		path := "/api/v1/workflows/" + w["id"].(string)
		env.Do("DELETE", path, admin.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("GET", path, owner.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", path, owner.Token, nil), 404, "not_found")
		if n := auditCount(t, env, w["id"], "deleted"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}
	})

	w := env.Do("POST", orgPath, owner.Token, body("Used")).Expect(t, 201).Map(t)
	path := "/api/v1/workflows/" + w["id"].(string)
	var projects []string
	for _, k := range []string{"P1", "P2"} {
		p := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": owner.OrgID, "key": k, "name": k, "workflow_id": w["id"]}).Expect(t, 201).Map(t)
		projects = append(projects, p["id"].(string))
	}

	t.Run("409 in use by live projects", func(t *testing.T) {
		r := env.Do("DELETE", path, owner.Token, nil)
		apitest.ExpectCode(t, r, 409, "CONFLICT")
		if d := r.Error().Details; len(d) != 1 || d[0] != "projects: 2" {
			t.Fatalf("details %v", d)
		}
		// A deleted project (soft-deleted: it has a sprint to purge) no
		// longer counts; one moved back to Default neither.
		testfactory.Sprint(t, env.DB, projectdb.Row{ID: uuid.MustParse(projects[0]), OrgID: owner.OrgID}, testfactory.SprintOpts{})
		env.Do("DELETE", "/api/v1/projects/"+projects[0]+"?cascade=true", owner.Token, nil).Expect(t, 204)
		r = env.Do("DELETE", path, owner.Token, nil)
		apitest.ExpectCode(t, r, 409, "CONFLICT")
		if d := r.Error().Details; len(d) != 1 || d[0] != "projects: 1" {
			t.Fatalf("details %v", d)
		}
		env.Do("PATCH", "/api/v1/projects/"+projects[1], owner.Token, map[string]any{"workflow_id": nil}).Expect(t, 200)
		env.Do("DELETE", path, owner.Token, nil).Expect(t, 204)
		// The soft-deleted project awaiting its purge was moved off it.
		if !apitest.Scalar[bool](t, env, `SELECT workflow_id IS NULL AND deleted_at IS NOT NULL FROM projects WHERE id = $1`, projects[0]) {
			t.Fatal("soft-deleted project still points at the deleted workflow")
		}
	})
	t.Run("409 the Default workflow", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("DELETE", "/api/v1/workflows/"+def, owner.Token, nil), 409, "CONFLICT")
	})
	t.Run("403 below Admin", func(t *testing.T) {
		x := env.Do("POST", orgPath, owner.Token, body("Keep")).Expect(t, 201).Map(t)
		for _, token := range []string{member.Token, viewer.Token, env.APIKey(owner, []string{"write"})} {
			apitest.ExpectCode(t, env.Do("DELETE", "/api/v1/workflows/"+x["id"].(string), token, nil), 403, "FORBIDDEN")
		}
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("DELETE", "/api/v1/workflows/"+def, outsider.Token, nil), 404, "not_found")
	})
	t.Run("401", func(t *testing.T) { env.Do("DELETE", "/api/v1/workflows/"+def, "", nil).Expect(t, 401) })
}

// Every route: a non-member gets 404 and a Viewer 403 on every write.
func TestWorkflowAccessEveryRoute(t *testing.T) {
	t.Parallel()
	g, orgPath := newOrg(t)
	w := g.Env.Do("POST", orgPath, g.Owner.Token, body("Flow")).Expect(t, 201).Map(t)
	path := "/api/v1/workflows/" + w["id"].(string)
	g.CheckAccess(t, []apitest.Route{
		{Method: "POST", Path: orgPath, Body: body("New"), Write: true},
		{Method: "GET", Path: orgPath},
		{Method: "GET", Path: path},
		{Method: "PATCH", Path: path, Body: map[string]any{"name": "x"}, Write: true},
		{Method: "DELETE", Path: path, Write: true},
	})
}
