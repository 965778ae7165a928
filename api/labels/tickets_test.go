package labels_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/store/sprintdb/worktest"
)

func TestTicketLabels(t *testing.T) {
	t.Parallel()
	w := setup(t)
	bug, ui, api := w.label(t, "bug"), w.label(t, "UI"), w.label(t, "api")
	path := "/api/v1/tickets/" + w.ticket.String() + "/labels"

	t.Run("200 replace, by name", func(t *testing.T) {
		r := w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []string{ui, bug, bug}}).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "bug,UI" {
			t.Fatalf("labels %s", got)
		}
		r = w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []string{api, ui}}).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "api,UI" {
			t.Fatalf("labels %s", got)
		}
		if got := strings.Join(names(t, w.env.Do("GET", path, w.viewer.Token, nil).Expect(t, 200)), ","); got != "api,UI" {
			t.Fatalf("get %s", got)
		}
		audit := worktest.Audit(t, w.env.DB, "ticket", w.ticket)
		last := audit[len(audit)-1]
		if last.Action != "updated" || last.Changes[0].Field != "labels" || len(last.Changes[0].Old.([]any)) != 2 || len(last.Changes[0].New.([]any)) != 2 {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("200 add is idempotent, 204 remove, 404 when not linked", func(t *testing.T) {
		before := len(worktest.Audit(t, w.env.DB, "ticket", w.ticket))
		r := w.env.Do("POST", path+"/"+bug, w.member.Token, nil).Expect(t, 200)
		if got := strings.Join(names(t, r), ","); got != "api,bug,UI" {
			t.Fatalf("labels %s", got)
		}
		w.env.Do("POST", path+"/"+bug, w.member.Token, nil).Expect(t, 200)
		if after := len(worktest.Audit(t, w.env.DB, "ticket", w.ticket)); after != before+1 {
			t.Fatalf("audit rows %d → %d", before, after)
		}
		w.env.Do("DELETE", path+"/"+bug, w.member.Token, nil).Expect(t, 204)
		w.env.Do("DELETE", path+"/"+bug, w.member.Token, nil).Expect(t, 404)
		if got := strings.Join(names(t, w.env.Do("GET", path, w.member.Token, nil).Expect(t, 200)), ","); got != "api,UI" {
			t.Fatalf("labels %s", got)
		}
	})

	t.Run("200 replace with [] clears", func(t *testing.T) {
		r := w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []string{}}).Expect(t, 200)
		if string(r.Body) != "[]" {
			t.Fatalf("body %s", r.Body)
		}
	})

	t.Run("422", func(t *testing.T) {
		foreign := w.env.Do("POST", "/api/v1/orgs/"+w.outside.OrgID.String()+"/labels", w.outside.Token,
			map[string]any{"name": "theirs", "color": "#111"}).Expect(t, 201).Map(t)["id"]
		w.env.Do("POST", path, w.member.Token, map[string]any{}).Expect(t, 422)
		w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []any{foreign}}).Expect(t, 422)
		w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []any{uuid.NewString()}}).Expect(t, 422)
		w.env.Do("POST", path, w.member.Token, map[string]any{"label_ids": []any{"nope"}}).Expect(t, 422)
	})

	t.Run("403 below Member on the project", func(t *testing.T) {
		for _, u := range []string{w.viewer.Token, w.reporter.Token} {
			w.env.Do("POST", path, u, map[string]any{"label_ids": []string{bug}}).Expect(t, 403)
			w.env.Do("POST", path+"/"+bug, u, nil).Expect(t, 403)
			w.env.Do("DELETE", path+"/"+api, u, nil).Expect(t, 403)
		}
	})

	t.Run("404", func(t *testing.T) {
		w.env.Do("GET", path, w.outside.Token, nil).Expect(t, 404)
		w.env.Do("POST", path+"/"+uuid.NewString(), w.member.Token, nil).Expect(t, 404)
		w.env.Do("GET", "/api/v1/tickets/"+uuid.NewString()+"/labels", w.member.Token, nil).Expect(t, 404)
	})
}

func TestBatchAssignLabel(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.label(t, "batch")
	path := "/api/v1/labels/" + id + "/batch-assign"
	t2 := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
	t3 := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})

	t.Run("200 counts new links; idempotent", func(t *testing.T) {
		w.env.Do("POST", "/api/v1/tickets/"+t3.String()+"/labels/"+id, w.member.Token, nil).Expect(t, 200)
		r := w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": []any{w.ticket, t2, t3, t2}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(2) {
			t.Fatalf("assigned %v", r)
		}
		r = w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": []any{w.ticket, t2, t3}}).Expect(t, 200).Map(t)
		if r["assigned"] != float64(0) {
			t.Fatalf("assigned %v", r)
		}
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM ticket_labels WHERE label_id = $1`, id); n != 3 {
			t.Fatalf("links %d", n)
		}
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM audit_log WHERE entity_type = 'ticket' AND entity_id = $1 AND changes @> '[{"field":"labels"}]'`, t2); n != 1 {
			t.Fatalf("audit rows for t2: %d", n)
		}
	})

	t.Run("422", func(t *testing.T) {
		otherProject := worktest.NewProject(t, w.env.DB, w.outside.OrgID, "OUT")
		foreign := worktest.NewTicket(t, w.env.DB, otherProject, w.outside.ID, worktest.Ticket{})
		gone := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
		worktest.Exec(t, w.env.DB, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		for name, ids := range map[string][]any{
			"other org": {w.ticket, foreign},
			"deleted":   {gone},
			"unknown":   {uuid.NewString()},
			"empty":     {},
		} {
			t.Run(name, func(t *testing.T) {
				w.env.Do("POST", path, w.member.Token, map[string]any{"ticket_ids": ids}).Expect(t, 422)
			})
		}
		w.env.Do("POST", path, w.member.Token, map[string]any{}).Expect(t, 422)
		if n := worktest.Count(t, w.env.DB, `SELECT count(*) FROM ticket_labels WHERE ticket_id = $1`, foreign); n != 0 {
			t.Fatal("foreign ticket linked")
		}
	})

	t.Run("403", func(t *testing.T) {
		w.env.Do("POST", path, w.viewer.Token, map[string]any{"ticket_ids": []any{w.ticket}}).Expect(t, 403)
		elsewhere := worktest.NewProject(t, w.env.DB, w.owner.OrgID, "ELS")
		key := w.env.APIKey(w.owner, []string{"write"}, elsewhere.ID)
		w.env.Do("POST", path, key, map[string]any{"ticket_ids": []any{w.ticket}}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.env.Do("POST", path, w.outside.Token, map[string]any{"ticket_ids": []any{w.ticket}}).Expect(t, 404)
		w.env.Do("POST", "/api/v1/labels/"+uuid.NewString()+"/batch-assign", w.member.Token, map[string]any{"ticket_ids": []any{w.ticket}}).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every label route: a non-member learns nothing
// (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.label(t, "x")
	lp := "/api/v1/labels/" + id
	tp := "/api/v1/tickets/" + w.ticket.String() + "/labels"
	w.env.Do("POST", tp+"/"+id, w.member.Token, nil).Expect(t, 200)
	routes := []struct {
		method, path string
		body         any
		write        bool
	}{
		{"POST", "/api/v1/orgs/" + w.owner.OrgID.String() + "/labels", map[string]any{"name": "y", "color": "#fff"}, true},
		{"GET", "/api/v1/orgs/" + w.owner.OrgID.String() + "/labels", nil, false},
		{"GET", lp, nil, false},
		{"PATCH", lp, map[string]any{"name": "z"}, true},
		{"DELETE", lp, nil, true},
		{"POST", lp + "/batch-assign", map[string]any{"ticket_ids": []any{w.ticket}}, true},
		{"POST", tp, map[string]any{"label_ids": []any{id}}, true},
		{"GET", tp, nil, false},
		{"POST", tp + "/" + id, nil, true},
		{"DELETE", tp + "/" + id, nil, true},
	}
	for _, r := range routes {
		w.env.Do(r.method, r.path, w.outside.Token, r.body).Expect(t, 404)
		if r.write {
			w.env.Do(r.method, r.path, w.viewer.Token, r.body).Expect(t, 403)
		} else {
			w.env.Do(r.method, r.path, w.viewer.Token, nil).Expect(t, 200)
		}
	}
}
