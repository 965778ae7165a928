package projects_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
)

func TestDeleteProject(t *testing.T) {
	t.Parallel()
	g := apitest.NewProjectsOrg(t)
	env, owner, admin, member, viewer, outsider := g.Env, g.Owner, g.Admin, g.Member, g.Viewer, g.Outsider
	org := owner.OrgID

	t.Run("204 without dependents: gone for real, with its members and tags", func(t *testing.T) {
		p := createProject(t, env, owner.Token, org, "EMPTY")
		id := pid(t, p)
		env.Do("POST", "/api/v1/projects/"+id+"/members", owner.Token, map[string]any{"user_id": member.ID}).Expect(t, 201)
		testfactory.Tag(t, env.DB, org, testfactory.TagOpts{EntityType: "project", EntityID: uuid.MustParse(id)})
		env.Do("DELETE", "/api/v1/projects/"+id, admin.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/"+id, owner.Token, nil), 404, "not_found")
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM projects WHERE id = $1`, id); n != 0 {
			t.Fatal("project row kept")
		}
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM entity_tags WHERE entity_id = $1`, id); n != 0 {
			t.Fatal("tags kept")
		}
		if n := auditCount(t, env, id, "deleted"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}
		// The key is free again.
		createProject(t, env, owner.Token, org, "EMPTY")
	})

	p := createProject(t, env, owner.Token, org, "FULL")
	id := pid(t, p)
	path := "/api/v1/projects/" + id
	prow := projectdb.Row{ID: uuid.MustParse(id), OrgID: owner.OrgID}
	t1 := testfactory.Ticket(t, env.DB, prow, owner.ID, testfactory.TicketOpts{})
	testfactory.Ticket(t, env.DB, prow, owner.ID, testfactory.TicketOpts{})
	gone := testfactory.Ticket(t, env.DB, prow, owner.ID, testfactory.TicketOpts{})
	testfactory.Comment(t, env.DB, t1, owner.ID, testfactory.CommentOpts{})
	testfactory.Comment(t, env.DB, t1, owner.ID, testfactory.CommentOpts{})
	testfactory.Comment(t, env.DB, gone, owner.ID, testfactory.CommentOpts{})
	testfactory.Sprint(t, env.DB, prow, testfactory.SprintOpts{})
	// A soft-deleted ticket (and its comment) is not a live dependent.
	env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone.ID)

	t.Run("200 dry run counts live dependents and changes nothing", func(t *testing.T) {
		for _, q := range []string{"?cascade=true&dry_run=true", "?dry_run=true"} {
			var res struct {
				ProjectID  string `json:"project_id"`
				Dependents struct {
					Tickets, Sprints, Comments *int
				} `json:"dependents"`
			}
			env.Do("DELETE", path+q, admin.Token, nil).Expect(t, 200).Decode(t, &res)
			d := res.Dependents
			if res.ProjectID != id || d.Tickets == nil || *d.Tickets != 2 || *d.Sprints != 1 || *d.Comments != 2 {
				t.Fatalf("dry run %+v", res)
			}
		}
		env.Do("GET", path, owner.Token, nil).Expect(t, 200)
	})

	t.Run("409 dependents without cascade", func(t *testing.T) {
		r := env.Do("DELETE", path, admin.Token, nil)
		apitest.ExpectCode(t, r, 409, "CONFLICT")
		d := r.Error().Details
		if len(d) != 3 || d[0] != "tickets: 2" || d[1] != "sprints: 1" || d[2] != "comments: 2" {
			t.Fatalf("details %v", d)
		}
		// Sprints alone block too.
		s := createProject(t, env, owner.Token, org, "SPR")
		testfactory.Sprint(t, env.DB, projectdb.Row{ID: uuid.MustParse(pid(t, s)), OrgID: owner.OrgID}, testfactory.SprintOpts{})
		r = env.Do("DELETE", "/api/v1/projects/"+pid(t, s)+"?cascade=false", admin.Token, nil)
		apitest.ExpectCode(t, r, 409, "CONFLICT")
		if d := r.Error().Details; len(d) != 1 || d[0] != "sprints: 1" {
			t.Fatalf("details %v", d)
		}
		env.Do("GET", path, owner.Token, nil).Expect(t, 200)
	})

	t.Run("403 below Admin", func(t *testing.T) {
		for name, token := range map[string]string{
			"member": member.Token, "viewer": viewer.Token, "write key": env.APIKey(owner, []string{"write"}),
			"read key": env.APIKey(owner, []string{"read"}),
		} {
			t.Run(name, func(t *testing.T) {
				apitest.ExpectCode(t, env.Do("DELETE", path+"?cascade=true", token, nil), 403, "FORBIDDEN")
			})
		}
		apitest.ExpectCode(t, env.Do("DELETE", path+"?dry_run=true", member.Token, nil), 403, "FORBIDDEN")
	})
	t.Run("404", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("DELETE", path+"?cascade=true", outsider.Token, nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("DELETE", "/api/v1/projects/"+uuid.NewString(), owner.Token, nil), 404, "not_found")
	})
	t.Run("422 bad flag", func(t *testing.T) {
		apitest.ExpectCode(t, env.Do("DELETE", path+"?cascade=maybe", owner.Token, nil), 422, "VALIDATION_ERROR")
	})
	t.Run("401", func(t *testing.T) { env.Do("DELETE", path, "", nil).Expect(t, 401) })

	t.Run("204 cascade hides the project at once and schedules the purge", func(t *testing.T) {
		env.Do("DELETE", path+"?cascade=true", owner.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("GET", path, owner.Token, nil), 404, "not_found")
		if !apitest.Scalar[bool](t, env, `SELECT deleted_at IS NOT NULL FROM projects WHERE id = $1`, id) {
			t.Fatal("deleted_at not set")
		}
		raw := apitest.Scalar[[]byte](t, env, `SELECT payload FROM outbox WHERE topic = 'job.cascade_delete' AND payload->>'entity_id' = $1`, id)
		var job map[string]any
		_ = json.Unmarshal(raw, &job)
		if job["entity_type"] != "project" || job["org_id"] != org.String() {
			t.Fatalf("job %s", raw)
		}
		if n := auditCount(t, env, id, "deleted"); n != 1 {
			t.Fatalf("audit rows %d", n)
		}
		// Deleted is deleted: a second delete is a 404, the key is free.
		apitest.ExpectCode(t, env.Do("DELETE", path+"?cascade=true", owner.Token, nil), 404, "not_found")
		createProject(t, env, owner.Token, org, "FULL")
	})

	t.Run("204 only soft-deleted rows left: hidden and purged later", func(t *testing.T) {
		p := createProject(t, env, owner.Token, org, "TOMB")
		id := pid(t, p)
		tk := testfactory.Ticket(t, env.DB, projectdb.Row{ID: uuid.MustParse(id)}, owner.ID, testfactory.TicketOpts{}).ID
		env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, tk)
		env.Do("DELETE", "/api/v1/projects/"+id, owner.Token, nil).Expect(t, 204)
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/projects/"+id, owner.Token, nil), 404, "not_found")
		if !apitest.Scalar[bool](t, env, `SELECT deleted_at IS NOT NULL FROM projects WHERE id = $1`, id) {
			t.Fatal("project not soft-deleted")
		}
		if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM outbox WHERE topic = 'job.cascade_delete' AND payload->>'entity_id' = $1`, id); n != 1 {
			t.Fatalf("cascade jobs %d", n)
		}
	})
}
