package docs

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.yaml from the root and the fragments")

// TestOpenAPIIsCurrent fails when docs/openapi.yaml is not what the root
// and the fragments merge into (`make openapi` rewrites it).
func TestOpenAPIIsCurrent(t *testing.T) {
	got, err := Build(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.yaml", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, got) {
		t.Fatal("docs/openapi.yaml is stale: run `make openapi` and commit it")
	}
	if !bytes.Equal(YAML, got) {
		t.Fatal("the embedded document differs from docs/openapi.yaml")
	}
}

// TestOpenAPIIsWellFormed checks what a reader relies on: every operation
// has a unique operationId and a summary, every path parameter is declared,
// every $ref names a component that exists, and the JSON form converts.
func TestOpenAPIIsWellFormed(t *testing.T) {
	ops, err := Operations(YAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 100 {
		t.Fatalf("only %d operations", len(ops))
	}
	seen := map[string]string{}
	for _, o := range ops {
		where := o.Method + " " + o.Path
		if o.OperationID == "" || o.Summary == "" {
			t.Errorf("%s: operationId %q, summary %q", where, o.OperationID, o.Summary)
		}
		if prev, dup := seen[o.OperationID]; dup {
			t.Errorf("operationId %q of %s is also %s", o.OperationID, where, prev)
		}
		seen[o.OperationID] = where
	}
	var doc map[string]any
	if err := yaml.Unmarshal(YAML, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v", doc["openapi"])
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && !resolves(doc, ref) {
				t.Errorf("$ref %s names nothing", ref)
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for p, item := range doc["paths"].(map[string]any) {
		declared := map[string]bool{}
		collect := func(list any) {
			for _, prm := range asList(list) {
				m := deref(doc, prm)
				if m["in"] == "path" {
					declared[m["name"].(string)] = true
				}
			}
		}
		im := item.(map[string]any)
		collect(im["parameters"])
		for k, op := range im {
			if k == "parameters" || k == "summary" || k == "description" {
				continue
			}
			own := map[string]bool{}
			for n := range declared {
				own[n] = true
			}
			for _, prm := range asList(op.(map[string]any)["parameters"]) {
				m := deref(doc, prm)
				if m["in"] == "path" {
					own[m["name"].(string)] = true
				}
			}
			for _, m := range param.FindAllStringSubmatch(p, -1) {
				if !own[m[1]] {
					t.Errorf("%s %s: path parameter %s is not declared", k, p, m[1])
				}
			}
		}
	}
	if _, err := JSON(); err != nil {
		t.Fatal(err)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func deref(doc map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		var cur any = doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cm, _ := cur.(map[string]any)
			cur = cm[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

func resolves(doc map[string]any, ref string) bool {
	if !strings.HasPrefix(ref, "#/") {
		return false
	}
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]; !ok {
			return false
		}
	}
	return true
}

// TestExtendAddsAFixtureRoute merges a fixture's path into the document
// with the common responses, and refuses one that redefines an operation.
func TestExtendAddsAFixtureRoute(t *testing.T) {
	got, err := Extend(YAML, []byte(`paths:
  /api/v1/fixture:
    post:
      operationId: fixture
      summary: Fixture
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses:
        '204': {$ref: '#/components/responses/NoContent'}
`))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := Operations(got)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Operations(YAML)
	if len(ops) != len(base)+1 || ops[len(ops)-1] != (Operation{Method: "POST", Path: "/api/v1/fixture", OperationID: "fixture", Summary: "Fixture", JSONBody: true}) {
		t.Fatalf("%d operations (base %d), last %+v", len(ops), len(base), ops[len(ops)-1])
	}
	var doc struct {
		Paths map[string]struct {
			Post struct {
				Responses map[string]any `yaml:"responses"`
			} `yaml:"post"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	responses := doc.Paths["/api/v1/fixture"].Post.Responses
	for _, code := range []string{"204", "400", "401", "409", "413", "422", "429", "500"} {
		if responses[code] == nil {
			t.Errorf("no %s in %v", code, responses)
		}
	}
	if _, err := Extend(YAML, []byte("paths:\n  /api/v1/version:\n    get: {responses: {'200': {description: x}}}\n")); err == nil {
		t.Error("a fixture redefining GET /api/v1/version was merged")
	}
}
