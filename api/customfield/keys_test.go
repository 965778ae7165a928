package customfield_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
)

// TestRestrictedKeyReadsItsProjectsFields: an API key restricted to a
// project reads the definitions enabled for it (every project's, and those
// listing it, naming only its projects among project_ids), never one of
// other projects only (404, as if it did not exist), and writes none, even
// with the admin scope (403 naming the restriction).
func TestRestrictedKeyReadsItsProjectsFields(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: modules})
	env := w.Env
	orgFields := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/fields"
	other := testfactory.Project(t, env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "OTH", Name: "Other"})
	create := func(body map[string]any) cf.Field {
		var f cf.Field
		env.Do("POST", orgFields, w.Owner.Token, body).Expect(t, 201).Decode(t, &f)
		return f
	}
	all := create(map[string]any{"name": "Everywhere", "type": "text"})
	both := create(map[string]any{"name": "Both", "type": "number", "project_ids": []uuid.UUID{w.Project.ID, other.ID}})
	hidden := create(map[string]any{"name": "Hidden", "type": "select", "options": []string{"Secret option"},
		"project_ids": []uuid.UUID{other.ID}})

	for _, scope := range []string{"read", "admin"} {
		key := env.APIKey(w.Owner, []string{scope}, w.Project.ID)
		var page fieldPage
		env.Do("GET", orgFields, key, nil).Expect(t, 200).Decode(t, &page)
		if len(page.Items) != 2 || page.Items[0].ID != all.ID || page.Items[1].ID != both.ID ||
			len(page.Items[0].ProjectIDs) != 0 || len(page.Items[1].ProjectIDs) != 1 || page.Items[1].ProjectIDs[0] != w.Project.ID {
			t.Fatalf("%s key lists %+v", scope, page.Items)
		}
		var got cf.Field
		env.Do("GET", "/api/v1/fields/"+both.ID.String(), key, nil).Expect(t, 200).Decode(t, &got)
		if len(got.ProjectIDs) != 1 || got.ProjectIDs[0] != w.Project.ID {
			t.Fatalf("%s key reads %+v", scope, got)
		}
		res := env.Do("GET", "/api/v1/fields/"+hidden.ID.String(), key, nil).Expect(t, 404)
		if strings.Contains(string(res.Body), "Secret") {
			t.Fatalf("404 tells %s", res.Body)
		}
		for _, r := range []struct{ method, path string }{
			{"POST", orgFields}, {"PATCH", "/api/v1/fields/" + all.ID.String()}, {"DELETE", "/api/v1/fields/" + all.ID.String()},
		} {
			res := env.Do(r.method, r.path, key, map[string]any{"name": "By key", "type": "text"}).Expect(t, 403)
			if !strings.Contains(res.Error().Message, "API key") && scope == "admin" {
				t.Fatalf("%s %s: %s", r.method, r.path, res.Body)
			}
		}
	}
	// The Owner's session still reads them all, whole.
	var page fieldPage
	env.Do("GET", orgFields, w.Owner.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 3 || len(page.Items[1].ProjectIDs) != 2 {
		t.Fatalf("%+v", page.Items)
	}
}
