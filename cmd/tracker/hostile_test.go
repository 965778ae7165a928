package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/docs"
)

// hostileBodies are request bodies no route may answer with a 5xx, and
// none may change anything: NUL characters, invalid UTF-8, strings over
// every limit, wrong JSON types, huge and negative numbers, deep nesting.
func (f *tenantFixture) hostileBodies() map[string]any {
	valid := f.body()
	with := func(v any) map[string]any {
		m := map[string]any{}
		for k := range valid {
			m[k] = v
		}
		return m
	}
	nul := map[string]any{}
	for k, v := range valid {
		if s, ok := v.(string); ok {
			v = s + "\x00"
		}
		nul[k] = v
	}
	rawInvalid, _ := json.Marshal(valid)
	rawInvalid = bytes.Replace(rawInvalid, []byte(`"x"`), []byte("\"x\xff\xfe\""), -1)
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	out := map[string]any{
		"NUL in every string":   nul,
		"invalid UTF-8":         rawInvalid,
		"1 MB strings":          with(strings.Repeat("x", 1<<20)),
		"100k-character names":  with(strings.Repeat("é", 100_001)),
		"wrong types: objects":  with(map[string]any{"a": 1}),
		"wrong types: arrays":   with([]any{1, "x"}),
		"wrong types: booleans": with(true),
		"huge numbers":          with(int64(9_223_372_036_854_775_807)),
		"huger numbers":         []byte(`{"budget_cents": 1e400, "duration_minutes": 99999999999999999999999, "loaded_rate_cents": -9223372036854775808}`),
		"negative numbers":      with(-1),
		"ancient dates":         with("0001-01-01"),
		"far dates":             with("99999-12-31"),
		"deeply nested JSON":    deep,
		"deeply nested object":  strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_000),
		"not JSON":              "{\"title\": ",
		"top-level array":       []any{valid},
	}
	for k, v := range out { // marshalled once, not once per route
		if _, raw := v.([]byte); !raw {
			if _, str := v.(string); !str {
				out[k], _ = json.Marshal(v)
			}
		}
	}
	return out
}

// namesBodies are bodies that name members twice, or as a field only
// ignoring case (encoding/json kept the last of two, and matched names
// ignoring case): every route that takes a JSON body refuses them, a 422
// naming the member. They hold every member of body() (and the import
// document's own), so each route meets one of its fields.
func (f *tenantFixture) namesBodies() map[string][]byte {
	valid := f.body()
	// The import document's members, and those of the routes whose fields
	// body() has none of.
	valid["version"], valid["source"], valid["exported_at"] = 1, "walk", time.Now().UTC()
	valid["refresh_token"], valid["repositories"] = "x", []string{"acme/app"}
	valid["issuer_url"], valid["client_id"], valid["client_secret"] = "https://idp.example.test", "x", "x"
	valid["framework"], valid["effective_from"] = "ias_38", "2026-10"
	keys := make([]string, 0, len(valid))
	for k := range valid {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	object := func(second func(k string) string) []byte {
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range keys {
			v, _ := json.Marshal(valid[k])
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s,%q:%s", k, v, second(k), v)
		}
		b.WriteByte('}')
		return b.Bytes()
	}
	return map[string][]byte{
		"duplicate member names":       object(func(k string) string { return k }),
		"member names in another case": object(strings.ToUpper),
	}
}

// hostileQueries are query strings and path values with NUL, invalid UTF-8
// and absurd values.
var hostileQueries = []string{"?org_id=%00", "?cursor=%FF%FE", "?limit=-1", "?limit=99999999999999999999",
	"?period=%00", "?ref=TEN-%00", "?key=%FF&value=%00", "?cursor=" + strings.Repeat("A", 3000), "?q=%00%FF"}

// TestHostileInputWalk sends hostile bodies and parameters to every route
// the binary serves, as the org's Owner (the caller who gets furthest): no
// answer is a 5xx, every 4xx carries the error envelope, and no refused
// request changes the org's data (a digest of its rows before and after).
func TestHostileInputWalk(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	bodies := f.hostileBodies()
	names := f.namesBodies()
	ops, err := docs.Operations(docs.YAML)
	if err != nil {
		t.Fatal(err)
	}
	// A signed route refuses an unsigned body (401) before reading it; its
	// names rule is held by its own tests (codehost, chat).
	jsonBody := map[string]bool{}
	for _, o := range ops {
		jsonBody[o.Method+" "+o.Path] = o.JSONBody && !o.Signed
	}
	walked, refusedNames := 0, 0
	// A request the Owner may make can succeed (a hostile query on a valid
	// DELETE still deletes); a refused one must change nothing.
	state := f.snapshot(t)
	check := func(t *testing.T, name, method, path string, body any) apitest.Resp {
		t.Helper()
		res := f.env.Do(method, path, f.owner.Token, body)
		if res.Status >= 500 {
			t.Errorf("%s %s: %d %.300s", name, path, res.Status, res.Body)
		}
		after := f.snapshot(t)
		if res.Status >= 400 {
			if res.ErrorCode() == "" && !strings.Contains(string(res.Body), `"error"`) {
				t.Errorf("%s %s: %d without the error envelope: %.300s", name, path, res.Status, res.Body)
			}
			if after != state {
				t.Errorf("%s %s: refused with %d but changed the org:\nbefore %s\nafter  %s", name, path, res.Status, state, after)
			}
		}
		state = after
		return res
	}
	for _, r := range f.env.App.GetRoutes(true) {
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		walked++
		route := r.Method + " " + r.Path
		path := f.fill(strings.Replace(r.Path, "/api-keys/:id", "/api-keys/"+uuid.NewString(), 1))
		base := path[:strings.IndexByte(path, '?')]
		t.Run(route, func(t *testing.T) {
			for _, q := range hostileQueries {
				check(t, "query", r.Method, base+q, nil)
			}
			// Hostile path values: every id replaced.
			for _, v := range []string{"%00", "%FF", "x%00y", strings.Repeat("9", 300)} {
				check(t, "path", r.Method, strings.ReplaceAll(base, f.project.String(), v), nil)
			}
			if r.Method == "GET" || r.Method == "DELETE" {
				return
			}
			for name, body := range bodies {
				check(t, name, r.Method, path, body)
			}
			for name, body := range names {
				res := check(t, name, r.Method, path, body)
				if !jsonBody[r.Method+" "+docs.FiberPath(r.Path)] {
					continue
				}
				if d := strings.Join(res.Error().Details, "; "); res.Status != 422 ||
					!strings.Contains(d, "duplicate member name") && !strings.Contains(d, "must be spelled") {
					t.Errorf("%s %s: %d %.300s, want a 422 naming the member", name, path, res.Status, res.Body)
				}
				refusedNames++
			}
		})
	}
	if walked < 60 {
		t.Fatalf("walked only %d routes", walked)
	}
	if refusedNames < 2*40 {
		t.Fatalf("only %d refusals of ambiguous names: too few routes with a JSON body", refusedNames)
	}
}
