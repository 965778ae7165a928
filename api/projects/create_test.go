package projects_test

import (
	"strings"
	"testing"
	"tracker/api/apitest"
	"tracker/domain/testfactory"

	"github.com/google/uuid"
)

func TestCreateProject(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, member, viewer, reporter, outsider := g.Env, g.Owner, g.Member, g.Viewer, g.Reporter, g.Outsider
	org := owner.OrgID

	t.Run("201", func(t *testing.T) {
		team := testfactory.Team(t, env.DB, org, testfactory.TeamOpts{}).ID
		wf := defaultWorkflow(t, env, org)
		p := env.Do("POST", "/api/v1/projects", member.Token, map[string]any{
			"org_id": org, "key": "web", "name": "Website", "description": "the site", "team_id": team,
			"workflow_id": wf, "budget_cents": 125000, "budget_period": "Quarterly",
			"capitalization_type": "capitalizable", "development_phase": "ApplicationDevelopment",
			"cost_center_id": "CC-100", "amortization_months": 36, "created_by": uuid.New(),
		}).Expect(t, 201).Map(t)
		want := map[string]any{
			"org_id": org.String(), "key": "WEB", "name": "Website", "description": "the site", "team_id": team.String(),
			"workflow_id": wf, "budget_cents": float64(125000), "budget_period": "Quarterly", "ticket_counter": float64(0),
			"capitalization_type": "capitalizable", "development_phase": "ApplicationDevelopment",
			"cost_center_id": "CC-100", "amortization_months": float64(36),
		}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s = %v, want %v", k, p[k], v)
			}
		}
		if p["id"] == nil || p["created_at"] == nil || p["updated_at"] == nil {
			t.Fatalf("project %v", p)
		}
		if n := auditCount(t, env, pid(t, p), "created"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}

		minimal := createProject(t, env, owner.Token, org, "Min")
		for _, k := range []string{"description", "team_id", "workflow_id", "budget_cents", "budget_period",
			"capitalization_type", "development_phase", "cost_center_id", "amortization_months"} {
			v, ok := minimal[k]
			if !ok || v != nil {
				t.Errorf("%s = %v (present %v), want null", k, v, ok)
			}
		}
		if minimal["key"] != "MIN" {
			t.Fatalf("key %v", minimal["key"])
		}
		// budget_period in any case is stored in the spec's spelling.
		p = env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "BP", "name": "n", "budget_period": "monthly"}).
			Expect(t, 201).Map(t)
		if p["budget_period"] != "Monthly" {
			t.Fatalf("budget_period %v", p["budget_period"])
		}
	})

	t.Run("400 malformed", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/projects", owner.Token, `{"org_id":`), 400, "BAD_REQUEST")
	})

	t.Run("401", func(t *testing.T) {
		env.Do("POST", "/api/v1/projects", "", map[string]any{"org_id": org, "key": "X", "name": "x"}).Expect(t, 401)
	})

	t.Run("403", func(t *testing.T) {
		body := map[string]any{"org_id": org, "key": "NOPE", "name": "x"}
		for name, token := range map[string]string{
			"viewer":   viewer.Token,
			"reporter": reporter.Token,
			"read key": env.APIKey(owner, []string{"read"}),
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", "/api/v1/projects", token, body)
				apitest.ExpectCode(t, r, 403, "FORBIDDEN")
			})
		}
		t.Run("project-restricted key", func(t *testing.T) {
			p := createProject(t, env, owner.Token, org, "RK")
			key := env.APIKey(owner, []string{"write"}, uuid.MustParse(pid(t, p)))
			apitest.ExpectCode(t, env.Do("POST", "/api/v1/projects", key, body), 403, "FORBIDDEN")
		})
		if r := env.Do("POST", "/api/v1/projects", viewer.Token, body); !strings.Contains(r.Error().Message, "Member") {
			t.Fatalf("message %q", r.Error().Message)
		}
	})

	t.Run("404 not a member of the org", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/projects", outsider.Token, map[string]any{"org_id": org, "key": "OUT", "name": "x"}), 404, "not_found")
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": uuid.New(), "key": "OUT", "name": "x"}), 404, "not_found")
	})

	t.Run("409 key taken in any case", func(t *testing.T) {
		createProject(t, env, owner.Token, org, "DUP")
		r := env.Do("POST", "/api/v1/projects", member.Token, map[string]any{"org_id": org, "key": "dup", "name": "x"})
		apitest.ExpectCode(t, r, 409, "CONFLICT")
		if d := r.Error().Details; len(d) != 1 || d[0] != "key: DUP" {
			t.Fatalf("details %v", d)
		}
		// The same key in another org is fine.
		createProject(t, env, outsider.Token, outsider.OrgID, "DUP")
	})

	t.Run("422", func(t *testing.T) {
		otherTeam := testfactory.Team(t, env.DB, outsider.OrgID, testfactory.TeamOpts{}).ID
		otherWF := defaultWorkflow(t, env, outsider.OrgID)
		base := func(kv ...any) map[string]any {
			m := map[string]any{"org_id": org, "key": "OK", "name": "ok"}
			for i := 0; i < len(kv); i += 2 {
				if kv[i+1] == nil {
					delete(m, kv[i].(string))
				} else {
					m[kv[i].(string)] = kv[i+1]
				}
			}
			return m
		}
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"no org_id":              {base("org_id", nil), "org_id"},
			"org_id not a uuid":      {base("org_id", "nope"), "org_id"},
			"no key":                 {base("key", nil), "key"},
			"key too long":           {base("key", "ABCDEFGHIJK"), "key"},
			"key with space":         {base("key", "A B"), "key"},
			"no name":                {base("name", nil), "name"},
			"blank name":             {base("name", "   "), "name"},
			"name too long":          {base("name", strings.Repeat("n", 256)), "name"},
			"negative budget":        {base("budget_cents", -1), "budget_cents"},
			"budget not integer":     {base("budget_cents", "10"), "budget_cents"},
			"bad budget period":      {base("budget_period", "Weekly"), "budget_period"},
			"team of another org":    {base("team_id", otherTeam), "team_id"},
			"unknown team":           {base("team_id", uuid.New()), "team_id"},
			"team not a uuid":        {base("team_id", "x"), "team_id"},
			"workflow of other org":  {base("workflow_id", otherWF), "workflow_id"},
			"phase too long":         {base("development_phase", strings.Repeat("p", 101)), "development_phase"},
			"empty capitalization":   {base("capitalization_type", ""), "capitalization_type"},
			"negative amortization":  {base("amortization_months", -1), "amortization_months"},
			"amortization not int":   {base("amortization_months", "x"), "amortization_months"},
			"cost center too long":   {base("cost_center_id", strings.Repeat("c", 101)), "cost_center_id"},
			"description not string": {base("description", 5), "description"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", "/api/v1/projects", owner.Token, c.body)
				apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
				if d := r.Error().Details; len(d) == 0 || !strings.HasPrefix(d[0], c.field+":") {
					t.Fatalf("details %v, want %s first", d, c.field)
				}
			})
		}
	})
}
