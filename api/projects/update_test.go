package projects_test

import (
	"encoding/json"
	"strings"
	"testing"
	"tracker/api/apitest"
	"tracker/domain/testfactory"

	"github.com/google/uuid"
)

func TestUpdateProject(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, member, viewer, reporter, outsider := g.Env, g.Owner, g.Member, g.Viewer, g.Reporter, g.Outsider
	org := owner.OrgID
	team := testfactory.Team(t, env.DB, org, testfactory.TeamOpts{}).ID
	p := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{
		"org_id": org, "key": "UPD", "name": "Before", "description": "d", "team_id": team,
		"budget_cents": 100, "budget_period": "Monthly",
	}).Expect(t, 201).Map(t)
	path := "/api/v1/projects/" + pid(t, p)

	t.Run("200 sets fields and writes one audit row with the changes", func(t *testing.T) {
		before := auditCount(t, env, pid(t, p), "updated")
		got := env.Do("PATCH", path, member.Token, map[string]any{
			"name": "After", "capitalization_type": "capitalizable", "development_phase": "PostImplementation",
			"cost_center_id": "CC-7", "amortization_months": 24, "budget_cents": 500, "budget_period": "Yearly",
		}).Expect(t, 200).Map(t)
		for k, v := range map[string]any{"name": "After", "capitalization_type": "capitalizable",
			"development_phase": "PostImplementation", "cost_center_id": "CC-7", "amortization_months": float64(24),
			"budget_cents": float64(500), "budget_period": "Yearly", "description": "d", "team_id": team.String(), "key": "UPD"} {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		if got["updated_at"] == p["updated_at"] {
			t.Error("updated_at not bumped")
		}
		if n := auditCount(t, env, pid(t, p), "updated"); n != before+1 {
			t.Fatalf("audit rows %d, want %d", n, before+1)
		}
		raw := apitest.Scalar[[]byte](t, env, `SELECT changes FROM audit_log WHERE entity_id = $1 AND action = 'updated' ORDER BY id DESC LIMIT 1`, pid(t, p))
		var changes []struct {
			Field string `json:"field"`
			Old   any    `json:"old"`
			New   any    `json:"new"`
		}
		if err := json.Unmarshal(raw, &changes); err != nil {
			t.Fatal(err)
		}
		if len(changes) != 7 || changes[0].Field != "name" || changes[0].Old != "Before" || changes[0].New != "After" {
			t.Fatalf("changes %s", raw)
		}
	})

	t.Run("200 null clears nullable fields", func(t *testing.T) {
		got := env.Do("PATCH", path, owner.Token, map[string]any{
			"description": nil, "team_id": nil, "budget_cents": nil, "budget_period": nil,
			"capitalization_type": nil, "development_phase": nil, "cost_center_id": nil, "amortization_months": nil,
		}).Expect(t, 200).Map(t)
		for _, k := range []string{"description", "team_id", "budget_cents", "budget_period",
			"capitalization_type", "development_phase", "cost_center_id", "amortization_months"} {
			if got[k] != nil {
				t.Errorf("%s = %v, want null", k, got[k])
			}
		}
		if got["name"] != "After" {
			t.Fatalf("name %v", got["name"])
		}
	})

	t.Run("200 no-op writes no audit row", func(t *testing.T) {
		before := auditCount(t, env, pid(t, p), "updated")
		env.Do("PATCH", path, owner.Token, map[string]any{"name": "After"}).Expect(t, 200)
		env.Do("PATCH", path, owner.Token, map[string]any{}).Expect(t, 200)
		if n := auditCount(t, env, pid(t, p), "updated"); n != before {
			t.Fatalf("audit rows %d, want %d", n, before)
		}
	})

	t.Run("200 workflow assignment and back to Default with null", func(t *testing.T) {
		wf := env.Do("POST", "/api/v1/orgs/"+org.String()+"/workflows", owner.Token, map[string]any{
			"name": "Kanban", "statuses": []map[string]string{{"name": "Open", "category": "todo"}, {"name": "Closed", "category": "done"}},
			"transitions": []map[string]string{{"from": "Open", "to": "Closed"}},
		}).Expect(t, 201).Map(t)
		got := env.Do("PATCH", path, member.Token, map[string]any{"workflow_id": wf["id"]}).Expect(t, 200).Map(t)
		if got["workflow_id"] != wf["id"] {
			t.Fatalf("workflow_id %v", got["workflow_id"])
		}
		got = env.Do("PATCH", path, member.Token, map[string]any{"workflow_id": nil}).Expect(t, 200).Map(t)
		if got["workflow_id"] != nil {
			t.Fatalf("workflow_id %v", got["workflow_id"])
		}
		got = env.Do("PATCH", path, member.Token, map[string]any{"team_id": team}).Expect(t, 200).Map(t)
		if got["team_id"] != team.String() {
			t.Fatalf("team_id %v", got["team_id"])
		}
	})

	t.Run("400 malformed", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PATCH", path, owner.Token, `{"name"`), 400, "BAD_REQUEST")
	})
	t.Run("401", func(t *testing.T) { env.Do("PATCH", path, "", map[string]any{"name": "x"}).Expect(t, 401) })
	t.Run("403", func(t *testing.T) {
		for name, token := range map[string]string{
			"viewer": viewer.Token, "reporter": reporter.Token, "read key": env.APIKey(owner, []string{"read"}),
		} {
			t.Run(name, func(t *testing.T) {
				apitest.ExpectCode(t, env.Do("PATCH", path, token, map[string]any{"name": "x"}), 403, "FORBIDDEN")
			})
		}
		// Assignment does not lift a Reporter to Member rights.
		env.Do("POST", path+"/members", owner.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201)
		apitest.ExpectCode(t, env.Do("PATCH", path, reporter.Token, map[string]any{"name": "x"}), 403, "FORBIDDEN")
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PATCH", path, outsider.Token, map[string]any{"name": "x"}), 404, "not_found")
		apitest.ExpectCode(t, env.Do("PATCH", "/api/v1/projects/"+uuid.NewString(), owner.Token, map[string]any{"name": "x"}), 404, "not_found")
	})
	t.Run("422", func(t *testing.T) {
		otherWF := defaultWorkflow(t, env, outsider.OrgID)
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"name null":             {map[string]any{"name": nil}, "name"},
			"name empty":            {map[string]any{"name": ""}, "name"},
			"name too long":         {map[string]any{"name": strings.Repeat("x", 256)}, "name"},
			"negative budget":       {map[string]any{"budget_cents": -5}, "budget_cents"},
			"bad period":            {map[string]any{"budget_period": "Daily"}, "budget_period"},
			"team of another org":   {map[string]any{"team_id": testfactory.Team(t, env.DB, outsider.OrgID, testfactory.TeamOpts{}).ID}, "team_id"},
			"team not a uuid":       {map[string]any{"team_id": "x"}, "team_id"},
			"workflow of other org": {map[string]any{"workflow_id": otherWF}, "workflow_id"},
			"unknown workflow":      {map[string]any{"workflow_id": uuid.New()}, "workflow_id"},
			"workflow not a uuid":   {map[string]any{"workflow_id": 12}, "workflow_id"},
			"phase too long":        {map[string]any{"development_phase": strings.Repeat("p", 101)}, "development_phase"},
			"amortization too big":  {map[string]any{"amortization_months": 100000}, "amortization_months"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("PATCH", path, owner.Token, c.body)
				apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
				if d := r.Error().Details; len(d) == 0 || !strings.HasPrefix(d[0], c.field+":") {
					t.Fatalf("details %v, want %s", d, c.field)
				}
			})
		}
	})
}
