package exchange_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/exchange"
	"tracker/api/tickets"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
)

// fixture is an app with the exchange module, an owner of two orgs, A
// seeded and B empty.
type fixture struct {
	env    *apitest.Env
	owner  apitest.User
	a, b   uuid.UUID
	seeded exportseed.Seeded
	runner *importer.Runner
	files  objectstore.Store // where uploaded files wait for the import
}

// setup builds the fixture with the embedded local object store.
func setup(t testing.TB, o exportseed.Options) *fixture {
	t.Helper()
	return setupOn(t, o, objectstoretest.NewLocal(t, "http://127.0.0.1/storage", nil))
}

// setupOn builds the fixture keeping uploaded files in files.
func setupOn(t testing.TB, o exportseed.Options, files objectstore.Store) *fixture {
	t.Helper()
	f := &fixture{files: files}
	f.env = apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		exp, imp := export.New(e.DB, e.Clock), importer.New(e.DB, e.Clock, files)
		exp.BatchSize, imp.Wait, imp.Poll = 7, 300*time.Millisecond, 20*time.Millisecond
		// The ticket routes read what an import wrote (resolve, search).
		return []api.Module{exchange.New(exp, imp, e.Log, exchange.Settings{TempDir: t.TempDir()}),
			tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock))}
	}})
	f.runner = importer.NewRunner(f.env.DB, f.env.Clock, 5, files)
	f.owner = f.env.Register("Owner")
	f.a = f.owner.OrgID
	org := f.env.Do("POST", "/api/v1/orgs", f.owner.Token, map[string]any{"name": "Target", "slug": "target-" + uuid.NewString()[:8]}).Expect(t, 201).Map(t)
	f.b = uuid.MustParse(org["id"].(string))
	var err error
	if f.seeded, err = exportseed.Seed(context.Background(), f.env.DB, f.a, f.owner.ID, o); err != nil {
		t.Fatal(err)
	}
	return f
}

// exportJSON exports org as JSON (raw body and decoded document).
func (f *fixture) exportJSON(t *testing.T, org uuid.UUID, token string) ([]byte, export.Document) {
	t.Helper()
	r := f.env.Do("GET", "/api/v1/export?org_id="+org.String(), token, nil).Expect(t, 200)
	var d export.Document
	r.Decode(t, &d)
	return r.Body, d
}

// exportSQLite exports org as a SQLite file and returns its path.
func (f *fixture) exportSQLite(t *testing.T, org uuid.UUID) string {
	t.Helper()
	r := f.env.Do("GET", "/api/v1/export?format=sqlite&org_id="+org.String(), f.owner.Token, nil).Expect(t, 200)
	path := filepath.Join(t.TempDir(), "export.sqlite")
	if err := os.WriteFile(path, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// importInto posts a document to org, runs the import in this process (no
// worker in these tests) and returns its final status.
func (f *fixture) importInto(t *testing.T, org uuid.UUID, body []byte) importer.Status {
	t.Helper()
	r := f.env.Do("POST", "/api/v1/import?org_id="+org.String(), f.owner.Token, body).Expect(t, 202)
	var res struct {
		Status   string    `json:"status"`
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	if res.Status != "running" || res.ImportID == uuid.Nil {
		t.Fatalf("202 body %s", r.Body)
	}
	if _, err := f.runner.RunAll(context.Background(), res.ImportID); err != nil {
		t.Fatal(err)
	}
	var st importer.Status
	f.env.Do("GET", "/api/v1/imports/"+res.ImportID.String(), f.owner.Token, nil).Expect(t, 200).Decode(t, &st)
	if st.Status != "completed" {
		t.Fatalf("import %+v", st)
	}
	return st
}

// normalized blanks what may differ between two exports of equal data.
func normalized(t *testing.T, d export.Document) string {
	t.Helper()
	d.Source, d.ExportedAt = "", time.Time{}
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
