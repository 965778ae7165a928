package labels_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain"
	"tracker/domain/testfactory"
)

func TestCreateLabel(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/labels"

	t.Run("201", func(t *testing.T) {
		for _, color := range []string{"#fff", "#ABCD", "#a1b2c3"} {
			l := w.Env.Do("POST", path, w.Member.Token, map[string]any{"name": "c" + color, "color": color}).Expect(t, 201).Map(t)
			if l["color"] != color || l["org_id"] != w.Owner.OrgID.String() || l["name"] != "c"+color || l["id"] == nil ||
				l["created_at"] == nil || l["updated_at"] == nil {
				t.Fatalf("label %v", l)
			}
		}
	})

	t.Run("409 name taken, case-insensitive", func(t *testing.T) {
		w.label(t, "Bug")
		r := w.Env.Do("POST", path, w.Admin.Token, map[string]any{"name": "bUG", "color": "#000"}).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatal(r.ErrorCode())
		}
		// Another org may use the name.
		w.Env.Do("POST", "/api/v1/orgs/"+w.Outsider.OrgID.String()+"/labels", w.Outsider.Token,
			map[string]any{"name": "Bug", "color": "#000"}).Expect(t, 201)
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no name":         {"color": "#fff"},
			"blank name":      {"name": " ", "color": "#fff"},
			"no color":        {"name": "x"},
			"not hex":         {"name": "x", "color": "#ggg"},
			"no hash":         {"name": "x", "color": "ffff"},
			"five hex digits": {"name": "x", "color": "#fffff"},
			"too long":        {"name": "x", "color": "#a1b2c3d"},
			"too short":       {"name": "x", "color": "#ff"},
		} {
			t.Run(name, func(t *testing.T) {
				if r := w.Env.Do("POST", path, w.Member.Token, body).Expect(t, 422); r.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatal(r.ErrorCode())
				}
			})
		}
	})

	t.Run("403 below Member", func(t *testing.T) {
		for _, u := range []string{w.Viewer.Token, w.Reporter.Token} {
			r := w.Env.Do("POST", path, u, map[string]any{"name": "x", "color": "#fff"}).Expect(t, 403)
			if !strings.Contains(r.Error().Message, "Member") {
				t.Fatal(r.Error().Message)
			}
		}
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("POST", path, w.Outsider.Token, map[string]any{"name": "x", "color": "#fff"}).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/orgs/"+uuid.NewString()+"/labels", w.Member.Token, map[string]any{"name": "x", "color": "#fff"}).Expect(t, 404)
	})
}

func TestListGetUpdateLabel(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/labels"
	a, b, c := w.label(t, "a"), w.label(t, "b"), w.label(t, "c")

	t.Run("200 list paginated", func(t *testing.T) {
		p1 := w.Env.Do("GET", path+"?limit=2", w.Viewer.Token, nil).Expect(t, 200).Map(t)
		items := p1["items"].([]any)
		if len(items) != 2 || items[0].(map[string]any)["id"] != a || items[1].(map[string]any)["id"] != b || p1["has_more"] != true {
			t.Fatalf("page 1 %v", p1)
		}
		p2 := w.Env.Do("GET", path+"?limit=2&cursor="+p1["next_cursor"].(string), w.Viewer.Token, nil).Expect(t, 200).Map(t)
		items = p2["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["id"] != c || p2["has_more"] != false || p2["next_cursor"] != nil {
			t.Fatalf("page 2 %v", p2)
		}
	})

	t.Run("200 get", func(t *testing.T) {
		if l := w.Env.Do("GET", "/api/v1/labels/"+a, w.Viewer.Token, nil).Expect(t, 200).Map(t); l["name"] != "a" {
			t.Fatalf("label %v", l)
		}
	})

	t.Run("200 patch", func(t *testing.T) {
		l := w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"color": "#000000"}).Expect(t, 200).Map(t)
		if l["name"] != "a" || l["color"] != "#000000" {
			t.Fatalf("label %v", l)
		}
		l = w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"name": "A2"}).Expect(t, 200).Map(t)
		if l["name"] != "A2" || l["color"] != "#000000" {
			t.Fatalf("label %v", l)
		}
		// Renaming to its own name in another case is not a conflict.
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"name": "a2"}).Expect(t, 200)
		audit := w.Env.Audit(t, "label", uuid.MustParse(a))
		if last := audit[len(audit)-1]; last.Action != "updated" || last.Changes[0].Field != "name" {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("409 rename onto another label", func(t *testing.T) {
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"name": "B"}).Expect(t, 409)
	})

	t.Run("422 patch", func(t *testing.T) {
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"name": nil}).Expect(t, 422)
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Member.Token, map[string]any{"color": "red"}).Expect(t, 422)
	})

	t.Run("403 patch below Member", func(t *testing.T) {
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Viewer.Token, map[string]any{"name": "v"}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("GET", path, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/labels/"+a, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("PATCH", "/api/v1/labels/"+a, w.Outsider.Token, map[string]any{"name": "o"}).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/labels/"+uuid.NewString(), w.Member.Token, nil).Expect(t, 404)
	})
}

func TestDeleteLabel(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("403 Member cannot delete", func(t *testing.T) {
		id := w.label(t, "keep")
		r := w.Env.Do("DELETE", "/api/v1/labels/"+id, w.Member.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatal(r.Error().Message)
		}
	})

	t.Run("204 without dependents deletes the row; the name is free again", func(t *testing.T) {
		id := w.label(t, "unused")
		// A link to a ticket that is already soft-deleted is not a dependent.
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		w.Env.Do("POST", "/api/v1/tickets/"+gone.String()+"/labels/"+id, w.Member.Token, nil).Expect(t, 200)
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		w.Env.Do("DELETE", "/api/v1/labels/"+id, w.Admin.Token, nil).Expect(t, 204)
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM labels WHERE id = $1`, id); n != 0 {
			t.Fatalf("%d rows left", n)
		}
		w.Env.Do("GET", "/api/v1/labels/"+id, w.Admin.Token, nil).Expect(t, 404)
		w.label(t, "unused")
	})

	t.Run("dry run, 409, cascade", func(t *testing.T) {
		id := w.label(t, "used")
		other := w.label(t, "other")
		t2 := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		w.Env.Do("POST", "/api/v1/labels/"+id+"/batch-assign", w.Member.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID, t2}}).Expect(t, 200)
		w.Env.Do("POST", "/api/v1/tickets/"+t2.String()+"/labels/"+other, w.Member.Token, nil).Expect(t, 200)

		dry := w.Env.Do("DELETE", "/api/v1/labels/"+id+"?cascade=true&dry_run=true", w.Admin.Token, nil).Expect(t, 200).Map(t)
		if dry["label_id"] != id || dry["dependents"].(map[string]any)["tickets"] != float64(2) {
			t.Fatalf("dry run %v", dry)
		}
		r := w.Env.Do("DELETE", "/api/v1/labels/"+id, w.Admin.Token, nil).Expect(t, 409)
		if e := r.Error(); e.Code != "CONFLICT" || !strings.Contains(e.Message, "label") || len(e.Details) != 1 || e.Details[0] != "tickets: 2" {
			t.Fatalf("error %+v", e)
		}
		w.Env.Do("GET", "/api/v1/labels/"+id, w.Admin.Token, nil).Expect(t, 200)

		w.Env.Do("DELETE", "/api/v1/labels/"+id+"?cascade=true", w.Admin.Token, nil).Expect(t, 204)
		w.Env.Do("GET", "/api/v1/labels/"+id, w.Admin.Token, nil).Expect(t, 404)
		if got := names(t, w.Env.Do("GET", "/api/v1/tickets/"+t2.String()+"/labels", w.Member.Token, nil).Expect(t, 200)); strings.Join(got, ",") != "other" {
			t.Fatalf("ticket labels %v", got)
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, id); n != 0 {
			t.Fatalf("%d links left", n)
		}
		jobs := w.Env.Outbox(t, w.Owner.OrgID, domain.TopicCascadeDelete)
		if len(jobs) != 1 || jobs[0]["entity_type"] != "label" || jobs[0]["entity_id"] != id {
			t.Fatalf("jobs %v", jobs)
		}
		audit := w.Env.Audit(t, "ticket", t2)
		if last := audit[len(audit)-1]; last.Changes[0].Field != "labels" || len(last.Changes[0].New.([]any)) != 1 {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("422 bad flag", func(t *testing.T) {
		id := w.label(t, "flag")
		w.Env.Do("DELETE", "/api/v1/labels/"+id+"?cascade=maybe", w.Admin.Token, nil).Expect(t, 422)
	})

	t.Run("404", func(t *testing.T) {
		id := w.label(t, "mine")
		w.Env.Do("DELETE", "/api/v1/labels/"+id, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("DELETE", "/api/v1/labels/"+uuid.NewString(), w.Admin.Token, nil).Expect(t, 404)
	})
}
