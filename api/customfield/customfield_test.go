package customfield_test

import (
	"strings"
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/customfield"
	cf "tracker/domain/customfield"
)

func modules(e *apitest.Env) []api.Module {
	return []api.Module{customfield.New(cf.New(e.DB, e.Clock))}
}

type fieldPage struct {
	Items      []cf.Field `json:"items"`
	NextCursor *string    `json:"next_cursor"`
}

func TestFieldDefinitions(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: modules})
	env := w.Env
	orgFields := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/fields"

	// Create: the key defaults to a slug of the name; options as names or
	// objects.
	var sev cf.Field
	env.Do("POST", orgFields, w.Admin.Token, map[string]any{"name": "Severity Level!", "type": "select",
		"options": []any{"Low", map[string]any{"name": "High", "color": "#f00"}}}).Expect(t, 201).Decode(t, &sev)
	if sev.Key != "severity_level" || sev.Type != "select" || len(sev.Options) != 2 || sev.Options[1].Name != "High" ||
		sev.Options[1].Color == nil || *sev.Options[1].Color != "#f00" || len(sev.ProjectIDs) != 0 || sev.Required {
		t.Fatalf("%+v", sev)
	}
	var points cf.Field
	env.Do("POST", orgFields, w.Owner.Token, map[string]any{"name": "Story points", "key": "points", "type": "number",
		"project_ids": []any{w.Project.ID}, "required": true}).Expect(t, 201).Decode(t, &points)
	if points.Key != "points" || len(points.ProjectIDs) != 1 || points.ProjectIDs[0] != w.Project.ID || !points.Required {
		t.Fatalf("%+v", points)
	}

	// A key taken in the org is a 409; the same key in another org is fine.
	env.Do("POST", orgFields, w.Admin.Token, map[string]any{"name": "severity level", "type": "text"}).Expect(t, 409)
	other := env.Register("Other")
	env.Do("POST", "/api/v1/orgs/"+other.OrgID.String()+"/fields", other.Token, map[string]any{"name": "Severity level", "type": "text"}).Expect(t, 201)

	// Validation.
	for _, body := range []map[string]any{
		{"name": "x", "type": "colour"},
		{"name": "x"},
		{"type": "text"},
		{"name": "x", "key": "Bad Key", "type": "text"},
		{"name": "!!!", "type": "text"},
		{"name": "x", "type": "select"},
		{"name": "x", "type": "select", "options": []string{"a", "A"}},
		{"name": "x", "type": "select", "options": []string{strings.Repeat("o", 101)}},
		{"name": "x", "type": "select", "options": []any{map[string]any{"name": "a", "color": "red"}}},
		{"name": "x", "type": "text", "options": []string{"a"}},
		{"name": "x", "type": "text", "project_ids": []string{w.Outsider.OrgID.String()}},
		{"name": strings.Repeat("n", 101), "type": "text"},
	} {
		env.Do("POST", orgFields, w.Admin.Token, body).Expect(t, 422)
	}
	many := make([]string, 501)
	for i := range many {
		many[i] = "o" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
	}
	env.Do("POST", orgFields, w.Admin.Token, map[string]any{"name": "many", "type": "select", "options": many}).Expect(t, 422)

	// Roles: every write needs Admin; a non-member sees nothing.
	for _, u := range []apitest.User{w.Member, w.Viewer, w.Reporter} {
		env.Do("POST", orgFields, u.Token, map[string]any{"name": "y", "type": "text"}).Expect(t, 403)
		env.Do("PATCH", "/api/v1/fields/"+sev.ID.String(), u.Token, map[string]any{"name": "y"}).Expect(t, 403)
		env.Do("DELETE", "/api/v1/fields/"+sev.ID.String(), u.Token, nil).Expect(t, 403)
		env.Do("GET", "/api/v1/fields/"+sev.ID.String(), u.Token, nil).Expect(t, 200)
	}
	env.Do("POST", orgFields, w.Outsider.Token, map[string]any{"name": "y", "type": "text"}).Expect(t, 404)
	env.Do("GET", orgFields, w.Outsider.Token, nil).Expect(t, 404)
	env.Do("GET", "/api/v1/fields/"+sev.ID.String(), w.Outsider.Token, nil).Expect(t, 404)
	env.Do("PATCH", "/api/v1/fields/"+sev.ID.String(), w.Outsider.Token, map[string]any{"name": "y"}).Expect(t, 404)
	env.Do("DELETE", "/api/v1/fields/"+sev.ID.String(), w.Outsider.Token, nil).Expect(t, 404)

	// The list pages.
	var page fieldPage
	env.Do("GET", orgFields+"?limit=1", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != sev.ID || page.NextCursor == nil {
		t.Fatalf("%+v", page)
	}
	env.Do("GET", orgFields+"?cursor="+*page.NextCursor, w.Viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != points.ID || page.NextCursor != nil {
		t.Fatalf("%+v", page)
	}

	// PATCH: options as the full list, by id; rename, archive, add.
	low, high := sev.Options[0], sev.Options[1]
	var up cf.Field
	env.Do("PATCH", "/api/v1/fields/"+sev.ID.String(), w.Admin.Token, map[string]any{"name": "Severity", "required": true,
		"options": []any{map[string]any{"id": low.ID, "archived": true}, map[string]any{"id": high.ID, "name": "Urgent"}, "Medium"}}).
		Expect(t, 200).Decode(t, &up)
	if up.Name != "Severity" || up.Key != "severity_level" || !up.Required || len(up.Options) != 3 ||
		up.Options[0].ID != low.ID || !up.Options[0].Archived || up.Options[1].ID != high.ID || up.Options[1].Name != "Urgent" ||
		*up.Options[1].Color != "#f00" || up.Options[2].Name != "Medium" {
		t.Fatalf("%+v", up)
	}
	// An existing option left out, an unknown id, type or key changed: 422,
	// and nothing changes.
	sevURL := "/api/v1/fields/" + sev.ID.String()
	for _, body := range []map[string]any{
		{"options": []any{map[string]any{"id": low.ID}, map[string]any{"id": high.ID}}},
		{"options": []any{map[string]any{"id": low.ID}, map[string]any{"id": high.ID}, map[string]any{"id": up.Options[2].ID},
			map[string]any{"id": points.ID, "name": "x"}}},
		{"type": "text"},
		{"key": "sev"},
		{"options": nil},
		{"name": ""},
		{"project_ids": []any{w.Outsider.OrgID}},
	} {
		env.Do("PATCH", sevURL, w.Admin.Token, body).Expect(t, 422)
	}
	var got cf.Field
	env.Do("GET", sevURL, w.Member.Token, nil).Expect(t, 200).Decode(t, &got)
	if got.Name != "Severity" || len(got.Options) != 3 || got.Type != "select" || got.Key != "severity_level" {
		t.Fatalf("%+v", got)
	}
	// The same type and key are not a change.
	env.Do("PATCH", sevURL, w.Admin.Token, map[string]any{"type": "select", "key": "severity_level"}).Expect(t, 200)
	env.Do("PATCH", "/api/v1/fields/"+points.ID.String(), w.Admin.Token, map[string]any{"project_ids": []any{}}).Expect(t, 200).Decode(t, &got)
	if len(got.ProjectIDs) != 0 {
		t.Fatalf("%+v", got)
	}

	// A project-restricted key reads those of its projects (all of them
	// here): TestRestrictedKeyReadsItsProjectsFields.
	key := env.APIKey(w.Owner, []string{"read"}, w.Project.ID)
	env.Do("GET", sevURL, key, nil).Expect(t, 200)

	// Delete; the key is free again.
	env.Do("DELETE", sevURL, w.Admin.Token, nil).Expect(t, 204)
	env.Do("GET", sevURL, w.Admin.Token, nil).Expect(t, 404)
	env.Do("DELETE", sevURL, w.Admin.Token, nil).Expect(t, 404)
	env.Do("POST", orgFields, w.Admin.Token, map[string]any{"name": "Severity level", "type": "text"}).Expect(t, 201)
}
