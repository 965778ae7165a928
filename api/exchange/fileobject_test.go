package exchange_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
	"tracker/store/objectstore/objectstoretest"
)

// A real run keeps the uploaded file in the object store (MinIO here), not
// a converted document in the database; the worker's Stage converts the
// object again, streamed, and drops it once staged.
func TestImportJiraFileWaitsInTheObjectStore(t *testing.T) {
	t.Parallel()
	files := objectstoretest.MinIO(t)
	f := setupOn(t, exportseed.Options{}, files)
	ctx := t.Context()
	file := readSample(t, "jira_cloud_en.csv")
	r := f.postFile(t, f.b, f.owner.Token, fileForm{format: "jira_csv", mapping: enUsers, file: file}).Expect(t, 202)
	var res struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	if n := count(t, f, `SELECT count(*) FROM imports WHERE id = $1 AND document IS NULL AND file IS NOT NULL
	    AND format = 'jira_csv' AND size_bytes = $2`, res.ImportID, len(file)); n != 1 {
		t.Fatalf("the imports row holds a document, or no file (%d)", n)
	}
	prefix := importer.FileKeyRoot + f.b.String() + "/" + res.ImportID.String() + "/"
	objs, err := files.List(ctx, prefix, "", 10)
	if err != nil || len(objs) != 1 || objs[0].Size != int64(len(file)) {
		t.Fatalf("stored objects %+v %v", objs, err)
	}
	rc, err := files.Get(ctx, objs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || !bytes.Equal(got, file) {
		t.Fatalf("the stored file differs from the upload (%d bytes of %d): %v", len(got), len(file), err)
	}

	if _, err := f.runner.RunAll(ctx, res.ImportID); err != nil {
		t.Fatal(err)
	}
	st := f.env.Do("GET", "/api/v1/imports/"+res.ImportID.String(), f.owner.Token, nil).Expect(t, 200).Map(t)
	if sum := st["summary"].(map[string]any); st["status"] != "completed" || sum["tickets_created"] != 22.0 || sum["comments"] != 17.0 {
		t.Fatalf("import %v", st)
	}
	if n := count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1`, f.b); n != 22 {
		t.Fatalf("%d tickets", n)
	}
	if objs, err := files.List(ctx, prefix, "", 10); err != nil || len(objs) != 0 {
		t.Fatalf("the file outlived its import: %+v %v", objs, err)
	}
}

// A file that is not the format stores nothing: no import, no object.
func TestImportBadFileStoresNoObject(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	bad := []byte("Summary,Issue key,Created\nok,A-1,\"unclosed\n\x00\x01")
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "jira_csv", file: bad}).Expect(t, 422)
	if objs, err := f.files.List(t.Context(), importer.FileKeyRoot, "", 10); err != nil || len(objs) != 0 {
		t.Fatalf("objects after a 422: %+v %v", objs, err)
	}
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 0 {
		t.Fatalf("%d imports after a 422", n)
	}
}

// Staging an import whose file is gone fails for good: retrying cannot
// bring the file back.
func TestImportStageWithoutItsFileIsPermanent(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	r := f.postFile(t, f.b, f.owner.Token, fileForm{format: "jira_csv", mapping: enUsers, file: readSample(t, "jira_cloud_en.csv")}).Expect(t, 202)
	var res struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	objs, err := f.files.List(t.Context(), importer.FileKeyRoot, "", 10)
	if err != nil || len(objs) != 1 {
		t.Fatalf("objects %+v %v", objs, err)
	}
	if err := f.files.Delete(t.Context(), objs[0].Key); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Stage(t.Context(), res.ImportID); !errors.Is(err, importer.ErrPermanent) {
		t.Fatalf("stage without the file: %v", err)
	}
}
