package tags_test

import (
	"strings"
	"testing"
	"tracker/api/apitest"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"

	"github.com/google/uuid"
)

func TestEntityTags(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner, member, viewer, reporter, outsider := g.Env, g.Owner, g.Member, g.Viewer, g.Reporter, g.Outsider
	org := owner.OrgID
	projectID := createProject(t, env, owner.Token, org, "TAG")
	base := "/api/v1/orgs/" + org.String() + "/project/" + projectID + "/tags"

	t.Run("200 put upserts by key and returns every tag of the entity", func(t *testing.T) {
		var got []map[string]any
		env.Do("PUT", base, member.Token, put("env", "prod", "tier", "1")).Expect(t, 200).Decode(t, &got)
		if len(got) != 2 || got[0]["key"] != "env" || got[0]["value"] != "prod" || got[1]["key"] != "tier" {
			t.Fatalf("tags %v", got)
		}
		first := got[0]
		for _, k := range []string{"id", "org_id", "entity_type", "entity_id", "created_at", "updated_at"} {
			if first[k] == nil {
				t.Fatalf("%s missing in %v", k, first)
			}
		}
		if first["org_id"] != org.String() || first["entity_type"] != "project" || first["entity_id"] != projectID {
			t.Fatalf("tag %v", first)
		}
		env.Do("PUT", base, member.Token, put("env", "staging", "owner", "")).Expect(t, 200).Decode(t, &got)
		if len(got) != 3 || got[0]["key"] != "env" || got[0]["value"] != "staging" || got[0]["id"] != first["id"] ||
			got[1]["key"] != "owner" || got[1]["value"] != "" || got[2]["key"] != "tier" {
			t.Fatalf("after upsert %v", got)
		}
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'tag' AND entity_id = $1`, first["id"]); n != 2 {
			t.Fatalf("audit rows for env tag %d, want created + updated", n)
		}
		// Putting the same value again changes and audits nothing.
		env.Do("PUT", base, member.Token, put("env", "staging")).Expect(t, 200)
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'tag' AND entity_id = $1`, first["id"]); n != 2 {
			t.Fatalf("audit rows %d after a no-op", n)
		}
		env.Do("PUT", base, member.Token, map[string]any{"tags": []pair{}}).Expect(t, 200).Decode(t, &got)
		if len(got) != 3 {
			t.Fatalf("empty put %v", got)
		}
	})

	t.Run("200 get", func(t *testing.T) {
		var got []map[string]any
		env.Do("GET", base, viewer.Token, nil).Expect(t, 200).Decode(t, &got)
		if len(got) != 3 {
			t.Fatalf("tags %v", got)
		}
		other := createProject(t, env, owner.Token, org, "BARE")
		r := env.Do("GET", "/api/v1/orgs/"+org.String()+"/project/"+other+"/tags", viewer.Token, nil).Expect(t, 200)
		if string(r.Body) != "[]" {
			t.Fatalf("body %s", r.Body)
		}
	})

	t.Run("204 delete, then 404", func(t *testing.T) {
		env.Do("DELETE", base+"/owner", member.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("DELETE", base+"/owner", member.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", base+"/never", member.Token, nil), 404, "not_found")
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'tag' AND action = 'deleted'`); n != 1 {
			t.Fatalf("delete audit rows %d", n)
		}
		// Keys travel escaped in the path.
		env.Do("PUT", base, member.Token, put("cost center", "x")).Expect(t, 200)
		env.Do("DELETE", base+"/cost%20center", member.Token, nil).Expect(t, 204)
	})

	t.Run("every entity type", func(t *testing.T) {
		ticketRow := testfactory.Ticket(t, env.DB, projectdb.Row{ID: uuid.MustParse(projectID)}, owner.ID, testfactory.TicketOpts{})
		ticket := ticketRow.ID
		team := testfactory.Team(t, env.DB, org, testfactory.TeamOpts{}).ID
		for _, c := range []struct{ typ, id string }{
			{"ticket", ticket.String()}, {"user", viewer.ID.String()}, {"team", team.String()},
		} {
			p := "/api/v1/orgs/" + org.String() + "/" + c.typ + "/" + c.id + "/tags"
			var got []map[string]any
			env.Do("PUT", p, owner.Token, put("k", c.typ)).Expect(t, 200).Decode(t, &got)
			if len(got) != 1 || got[0]["entity_type"] != c.typ || got[0]["entity_id"] != c.id {
				t.Fatalf("%s tags %v", c.typ, got)
			}
			env.Do("GET", p, viewer.Token, nil).Expect(t, 200)
		}
		p := "/api/v1/orgs/" + org.String() + "/time_entry/%s/tags"
		if hasTimeEntries(t, env) {
			te := insertTimeEntry(t, env, ticketRow, owner.ID)
			env.Do("PUT", strings.Replace(p, "%s", te.String(), 1), owner.Token, put("k", "v")).Expect(t, 200)
		}
		apitest.ExpectCode(t, env.Do("PUT", strings.Replace(p, "%s", uuid.NewString(), 1), owner.Token, put("k", "v")), 404, "not_found")
	})

	t.Run("404 entity missing or elsewhere", func(t *testing.T) {
		theirs := createProject(t, env, outsider.Token, outsider.OrgID, "THEIRS")
		ticket := insertTicket(t, env, projectID, owner.ID)
		env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, ticket)
		for _, p := range []string{
			"/project/" + uuid.NewString(), "/project/" + theirs, "/user/" + outsider.ID.String(),
			"/team/" + testfactory.Team(t, env.DB, outsider.OrgID, testfactory.TeamOpts{}).ID.String(), "/ticket/" + ticket.String(), "/project/not-a-uuid",
		} {
			apitest.ExpectCode(t, env.Do("PUT", "/api/v1/orgs/"+org.String()+p+"/tags", owner.Token, put("k", "v")), 404, "not_found")
			apitest.ExpectCode(t, env.Do("GET", "/api/v1/orgs/"+org.String()+p+"/tags", owner.Token, nil), 404, "not_found")
		}
		// The right org in the path but the caller is not in it.
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/orgs/"+outsider.OrgID.String()+"/project/"+theirs+"/tags", owner.Token, nil), 404, "not_found")
	})

	t.Run("403", func(t *testing.T) {
		for name, token := range map[string]string{
			"viewer": viewer.Token, "read key": env.APIKey(owner, []string{"read"}),
		} {
			t.Run(name, func(t *testing.T) {
				apitest.ExpectCode(t, env.Do("PUT", base, token, put("k", "v")), 403, "FORBIDDEN")
				apitest.ExpectCode(t, env.Do("DELETE", base+"/env", token, nil), 403, "FORBIDDEN")
			})
		}
		// A Reporter outside the project cannot even read its tags; user
		// and team tags are org-wide.
		apitest.ExpectCode(t, env.Do("GET", base, reporter.Token, nil), 403, "FORBIDDEN")
		env.Do("GET", "/api/v1/orgs/"+org.String()+"/user/"+viewer.ID.String()+"/tags", reporter.Token, nil).Expect(t, 200)
		// A key restricted to another project.
		other := createProject(t, env, owner.Token, org, "OTHER")
		key := env.APIKey(owner, []string{"write"}, uuid.MustParse(other))
		apitest.ExpectCode(t, env.Do("GET", base, key, nil), 403, "FORBIDDEN")
		env.Do("PUT", "/api/v1/orgs/"+org.String()+"/project/"+other+"/tags", key, put("k", "v")).Expect(t, 200)
	})

	t.Run("422", func(t *testing.T) {
		for name, c := range map[string]struct {
			body  any
			field string
		}{
			"no tags":        {map[string]any{}, "tags"},
			"tags null":      {map[string]any{"tags": nil}, "tags"},
			"tags not array": {map[string]any{"tags": "x"}, "tags"},
			"empty key":      {put("", "v"), "tags[0].key"},
			"key too long":   {put(strings.Repeat("k", 101), "v"), "tags[0].key"},
			"value too long": {put("k", strings.Repeat("v", 501)), "tags[0].value"},
			"missing value":  {map[string]any{"tags": []pair{{"key": "k"}}}, "tags[0].value"},
			"value not text": {map[string]any{"tags": []pair{{"key": "k", "value": 5}}}, "tags"},
			"duplicate keys": {put("k", "1", "k", "2"), "tags[1].key"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("PUT", base, owner.Token, c.body)
				apitest.ExpectCode(t, r, 422, "VALIDATION_ERROR")
				if d := r.Error().Details; len(d) == 0 || !strings.HasPrefix(d[0], c.field) {
					t.Fatalf("details %v, want %s", d, c.field)
				}
			})
		}
		apitest.ExpectCode(t, env.Do("PUT", "/api/v1/orgs/"+org.String()+"/sprint/"+projectID+"/tags", owner.Token, put("k", "v")), 422, "VALIDATION_ERROR")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/orgs/"+org.String()+"/label/"+projectID+"/tags", owner.Token, nil), 422, "VALIDATION_ERROR")
	})

	t.Run("400 malformed", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("PUT", base, owner.Token, `{"tags":[`), 400, "BAD_REQUEST")
	})

	t.Run("401", func(t *testing.T) {
		env.Do("PUT", base, "", put("k", "v")).Expect(t, 401)
		env.Do("GET", base, "", nil).Expect(t, 401)
		env.Do("DELETE", base+"/env", "", nil).Expect(t, 401)
	})

	t.Run("tags of a deleted project are gone with it", func(t *testing.T) {
		env.Do("DELETE", "/api/v1/projects/"+projectID+"?cascade=true", owner.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("GET", base, owner.Token, nil), 404, "not_found")
	})
}
