package exchange_test

import (
	"bytes"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

// fileForm is a multipart import: the file and the form's fields.
type fileForm struct {
	format, projectKey, mapping, dryRun string
	name                                string // file part's filename
	file                                []byte
	header                              map[string]string // request headers (Idempotency-Key)
}

// readSample reads one of the sources' real export samples.
func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../domain/exchange/sources/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fixture) postFile(t testing.TB, org uuid.UUID, token string, ff fileForm) apitest.Resp {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range map[string]string{"format": ff.format, "project_key": ff.projectKey, "mapping": ff.mapping, "dry_run": ff.dryRun} {
		if v != "" {
			_ = w.WriteField(k, v)
		}
	}
	if ff.file != nil {
		name := ff.name
		if name == "" {
			name = "export.csv"
		}
		fw, _ := w.CreateFormFile("file", name)
		_, _ = fw.Write(ff.file)
	}
	_ = w.Close()
	req := httptest.NewRequest("POST", "/api/v1/orgs/"+org.String()+"/imports", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range ff.header {
		req.Header.Set(k, v)
	}
	return f.env.Send(req)
}

// runFile posts a real import and runs it in this process.
func (f *fixture) runFile(t *testing.T, org uuid.UUID, ff fileForm) map[string]any {
	t.Helper()
	r := f.postFile(t, org, f.owner.Token, ff).Expect(t, 202)
	var res struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	if _, err := f.runner.RunAll(t.Context(), res.ImportID); err != nil {
		t.Fatal(err)
	}
	return f.env.Do("GET", "/api/v1/imports/"+res.ImportID.String(), f.owner.Token, nil).Expect(t, 200).Map(t)
}

const enUsers = `{"users": {"Eric Medlock": "eric@example.com", "5fe07a7dd3649601392ba191": "sai.b@example.com",
 "Saicharan Basireddy": "sai.b@example.com", "712020:b0892835-64bc-4809-afd1-cc09a3ffc20e": "sai.s@example.com",
 "5db9d8eb4ff1890d31036b89": "eric@example.com"}}`

func count(t *testing.T, f *fixture, sql string, args ...any) int {
	t.Helper()
	return int(apitest.Scalar[int64](t, f.env, sql, args...))
}
