package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"tracker/api/apitest"
	"tracker/docs"
)

// TestContractIsServed: the document is public at /api/v1/openapi.json and
// .yaml (the embedded docs/openapi.yaml), and /docs is the reference page
// with its embedded Redoc bundle, nothing fetched from elsewhere.
func TestContractIsServed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})

	j := env.Do("GET", "/api/v1/openapi.json", "", nil).Expect(t, 200)
	if !strings.HasPrefix(j.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("json content type %q", j.Header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	j.Decode(t, &doc)
	if doc.OpenAPI != "3.1.0" || doc.Paths["/api/v1/projects/{project_id}/tickets"] == nil {
		t.Fatalf("openapi %q, %d paths", doc.OpenAPI, len(doc.Paths))
	}

	y := env.Do("GET", "/api/v1/openapi.yaml", "", nil).Expect(t, 200)
	if !bytes.Equal(y.Body, docs.YAML) || !strings.HasPrefix(y.Header.Get("Content-Type"), "application/yaml") {
		t.Fatalf("yaml %q, %d bytes", y.Header.Get("Content-Type"), len(y.Body))
	}
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(y.Body, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j.Body, &fromJSON); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Fatal("the JSON and YAML documents differ")
	}

	page := env.Do("GET", "/docs", "", nil).Expect(t, 200)
	body := string(page.Body)
	if !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `spec-url="/api/v1/openapi.json"`) || !strings.Contains(body, `src="/docs/redoc.standalone.js"`) ||
		strings.Contains(body, "https://") {
		t.Fatalf("docs page %q: %s", page.Header.Get("Content-Type"), body)
	}
	js := env.Do("GET", "/docs/redoc.standalone.js", "", nil).Expect(t, 200)
	if len(js.Body) < 1<<20 || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("bundle %q, %d bytes", js.Header.Get("Content-Type"), len(js.Body))
	}
}
