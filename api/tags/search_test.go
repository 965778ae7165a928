package tags_test

import (
	"strings"
	"testing"
	"tracker/api/apitest"
	"tracker/domain/testfactory"

	"github.com/google/uuid"
)

func TestSearchTags(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner, viewer, reporter, outsider := g.Env, g.Owner, g.Viewer, g.Reporter, g.Outsider
	org := owner.OrgID
	orgPath := "/api/v1/orgs/" + org.String()
	search := orgPath + "/tags/search?key=env&value=prod"

	p1 := createProject(t, env, owner.Token, org, "P1")
	p2 := createProject(t, env, owner.Token, org, "P2")
	t1 := insertTicket(t, env, p1, owner.ID)
	t2 := insertTicket(t, env, p2, owner.ID)
	team := testfactory.Team(t, env.DB, org, testfactory.TeamOpts{}).ID
	// Five matches: two projects, two tickets, one team; plus near misses.
	entities := []string{"/project/" + p1, "/project/" + p2, "/ticket/" + t1.String(), "/ticket/" + t2.String(), "/team/" + team.String()}
	var ids []string
	for _, e := range entities {
		var got []map[string]any
		env.Do("PUT", orgPath+e+"/tags", owner.Token, put("env", "prod", "tier", "1")).Expect(t, 200).Decode(t, &got)
		ids = append(ids, got[0]["id"].(string))
	}
	env.Do("PUT", orgPath+"/user/"+viewer.ID.String()+"/tags", owner.Token, put("env", "Prod")).Expect(t, 200)
	env.Do("PUT", "/api/v1/orgs/"+outsider.OrgID.String()+"/project/"+createProject(t, env, outsider.Token, outsider.OrgID, "X")+"/tags",
		outsider.Token, put("env", "prod")).Expect(t, 200)

	t.Run("200 pagination walk returns every match once, in order", func(t *testing.T) {
		got := env.Walk(search, viewer.Token)
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Fatalf("walk %v, want %v", got, ids)
		}
		m := env.Do("GET", search, viewer.Token, nil).Expect(t, 200).Map(t)
		items := m["items"].([]any)
		if len(items) != 5 || m["has_more"] != false {
			t.Fatalf("page %v", m)
		}
		it := items[0].(map[string]any)
		if it["key"] != "env" || it["value"] != "prod" || it["entity_type"] != "project" {
			t.Fatalf("item %v", it)
		}
	})
	t.Run("200 empty value is a value", func(t *testing.T) {
		env.Do("PUT", orgPath+"/team/"+team.String()+"/tags", owner.Token, put("note", "")).Expect(t, 200)
		m := env.Do("GET", orgPath+"/tags/search?key=note&value=", owner.Token, nil).Expect(t, 200).Map(t)
		if len(m["items"].([]any)) != 1 {
			t.Fatalf("page %v", m)
		}
	})
	t.Run("200 reporter sees project-scoped tags of assigned projects only", func(t *testing.T) {
		got := env.Walk(search, reporter.Token)
		if len(got) != 1 || got[0] != ids[4] { // only the team's
			t.Fatalf("reporter sees %v", got)
		}
		env.Do("POST", "/api/v1/projects/"+p2+"/members", owner.Token, map[string]any{"user_id": reporter.ID}).Expect(t, 201)
		got = env.Walk(search, reporter.Token)
		if strings.Join(got, ",") != strings.Join([]string{ids[1], ids[3], ids[4]}, ",") {
			t.Fatalf("assigned reporter sees %v", got)
		}
	})
	t.Run("200 project-restricted key sees its projects' tags, no org-level ones", func(t *testing.T) {
		key := env.APIKey(owner, []string{"read"}, uuid.MustParse(p1))
		got := env.Walk(search, key)
		if strings.Join(got, ",") != strings.Join([]string{ids[0], ids[2]}, ",") { // not the team's
			t.Fatalf("key sees %v", got)
		}
	})
	t.Run("200 tags of deleted entities are left out", func(t *testing.T) {
		env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, t1)
		env.Do("DELETE", "/api/v1/projects/"+p2+"?cascade=true", owner.Token, nil).Expect(t, 204)
		got := env.Walk(search, owner.Token)
		if strings.Join(got, ",") != strings.Join([]string{ids[0], ids[4]}, ",") {
			t.Fatalf("after deletes %v", got)
		}
	})
	t.Run("404 non-member", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("GET", search, outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/orgs/x/tags/search?key=a&value=b", owner.Token, nil), 404, "not_found")
	})
	t.Run("422", func(t *testing.T) {
		for _, q := range []string{"?value=prod", "?key=env", "", "?key=&value=x", "?key=env&value=prod&limit=0", "?key=env&value=prod&cursor=bad"} {
			apitest.ExpectCode(t, env.Do("GET", orgPath+"/tags/search"+q, owner.Token, nil), 422, "VALIDATION_ERROR")
		}
	})
	t.Run("401", func(t *testing.T) { env.Do("GET", search, "", nil).Expect(t, 401) })
}

// Every tag route: a non-member gets 404, a Viewer 403 on writes.
func TestTagAccessEveryRoute(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner := g.Env, g.Owner
	orgPath := "/api/v1/orgs/" + owner.OrgID.String()
	p := createProject(t, env, owner.Token, owner.OrgID, "ACC")
	base := orgPath + "/project/" + p + "/tags"
	env.Do("PUT", base, owner.Token, put("k", "v")).Expect(t, 200)
	g.CheckAccess(t, []apitest.Route{
		{Method: "PUT", Path: base, Body: put("k", "w"), Write: true},
		{Method: "GET", Path: base},
		{Method: "DELETE", Path: base + "/k", Write: true},
		{Method: "GET", Path: orgPath + "/tags/search?key=k&value=v"},
	})
}
