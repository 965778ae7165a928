package views_test

import (
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/tickets"
	"tracker/api/views"
	"tracker/domain/search"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/domain/view"
)

// TestViewKeepsDueAndEstimate: a saved view keeps a due:/estimate: query
// and the due sort, and runs them.
func TestViewKeepsDueAndEstimate(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock)), views.New(view.New(e.DB, e.Clock))}
	}})
	env, owner := w.Env, w.Owner
	project := testfactory.Project(t, env.DB, owner.OrgID, testfactory.ProjectOpts{Key: "DUE", Name: "Due"}).ID
	for _, tk := range []map[string]any{{"title": "late", "due_date": "2026-01-10", "estimate": 5}, {"title": "early", "due_date": "2026-01-02", "estimate": 8},
		{"title": "small", "due_date": "2026-01-01", "estimate": 1}, {"title": "none", "estimate": 9}} {
		env.Do("POST", "/api/v1/projects/"+project.String()+"/tickets", owner.Token, tk).Expect(t, 201)
	}
	var v view.View
	env.Do("POST", "/api/v1/orgs/"+owner.OrgID.String()+"/views", owner.Token, map[string]any{"name": "Big by due",
		"q": "estimate:>=5", "sort": "due"}).Expect(t, 201).Decode(t, &v)
	if v.Q != "estimate:>=5" || v.Sort == nil || *v.Sort != "due-asc" {
		t.Fatalf("%+v", v)
	}
	var tp ticketPage
	env.Do("GET", "/api/v1/views/"+v.ID.String()+"/tickets", owner.Token, nil).Expect(t, 200).Decode(t, &tp)
	if len(tp.Items) != 3 || tp.Items[0].Title != "early" || tp.Items[1].Title != "late" || tp.Items[2].Title != "none" {
		t.Fatalf("%+v", tp)
	}
}
