package labels_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
)

func TestTicketLabels(t *testing.T) {
	t.Parallel()
	w := setup(t)
	bug, ui, api := w.label(t, "bug"), w.label(t, "UI"), w.label(t, "api")
	path := "/api/v1/tickets/" + w.Ticket.ID.String() + "/labels"

	t.Run("200 replace, by name", func(t *testing.T) {
		r := w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []string{ui, bug, bug}}).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "bug,UI" {
			t.Fatalf("labels %s", got)
		}
		r = w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []string{api, ui}}).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "api,UI" {
			t.Fatalf("labels %s", got)
		}
		if got := strings.Join(names(t, w.Env.Do("GET", path, w.Viewer.Token, nil).Expect(t, 200)), ","); got != "api,UI" {
			t.Fatalf("get %s", got)
		}
		audit := w.Env.Audit(t, "ticket", w.Ticket.ID)
		last := audit[len(audit)-1]
		if last.Action != "updated" || last.Changes[0].Field != "labels" || len(last.Changes[0].Old.([]any)) != 2 || len(last.Changes[0].New.([]any)) != 2 {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("200 add is idempotent, 204 remove, 404 when not linked", func(t *testing.T) {
		before := len(w.Env.Audit(t, "ticket", w.Ticket.ID))
		r := w.Env.Do("POST", path+"/"+bug, w.Member.Token, nil).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "api,bug,UI" {
			t.Fatalf("labels %s", got)
		}
		w.Env.Do("POST", path+"/"+bug, w.Member.Token, nil).Expect(t, 200)
		if after := len(w.Env.Audit(t, "ticket", w.Ticket.ID)); after != before+1 {
			t.Fatalf("audit rows %d → %d", before, after)
		}
		w.Env.Do("DELETE", path+"/"+bug, w.Member.Token, nil).Expect(t, 204)
		w.Env.Do("DELETE", path+"/"+bug, w.Member.Token, nil).Expect(t, 404)
		if got := strings.Join(names(t, w.Env.Do("GET", path, w.Member.Token, nil).Expect(t, 200)), ","); got != "api,UI" {
			t.Fatalf("labels %s", got)
		}
	})

	t.Run("200 replace with [] clears", func(t *testing.T) {
		r := w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []string{}}).Expect(t, 200)
		if string(r.Body) != "[]" {
			t.Fatalf("body %s", r.Body)
		}
	})

	t.Run("422", func(t *testing.T) {
		foreign := w.Env.Do("POST", "/api/v1/orgs/"+w.Outsider.OrgID.String()+"/labels", w.Outsider.Token,
			map[string]any{"name": "theirs", "color": "#111"}).Expect(t, 201).Map(t)["id"]
		w.Env.Do("POST", path, w.Member.Token, map[string]any{}).Expect(t, 422)
		w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []any{foreign}}).Expect(t, 422)
		w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []any{uuid.NewString()}}).Expect(t, 422)
		w.Env.Do("POST", path, w.Member.Token, map[string]any{"label_ids": []any{"nope"}}).Expect(t, 422)
	})

	t.Run("403 below Member on the project", func(t *testing.T) {
		for _, u := range []string{w.Viewer.Token, w.Reporter.Token} {
			w.Env.Do("POST", path, u, map[string]any{"label_ids": []string{bug}}).Expect(t, 403)
			w.Env.Do("POST", path+"/"+bug, u, nil).Expect(t, 403)
			w.Env.Do("DELETE", path+"/"+api, u, nil).Expect(t, 403)
		}
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("GET", path, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("POST", path+"/"+uuid.NewString(), w.Member.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/tickets/"+uuid.NewString()+"/labels", w.Member.Token, nil).Expect(t, 404)
	})
}

func TestBatchAssignLabel(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.label(t, "batch")
	path := "/api/v1/labels/" + id + "/batch-assign"
	t2 := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
	t3 := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID

	t.Run("200 counts new links; idempotent", func(t *testing.T) {
		w.Env.Do("POST", "/api/v1/tickets/"+t3.String()+"/labels/"+id, w.Member.Token, nil).Expect(t, 200)
		r := w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID, t2, t3, t2}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(2) {
			t.Fatalf("assigned %v", r)
		}
		r = w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID, t2, t3}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(0) {
			t.Fatalf("assigned %v", r)
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, id); n != 3 {
			t.Fatalf("links %d", n)
		}
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM audit_log WHERE entity_type = 'ticket' AND entity_id = $1 AND changes @> '[{"field":"labels"}]'`, t2); n != 1 {
			t.Fatalf("audit rows for t2: %d", n)
		}
	})

	t.Run("422", func(t *testing.T) {
		otherProject := testfactory.Project(t, w.Env.DB, w.Outsider.OrgID, testfactory.ProjectOpts{Key: "OUT"})
		foreign := testfactory.Ticket(t, w.Env.DB, otherProject, w.Outsider.ID, testfactory.TicketOpts{}).ID
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		for name, ids := range map[string][]any{
			"other org": {w.Ticket.ID, foreign},
			"deleted":   {gone},
			"unknown":   {uuid.NewString()},
			"empty":     {},
		} {
			t.Run(name, func(t *testing.T) {
				w.Env.Do("POST", path, w.Member.Token, map[string]any{"ticket_ids": ids}).Expect(t, 422)
			})
		}
		w.Env.Do("POST", path, w.Member.Token, map[string]any{}).Expect(t, 422)
		if n := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM ticket_labels WHERE ticket_id = $1`, foreign); n != 0 {
			t.Fatal("foreign ticket linked")
		}
	})

	t.Run("403", func(t *testing.T) {
		w.Env.Do("POST", path, w.Viewer.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID}}).Expect(t, 403)
		elsewhere := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "ELS"})
		key := w.Env.APIKey(w.Owner, []string{"write"}, elsewhere.ID)
		w.Env.Do("POST", path, key, map[string]any{"ticket_ids": []any{w.Ticket.ID}}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("POST", path, w.Outsider.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID}}).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/labels/"+uuid.NewString()+"/batch-assign", w.Member.Token, map[string]any{"ticket_ids": []any{w.Ticket.ID}}).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every label route: a non-member learns nothing
// (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.label(t, "x")
	lp := "/api/v1/labels/" + id
	tp := "/api/v1/tickets/" + w.Ticket.ID.String() + "/labels"
	w.Env.Do("POST", tp+"/"+id, w.Member.Token, nil).Expect(t, 200)
	w.CheckAccess(t, []apitest.Route{
		{Method: "POST", Path: "/api/v1/orgs/" + w.Owner.OrgID.String() + "/labels", Body: map[string]any{"name": "y", "color": "#fff"}, Write: true},
		{Method: "GET", Path: "/api/v1/orgs/" + w.Owner.OrgID.String() + "/labels"},
		{Method: "GET", Path: lp},
		{Method: "PATCH", Path: lp, Body: map[string]any{"name": "z"}, Write: true},
		{Method: "DELETE", Path: lp, Write: true},
		{Method: "POST", Path: lp + "/batch-assign", Body: map[string]any{"ticket_ids": []any{w.Ticket.ID}}, Write: true},
		{Method: "POST", Path: tp, Body: map[string]any{"label_ids": []any{id}}, Write: true},
		{Method: "GET", Path: tp},
		{Method: "POST", Path: tp + "/" + id, Write: true},
		{Method: "DELETE", Path: tp + "/" + id, Write: true},
	})
}
