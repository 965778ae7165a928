package exchange_test

import (
	"bytes"
	"testing"

	"tracker/domain"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// A ticket whose parent is a later row of its own batch gets the parent in
// the batch's insert, before the last pass: BIG-10's parent is BIG-11, both
// in the one batch; BIG-20's parent (BIG-21) is not in the file.
func TestImportParentLaterInBatchSetAtInsert(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	svc := importer.New(f.env.DB, f.env.Clock, f.files)
	runner := importer.NewRunner(f.env.DB, f.env.Clock, 50, f.files)
	p := domain.Principal{UserID: f.owner.ID, OrgID: f.b, Scopes: []string{domain.ScopeAll}}
	sub, err := svc.SubmitFile(t.Context(), p, f.b, importer.File{Format: "jira_csv", Body: bytes.NewReader(benchJira(20))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := runner.Stage(ctx, sub.ImportID); err != nil {
		t.Fatal(err)
	}
	st, err := runner.Catalog(ctx, sub.ImportID)
	for err == nil && !st.Done {
		st, err = runner.Batch(ctx, sub.ImportID)
	}
	if err != nil {
		t.Fatal(err)
	}
	parentOf := func(key string) string {
		var parent string
		if err := f.env.DB.Pool.QueryRow(ctx, `SELECT coalesce(p.external_key, '') FROM tickets t
		    LEFT JOIN tickets p ON p.id = t.parent_id WHERE t.org_id = $1 AND t.external_key = $2`, f.b, key).Scan(&parent); err != nil {
			t.Fatal(err)
		}
		return parent
	}
	if got := parentOf("BIG-10"); got != "BIG-11" {
		t.Fatalf("BIG-10's parent after the batch is %q, want BIG-11", got)
	}
	if got := parentOf("BIG-12"); got != "BIG-11" {
		t.Fatalf("BIG-12's parent after the batch is %q, want BIG-11", got)
	}
	if got := parentOf("BIG-20"); got != "" {
		t.Fatalf("BIG-20's parent is %q, want none (not in the file)", got)
	}
	if _, err := runner.Finish(ctx, sub.ImportID); err != nil {
		t.Fatal(err)
	}
	if got := parentOf("BIG-10"); got != "BIG-11" {
		t.Fatalf("BIG-10's parent after the last pass is %q, want BIG-11", got)
	}
}
