package exchange_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
)

// TestImportFileIdempotencyKey: a real import posted twice with one
// Idempotency-Key is recorded once, and the retry gets the first answer
// (the same import_id); the key with another file is a 422, with other
// fields too; a dry run is not kept under the key.
func TestImportFileIdempotencyKey(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "linear_export.csv")
	key := map[string]string{"Idempotency-Key": "linear-" + uuid.NewString()}
	ff := fileForm{format: "linear_csv", file: file, header: key}
	first := f.postFile(t, f.b, f.owner.Token, ff).Expect(t, 202)
	var a, b struct {
		Status   string    `json:"status"`
		ImportID uuid.UUID `json:"import_id"`
	}
	first.Decode(t, &a)
	retry := f.postFile(t, f.b, f.owner.Token, ff).Expect(t, 202)
	retry.Decode(t, &b)
	if a.ImportID == uuid.Nil || b.ImportID != a.ImportID || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %+v, retry %+v (replayed %q)", a, b, retry.Header.Get("Idempotent-Replayed"))
	}
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 1 {
		t.Fatalf("%d imports for one key", n)
	}
	// The recorded import runs; a retry after it still answers the first
	// response and starts nothing.
	if _, err := f.runner.RunAll(t.Context(), a.ImportID); err != nil {
		t.Fatal(err)
	}
	f.postFile(t, f.b, f.owner.Token, ff).Expect(t, 202)
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 1 {
		t.Fatalf("%d imports after a retry", n)
	}
	// The same key with another file, or other fields: 422, nothing
	// recorded.
	other := append([]byte(nil), file...)
	other[len(other)-3] = 'X'
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "linear_csv", file: other, header: key}).Expect(t, 422)
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "linear_csv", projectKey: "NEW", file: file, header: key}).Expect(t, 422)
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 1 {
		t.Fatalf("%d imports after a reused key", n)
	}
	// A dry run writes nothing and is not kept: the same key then serves a
	// real import.
	dry := map[string]string{"Idempotency-Key": "dry-" + uuid.NewString()}
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "linear_csv", projectKey: "DRY", dryRun: "true", file: file, header: dry}).Expect(t, 200)
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "linear_csv", projectKey: "DRY", file: file, header: dry}).Expect(t, 202)
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 2 {
		t.Fatalf("%d imports after the dry run's key", n)
	}
}
