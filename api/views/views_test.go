package views_test

import (
	"net/url"
	"strings"
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

type viewPage struct {
	Items []view.View `json:"items"`
}

type ticketPage struct {
	Items []struct {
		Title    string `json:"title"`
		Priority string `json:"priority"`
	} `json:"items"`
	NextCursor *string `json:"next_cursor"`
	Total      *int    `json:"total"`
}

func TestSavedViews(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock)), views.New(view.New(e.DB, e.Clock))}
	}})
	env, owner, admin, member, viewer, outsider := w.Env, w.Owner, w.Admin, w.Member, w.Viewer, w.Outsider
	project := testfactory.Project(t, env.DB, owner.OrgID, testfactory.ProjectOpts{Key: "ABC", Name: "ABC"}).ID
	for _, tk := range []map[string]any{{"title": "Crash one", "priority": "High"}, {"title": "Crash two", "priority": "Critical"},
		{"title": "Crash three", "priority": "Low"}, {"title": "Other"}} {
		env.Do("POST", "/api/v1/projects/"+project.String()+"/tickets", owner.Token, tk).Expect(t, 201)
	}
	orgViews := "/api/v1/orgs/" + owner.OrgID.String() + "/views"

	var shared view.View
	env.Do("POST", orgViews, member.Token, map[string]any{"name": "Hot crashes", "q": "crash priority:>=High",
		"sort": "priority", "columns": []string{"key", "title", "priority", "key"}, "visibility": "shared"}).Expect(t, 201).Decode(t, &shared)
	if shared.Visibility != "shared" || *shared.Sort != "priority-desc" || strings.Join(shared.Columns, ",") != "key,title,priority" {
		t.Fatalf("%+v", shared)
	}
	var private view.View
	env.Do("POST", orgViews, viewer.Token, map[string]any{"name": "Mine", "q": "crash", "sort": "created-asc"}).Expect(t, 201).Decode(t, &private)
	if private.Visibility != "private" {
		t.Fatalf("%+v", private)
	}

	// Validation: positioned query errors, bad sort/columns/visibility, a
	// Viewer may not share.
	res := env.Do("POST", orgViews, member.Token, map[string]any{"name": "bad", "q": "label:x nope:y"}).Expect(t, 422)
	if !strings.Contains(res.Error().Message, "position 9") {
		t.Errorf("%s", res.Body)
	}
	env.Do("POST", orgViews, member.Token, map[string]any{"name": "bad", "sort": "size"}).Expect(t, 422)
	env.Do("POST", orgViews, member.Token, map[string]any{"name": "bad", "columns": []string{"secret"}}).Expect(t, 422)
	env.Do("POST", orgViews, member.Token, map[string]any{"name": "bad", "visibility": "public"}).Expect(t, 422)
	env.Do("POST", orgViews, member.Token, map[string]any{"q": "x"}).Expect(t, 422)
	env.Do("POST", orgViews, viewer.Token, map[string]any{"name": "share", "visibility": "shared"}).Expect(t, 403)
	env.Do("POST", orgViews, outsider.Token, map[string]any{"name": "x"}).Expect(t, 404)

	// Lists: shared ones and one's own.
	var l viewPage
	env.Do("GET", orgViews, viewer.Token, nil).Expect(t, 200).Decode(t, &l)
	if len(l.Items) != 2 {
		t.Errorf("viewer lists %d", len(l.Items))
	}
	env.Do("GET", orgViews, member.Token, nil).Expect(t, 200).Decode(t, &l)
	if len(l.Items) != 1 || l.Items[0].ID != shared.ID {
		t.Errorf("member lists %+v", l.Items)
	}
	env.Do("GET", "/api/v1/views/"+private.ID.String(), member.Token, nil).Expect(t, 404)
	env.Do("GET", "/api/v1/views/"+shared.ID.String(), outsider.Token, nil).Expect(t, 404)

	// Running a view: its query and its sort, paged, with count.
	var tp ticketPage
	env.Do("GET", "/api/v1/views/"+shared.ID.String()+"/tickets?count=true&limit=1", viewer.Token, nil).Expect(t, 200).Decode(t, &tp)
	if len(tp.Items) != 1 || tp.Items[0].Title != "Crash two" || tp.Total == nil || *tp.Total != 2 || tp.NextCursor == nil {
		t.Fatalf("%+v", tp)
	}
	env.Do("GET", "/api/v1/views/"+shared.ID.String()+"/tickets?limit=1&cursor="+url.QueryEscape(*tp.NextCursor), viewer.Token, nil).Expect(t, 200).Decode(t, &tp)
	if len(tp.Items) != 1 || tp.Items[0].Title != "Crash one" || tp.NextCursor != nil {
		t.Fatalf("page 2 %+v", tp)
	}
	env.Do("GET", "/api/v1/views/"+private.ID.String()+"/tickets", viewer.Token, nil).Expect(t, 200).Decode(t, &tp)
	if len(tp.Items) != 3 || tp.Items[0].Title != "Crash one" {
		t.Errorf("private view %+v", tp)
	}
	env.Do("GET", "/api/v1/views/"+private.ID.String()+"/tickets", owner.Token, nil).Expect(t, 404)

	// Changes: the owner, or an Admin for a shared view; others 403.
	env.Do("PATCH", "/api/v1/views/"+shared.ID.String(), viewer.Token, map[string]any{"name": "x"}).Expect(t, 403)
	var up view.View
	env.Do("PATCH", "/api/v1/views/"+shared.ID.String(), admin.Token, map[string]any{"q": "other", "sort": nil}).Expect(t, 200).Decode(t, &up)
	if up.Q != "other" || up.Sort != nil || up.Name != "Hot crashes" {
		t.Errorf("%+v", up)
	}
	env.Do("PATCH", "/api/v1/views/"+private.ID.String(), viewer.Token, map[string]any{"q": "("}).Expect(t, 422)
	env.Do("PATCH", "/api/v1/views/"+private.ID.String(), viewer.Token, map[string]any{"visibility": "shared"}).Expect(t, 403)
	env.Do("DELETE", "/api/v1/views/"+private.ID.String(), admin.Token, nil).Expect(t, 404) // private: not even seen
	env.Do("DELETE", "/api/v1/views/"+private.ID.String(), viewer.Token, nil).Expect(t, 204)
	env.Do("DELETE", "/api/v1/views/"+shared.ID.String(), member.Token, nil).Expect(t, 204)
	env.Do("GET", "/api/v1/views/"+shared.ID.String(), member.Token, nil).Expect(t, 404)

	// A key restricted to projects does not reach org-level views.
	key := env.APIKey(owner, []string{"read"}, project)
	env.Do("GET", orgViews, key, nil).Expect(t, 403)
}
