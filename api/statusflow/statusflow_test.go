package statusflow_test

import (
	"strings"
	"testing"
	"tracker/api/apitest"

	"github.com/google/uuid"
)

func TestCreateWorkflow(t *testing.T) {
	t.Parallel()
	g, path := newOrg(t)
	env, owner := g.Env, g.Owner

	t.Run("201 enforcement defaults to none", func(t *testing.T) {
		w := env.Do("POST", path, g.Admin.Token, body("Kanban")).Expect(t, 201).Map(t)
		if w["name"] != "Kanban" || w["org_id"] != owner.OrgID.String() || w["enforcement"] != "none" ||
			w["id"] == nil || w["created_at"] == nil || w["updated_at"] == nil {
			t.Fatalf("workflow %v", w)
		}
		sts := w["statuses"].([]any)
		tr := w["transitions"].([]any)
		if len(sts) != 3 || sts[1].(map[string]any)["name"] != "Doing" || sts[1].(map[string]any)["category"] != "in_progress" ||
			len(tr) != 2 || tr[1].(map[string]any)["from"] != "Doing" || tr[1].(map[string]any)["to"] != "Closed" {
			t.Fatalf("definition %v %v", sts, tr)
		}
		if n := auditCount(t, env, w["id"], "created"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}
		for _, e := range []string{"warn", "strict"} {
			w := env.Do("POST", path, owner.Token, with(body("E-"+e), "enforcement", e)).Expect(t, 201).Map(t)
			if w["enforcement"] != e {
				t.Fatalf("enforcement %v", w["enforcement"])
			}
		}
		// An empty transition list is a definition too (nothing allowed under strict).
		env.Do("POST", path, owner.Token, with(body("Free"), "transitions", []st{})).Expect(t, 201)
	})

	t.Run("400 malformed", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", path, owner.Token, `{"name":`), 400, "BAD_REQUEST")
	})
	t.Run("401", func(t *testing.T) { env.Do("POST", path, "", body("X")).Expect(t, 401) })
	t.Run("403 below Admin", func(t *testing.T) {
		for name, token := range map[string]string{
			"member": g.Member.Token, "viewer": g.Viewer.Token,
			"owner's write key": env.APIKey(owner, []string{"write"}), "read key": env.APIKey(owner, []string{"read"}),
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", path, token, body("Nope"))
				apitest.ExpectCode(t, r, 403, "FORBIDDEN")
			})
		}
		if r := env.Do("POST", path, g.Member.Token, body("Nope")); !strings.Contains(r.Error().Message, "Admin") {
			t.Fatalf("message %q", r.Error().Message)
		}
		// An admin-scoped key acts with the owner's role.
		env.Do("POST", path, env.APIKey(owner, []string{"admin"}), body("ByKey")).Expect(t, 201)
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("POST", path, g.Outsider.Token, body("X")), 404, "not_found")
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/orgs/"+uuid.NewString()+"/workflows", owner.Token, body("X")), 404, "not_found")
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/orgs/nope/workflows", owner.Token, body("X")), 404, "not_found")
	})
	t.Run("409 name taken in any case", func(t *testing.T) {
		for _, n := range []string{"Default", "default", "KANBAN"} {
			r := env.Do("POST", path, owner.Token, body(n))
			apitest.ExpectCode(t, r, 409, "CONFLICT")
		}
		// Names are per org.
		env.Do("POST", "/api/v1/orgs/"+g.Outsider.OrgID.String()+"/workflows", g.Outsider.Token, body("Kanban")).Expect(t, 201)
	})
	t.Run("422", func(t *testing.T) {
		b := body("Bad")
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"no name":              {with(b, "name", nil), "name"},
			"blank name":           {with(b, "name", " "), "name"},
			"no statuses":          {with(b, "statuses", nil), "statuses"},
			"empty statuses":       {with(b, "statuses", []st{}, "transitions", []st{}), "statuses"},
			"no transitions":       {with(b, "transitions", nil), "transitions"},
			"statuses not array":   {with(b, "statuses", "Open"), "statuses"},
			"status without name":  {with(b, "statuses", []st{{"category": "todo"}}, "transitions", []st{}), "statuses[0].name"},
			"status without cat":   {with(b, "statuses", []st{{"name": "A"}}, "transitions", []st{}), "statuses[0].category"},
			"bad category":         {with(b, "statuses", []st{{"name": "A", "category": "blocked"}}, "transitions", []st{}), "statuses[0].category"},
			"duplicate status":     {with(b, "statuses", []st{{"name": "A", "category": "todo"}, {"name": "a", "category": "done"}}, "transitions", []st{}), "statuses[1].name"},
			"unknown from":         {with(b, "transitions", []st{{"from": "Nowhere", "to": "Open"}}), "transitions[0].from"},
			"unknown to":           {with(b, "transitions", []st{{"from": "Open", "to": "open"}}), "transitions[0].to"},
			"transition w/o to":    {with(b, "transitions", []st{{"from": "Open"}}), "transitions[0].to"},
			"duplicate transition": {with(b, "transitions", []st{{"from": "Open", "to": "Doing"}, {"from": "Open", "to": "Doing"}}), "transitions[1]"},
			"bad enforcement":      {with(b, "enforcement", "hard"), "enforcement"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", path, owner.Token, c.body)
				apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
				if d := r.Error().Details; len(d) == 0 || !strings.HasPrefix(d[0], c.field+":") {
					t.Fatalf("details %v, want %s", d, c.field)
				}
			})
		}
	})
}

func TestListAndGetWorkflows(t *testing.T) {
	t.Parallel()
	g, path := newOrg(t)
	env, owner, viewer, reporter, outsider := g.Env, g.Owner, g.Viewer, g.Reporter, g.Outsider
	ids := []string{apitest.Scalar[uuid.UUID](t, env, `SELECT id FROM workflows WHERE org_id = $1`, owner.OrgID).String()}
	for _, n := range []string{"W1", "W2", "W3", "W4"} {
		ids = append(ids, env.Do("POST", path, owner.Token, body(n)).Expect(t, 201).Map(t)["id"].(string))
	}

	t.Run("200 pagination walk: Default first, every workflow once", func(t *testing.T) {
		got := env.Walk(path, viewer.Token)
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Fatalf("walk %v, want %v", got, ids)
		}
	})
	t.Run("200 get", func(t *testing.T) {
		for _, who := range []string{viewer.Token, reporter.Token, env.APIKey(owner, []string{"read"})} {
			w := env.Do("GET", "/api/v1/workflows/"+ids[0], who, nil).Expect(t, 200).Map(t)
			if w["name"] != "Default" || len(w["statuses"].([]any)) != 6 || w["enforcement"] != "none" {
				t.Fatalf("default %v", w)
			}
		}
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", path, outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/workflows/"+ids[1], outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/workflows/"+uuid.NewString(), owner.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/workflows/x", owner.Token, nil), 404, "not_found")
	})
	t.Run("422 bad page params", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", path+"?limit=-1", owner.Token, nil), 422, "VALIDATION_ERROR")
		apitest.ExpectCode(t, env.Do("GET", path+"?cursor=zz", owner.Token, nil), 422, "VALIDATION_ERROR")
	})
	t.Run("401", func(t *testing.T) {
		env.Do("GET", path, "", nil).Expect(t, 401)
		env.Do("GET", "/api/v1/workflows/"+ids[0], "", nil).Expect(t, 401)
	})
}
