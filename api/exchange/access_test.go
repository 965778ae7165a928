package exchange_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
)

func TestAccess(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 2, TicketsPerProject: 3, CommentsPerTicket: 1, EntriesPerTicket: 1})
	outsider := f.env.Register("Outsider")
	viewer := f.env.Member(f.owner, "viewer")
	member := f.env.Member(f.owner, "member")
	admin := f.env.Member(f.owner, "admin")
	exportPath := "/api/v1/export?org_id=" + f.a.String()
	importPath := "/api/v1/import?org_id=" + f.a.String()
	raw, _ := json.Marshal(smallDoc(f.owner.Email))
	r := f.env.Do("POST", importPath, f.owner.Token, raw).Expect(t, 202)
	var res struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	importGet := "/api/v1/imports/" + res.ImportID.String()

	t.Run("404 for a non-member on every route", func(t *testing.T) {
		for _, c := range []struct{ method, path string }{{"GET", exportPath}, {"GET", exportPath + "&format=sqlite"},
			{"POST", importPath}, {"GET", importGet}} {
			var body any
			if c.method == "POST" {
				body = raw
			}
			if got := f.env.Do(c.method, c.path, outsider.Token, body).Expect(t, 404); got.ErrorCode() != "not_found" {
				t.Fatalf("%s %s: %s", c.method, c.path, got.Body)
			}
		}
		f.env.Do("GET", "/api/v1/imports/"+uuid.NewString(), f.owner.Token, nil).Expect(t, 404)
		f.env.Do("GET", "/api/v1/imports/not-a-uuid", f.owner.Token, nil).Expect(t, 404)
		f.env.Do("GET", "/api/v1/export?org_id="+uuid.NewString(), f.owner.Token, nil).Expect(t, 404)
	})

	t.Run("403 below Admin names the role", func(t *testing.T) {
		for _, u := range []string{viewer.Token, member.Token} {
			for _, c := range []struct{ method, path string }{{"GET", exportPath}, {"POST", importPath}, {"GET", importGet}} {
				var body any
				if c.method == "POST" {
					body = raw
				}
				got := f.env.Do(c.method, c.path, u, body).Expect(t, 403)
				if got.ErrorCode() != "FORBIDDEN" || !strings.Contains(got.Error().Message, "Admin") {
					t.Fatalf("%s %s: %s", c.method, c.path, got.Body)
				}
			}
		}
		key := f.env.APIKeyIn(f.owner, f.a, []string{"read"})
		f.env.Do("GET", exportPath, key, nil).Expect(t, 403)
		f.env.Do("POST", importPath, key, raw).Expect(t, 403)
	})

	t.Run("200 for an Admin; the project filter", func(t *testing.T) {
		var doc struct {
			Projects []struct {
				Key string `json:"key"`
			} `json:"projects"`
			Users []any `json:"users"`
		}
		r := f.env.Do("GET", exportPath+"&project=p1", admin.Token, nil).Expect(t, 200)
		r.Decode(t, &doc)
		if len(doc.Projects) != 1 || doc.Projects[0].Key != "P1" {
			t.Fatalf("projects %+v", doc.Projects)
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="export-`) {
			t.Fatalf("content disposition %q", cd)
		}
		f.env.Do("GET", importGet, admin.Token, nil).Expect(t, 200)
		f.env.Do("GET", exportPath+"&project=NOPE", admin.Token, nil).Expect(t, 404)
	})

	t.Run("sqlite download", func(t *testing.T) {
		r := f.env.Do("GET", exportPath+"&format=sqlite", admin.Token, nil).Expect(t, 200)
		if !strings.HasPrefix(string(r.Body), "SQLite format 3") || !strings.HasSuffix(r.Header.Get("Content-Disposition"), `.sqlite"`) {
			t.Fatalf("sqlite response %q %q", r.Body[:16], r.Header.Get("Content-Disposition"))
		}
	})

	t.Run("422 parameters", func(t *testing.T) {
		f.env.Do("GET", "/api/v1/export", f.owner.Token, nil).Expect(t, 422)
		f.env.Do("GET", "/api/v1/export?org_id=nope", f.owner.Token, nil).Expect(t, 422)
		f.env.Do("GET", exportPath+"&format=xml", f.owner.Token, nil).Expect(t, 422)
		f.env.Do("POST", "/api/v1/import?org_id=nope", f.owner.Token, raw).Expect(t, 422)
	})

	t.Run("import defaults to the session's org", func(t *testing.T) {
		r := f.env.Do("POST", "/api/v1/import", f.owner.Token, raw).Expect(t, 202)
		var st struct {
			ImportID uuid.UUID `json:"import_id"`
		}
		r.Decode(t, &st)
		got := f.env.Do("GET", "/api/v1/imports/"+st.ImportID.String(), f.owner.Token, nil).Expect(t, 200).Map(t)
		if got["org_id"] != f.owner.OrgID.String() || got["status"] != "pending" {
			t.Fatalf("import %v", got)
		}
	})

	t.Run("401 without credentials", func(t *testing.T) {
		f.env.Do("GET", exportPath, "", nil).Expect(t, 401)
		f.env.Do("POST", importPath, "", raw).Expect(t, 401)
		f.env.Do("GET", importGet, "", nil).Expect(t, 401)
	})
}
