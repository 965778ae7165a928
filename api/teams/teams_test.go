package teams_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	capexapi "tracker/api/capex"
	"tracker/api/projects"
	"tracker/api/tags"
	"tracker/api/teams"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/project"
	"tracker/domain/tag"
	"tracker/domain/team"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
)

// newOrg is the app with the teams, projects, tags and reports modules and
// the org of every role (apitest.Org) in it.
func newOrg(t *testing.T) apitest.Org {
	t.Helper()
	return apitest.NewOrg(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{
			teams.New(team.New(e.DB, domain.SystemClock{})),
			projects.New(project.New(e.DB, e.Clock)),
			tags.New(tag.New(e.DB, e.Clock)),
			capexapi.New(capex.New(e.DB, e.Clock)),
		}
	}})
}

func createTeam(t *testing.T, env *apitest.Env, u apitest.User, org uuid.UUID, name string) string {
	t.Helper()
	return env.Do("POST", "/api/v1/orgs/"+org.String()+"/teams", u.Token, map[string]any{"name": name}).Expect(t, 201).Map(t)["id"].(string)
}

func TestTeamCRUD(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner, admin, member, viewer, outsider := g.Env, g.Owner, g.Admin, g.Member, g.Viewer, g.Outsider
	org := owner.OrgID.String()

	id := createTeam(t, env, admin, owner.OrgID, "Platform")
	createTeam(t, env, admin, owner.OrgID, "Infra")
	if r := env.Do("POST", "/api/v1/orgs/"+org+"/teams", admin.Token, map[string]any{"name": "PLATFORM"}); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
		t.Fatalf("duplicate name ignoring case: %d %s", r.Status, r.Body)
	}
	// Another org may use the same name.
	createTeam(t, env, outsider, outsider.OrgID, "Platform")
	for name, body := range map[string]any{"blank": map[string]any{"name": "  "}, "missing": map[string]any{}} {
		if r := env.Do("POST", "/api/v1/orgs/"+org+"/teams", admin.Token, body); r.Status != 422 {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	r := env.Do("POST", "/api/v1/orgs/"+org+"/teams", member.Token, map[string]any{"name": "X"})
	if r.Status != 403 || r.Error().Message != "this operation requires the Admin role" {
		t.Fatalf("member create: %d %s", r.Status, r.Body)
	}
	env.Do("POST", "/api/v1/orgs/"+org+"/teams", outsider.Token, map[string]any{"name": "X"}).Expect(t, 404)

	var list struct {
		Items   []team.Team `json:"items"`
		HasMore bool        `json:"has_more"`
	}
	env.Do("GET", "/api/v1/orgs/"+org+"/teams?limit=1", viewer.Token, nil).Expect(t, 200).Decode(t, &list)
	if len(list.Items) != 1 || !list.HasMore || list.Items[0].Name != "Platform" {
		t.Fatalf("page: %+v", list)
	}
	env.Do("GET", "/api/v1/orgs/"+org+"/teams", outsider.Token, nil).Expect(t, 404)
	got := env.Do("GET", "/api/v1/teams/"+id, viewer.Token, nil).Expect(t, 200).Map(t)
	if got["name"] != "Platform" || got["org_id"] != org {
		t.Fatalf("get: %v", got)
	}
	env.Do("GET", "/api/v1/teams/"+id, outsider.Token, nil).Expect(t, 404)
	env.Do("GET", "/api/v1/teams/"+uuid.NewString(), owner.Token, nil).Expect(t, 404)

	env.Do("PATCH", "/api/v1/teams/"+id, member.Token, map[string]any{"name": "Y"}).Expect(t, 403)
	env.Do("PATCH", "/api/v1/teams/"+id, admin.Token, map[string]any{"name": "infra"}).Expect(t, 409)
	if n := env.Do("PATCH", "/api/v1/teams/"+id, admin.Token, map[string]any{"name": "Core Platform"}).Expect(t, 200).Map(t)["name"]; n != "Core Platform" {
		t.Fatalf("rename: %v", n)
	}
	if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM audit_log WHERE entity_type = 'team' AND entity_id = $1`, id); n != 2 {
		t.Fatalf("audit rows %d", n)
	}
}

func TestTeamMembers(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner, admin, member, outsider := g.Env, g.Owner, g.Admin, g.Member, g.Outsider
	id := createTeam(t, env, admin, owner.OrgID, "Platform")
	path := "/api/v1/teams/" + id + "/members/"

	env.Do("PUT", path+member.ID.String(), admin.Token, nil).Expect(t, 201)
	env.Do("PUT", path+member.ID.String(), admin.Token, nil).Expect(t, 200)
	env.Do("PUT", path+owner.ID.String(), admin.Token, nil).Expect(t, 201)
	if r := env.Do("PUT", path+outsider.ID.String(), admin.Token, nil); r.Status != 422 {
		t.Fatalf("non-member added: %d %s", r.Status, r.Body)
	}
	env.Do("PUT", path+admin.ID.String(), member.Token, nil).Expect(t, 403)
	env.Do("PUT", path+admin.ID.String(), outsider.Token, nil).Expect(t, 404)

	var page struct {
		Items      []team.Member `json:"items"`
		NextCursor *string       `json:"next_cursor"`
	}
	env.Do("GET", "/api/v1/teams/"+id+"/members?limit=1", member.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 || page.NextCursor == nil {
		t.Fatalf("page 1: %+v", page)
	}
	var page2 struct{ Items []team.Member }
	env.Do("GET", "/api/v1/teams/"+id+"/members?limit=1&cursor="+*page.NextCursor, member.Token, nil).Expect(t, 200).Decode(t, &page2)
	if len(page2.Items) != 1 || page2.Items[0].UserID == page.Items[0].UserID {
		t.Fatalf("page 2: %+v", page2)
	}
	env.Do("GET", "/api/v1/teams/"+id+"/members", outsider.Token, nil).Expect(t, 404)

	env.Do("DELETE", path+member.ID.String(), member.Token, nil).Expect(t, 403)
	env.Do("DELETE", path+member.ID.String(), admin.Token, nil).Expect(t, 204)
	env.Do("DELETE", path+member.ID.String(), admin.Token, nil).Expect(t, 404)
	if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM team_members WHERE team_id = $1`, id); n != 1 {
		t.Fatalf("left %d", n)
	}
}

// TestTeamsEndToEnd: a team made through the API is set on projects at
// create and PATCH, and capitalization groups, filters and tag-filters by
// it; deleting the team keeps the projects with team_id null.
func TestTeamsEndToEnd(t *testing.T) {
	t.Parallel()
	g := newOrg(t)
	env, owner, member := g.Env, g.Owner, g.Member
	org := owner.OrgID
	platform := createTeam(t, env, owner, org, "Platform")
	infra := createTeam(t, env, owner, org, "Infra")
	core := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "CORE", "name": "Core", "team_id": platform}).
		Expect(t, 201).Map(t)
	if core["team_id"] != platform {
		t.Fatalf("create: %v", core)
	}
	ops := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "OPS", "name": "Ops"}).Expect(t, 201).Map(t)
	if p := env.Do("PATCH", "/api/v1/projects/"+ops["id"].(string), owner.Token, map[string]any{"team_id": infra}).Expect(t, 200).Map(t); p["team_id"] != infra {
		t.Fatalf("patch: %v", p)
	}
	lone := env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": org, "key": "LONE", "name": "Lone"}).Expect(t, 201).Map(t)
	// Approved entries at 60.00/h: CORE 2h, OPS 1h, LONE 0.5h.
	testfactory.LaborRate(t, env.DB, org, owner.ID, testfactory.LaborRateOpts{Cents: 6000, EffectiveDate: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	for _, e := range []struct {
		project string
		minutes int
	}{{core["id"].(string), 120}, {ops["id"].(string), 60}, {lone["id"].(string), 30}} {
		ticket := testfactory.Ticket(t, env.DB, projectdb.Row{ID: uuid.MustParse(e.project)}, owner.ID, testfactory.TicketOpts{})
		testfactory.TimeEntry(t, env.DB, ticket, owner.ID, testfactory.TimeEntryOpts{Date: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
			Minutes: e.minutes, Activity: "Coding", Status: "Approved", ApprovedBy: &owner.ID})
	}
	var byTeam struct {
		Teams []struct {
			TeamID     *string `json:"team_id"`
			TeamName   *string `json:"team_name"`
			TotalCents int64   `json:"total_amount_cents"`
		} `json:"teams"`
	}
	env.Do("GET", "/api/v1/reports/capitalization?period=2026-03&group_by=team", owner.Token, nil).Expect(t, 200).Decode(t, &byTeam)
	got := map[string]int64{}
	for _, tm := range byTeam.Teams {
		name := "<none>"
		if tm.TeamName != nil {
			name = *tm.TeamName
		}
		got[name] = tm.TotalCents
	}
	if len(got) != 3 || got["Platform"] != 12000 || got["Infra"] != 6000 || got["<none>"] != 3000 {
		t.Fatalf("group_by=team: %+v", byTeam)
	}
	projectsOf := func(query string) []string {
		var rep struct {
			Projects []struct {
				Key string `json:"project_key"`
			} `json:"projects"`
		}
		env.Do("GET", "/api/v1/reports/capitalization?period=2026-03&"+query, owner.Token, nil).Expect(t, 200).Decode(t, &rep)
		var keys []string
		for _, p := range rep.Projects {
			keys = append(keys, p.Key)
		}
		return keys
	}
	if k := projectsOf("team_id=" + infra); len(k) != 1 || k[0] != "OPS" {
		t.Fatalf("team_id filter: %v", k)
	}
	env.Do("PUT", "/api/v1/orgs/"+org.String()+"/team/"+platform+"/tags", owner.Token,
		map[string]any{"tags": []map[string]string{{"key": "unit", "value": "product"}}}).Expect(t, 200)
	if k := projectsOf("tag=unit:product"); len(k) != 1 || k[0] != "CORE" {
		t.Fatalf("team tag filter: %v", k)
	}

	// Delete: a dry run lists the projects; the delete keeps them.
	var preview struct {
		Dependents struct{ Projects int }
		Projects   []struct{ Key string }
	}
	env.Do("DELETE", "/api/v1/teams/"+platform+"?dry_run=true", owner.Token, nil).Expect(t, 200).Decode(t, &preview)
	if preview.Dependents.Projects != 1 || preview.Projects[0].Key != "CORE" {
		t.Fatalf("dry run: %+v", preview)
	}
	env.Do("DELETE", "/api/v1/teams/"+platform, member.Token, nil).Expect(t, 403)
	env.Do("DELETE", "/api/v1/teams/"+platform, owner.Token, nil).Expect(t, 204)
	env.Do("GET", "/api/v1/teams/"+platform, owner.Token, nil).Expect(t, 404)
	p := env.Do("GET", "/api/v1/projects/"+core["id"].(string), owner.Token, nil).Expect(t, 200).Map(t)
	if p["team_id"] != nil {
		t.Fatalf("project keeps team: %v", p)
	}
	if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM entity_tags WHERE entity_id = $1`, platform); n != 0 {
		t.Fatalf("team tags left: %d", n)
	}
}
