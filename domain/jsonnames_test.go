package domain_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"

	"tracker/domain"
)

type NamesBase struct {
	CreatedBy string `json:"created_by"`
}

type namesStatus struct {
	Name     string `json:"name"`
	Category string `json:"category"`
}

// namesBody has the shapes request bodies have: plain and pointer fields,
// nested structs, slices and maps of structs, an Opt of a slice of structs,
// an embedded struct, types that decode themselves.
type namesBody struct {
	NamesBase
	Title    string                 `json:"title"`
	Kind     *string                `json:"kind"`
	Count    int64                  `json:"count"`
	When     *time.Time             `json:"when"`
	ID       uuid.UUID              `json:"id"`
	Statuses []namesStatus          `json:"statuses"`
	ByName   map[string]namesStatus `json:"by_name"`
	Patch    domain.Opt[[]namesStatus]
	Any      any             `json:"any"`
	Raw      json.RawMessage `json:"raw"`
	Skipped  string          `json:"-"`
}

func names(t *testing.T, body string) error {
	t.Helper()
	if !json.Valid([]byte(body)) {
		t.Fatalf("not JSON: %s", body)
	}
	return domain.JSONNames([]byte(body), reflect.TypeFor[namesBody]())
}

func TestJSONNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		`{}`, `[]`, `null`, `"x"`, `1`,
		`{"title":"a","count":1,"statuses":[{"name":"a","category":"todo"},{"name":"b"}]}`,
		`{"by_name":{"a":{"name":"x"},"A":{"name":"y"},"Name":{"other":"map keys are free"}}}`,
		`{"unknown":1,"Unknown":2,"created_by":"x","Patch":[{"name":"a"}],"any":{"Title":1,"title":2},"raw":{"A":1,"a":2}}`,
		`{"title":"a","statuses":[{"name":"a"}],"Skipped":"no field of that name","-":"nor of this one"}`,
		`{"ti\u0074le":"an escaped name is the name"}`,
		`{"a":[{"x":1},{"x":2}],"b":[[{"x":1}],[{"x":1}]]}`,
	} {
		if err := names(t, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for body, want := range map[string]string{
		`{"title":"first","Title":"second"}`:                `Title: must be spelled "title"`,
		`{"TITLE":"x"}`:                                     `TITLE: must be spelled "title"`,
		`{"\u212Aind":"x"}`:                                 `must be spelled "kind"`, // the Kelvin sign folds to k
		`{"statuses":[{"name":"a"},{"Name":"b"}]}`:          `statuses[1].Name: must be spelled "name"`,
		`{"by_name":{"a":{"name":"x","CATEGORY":"y"}}}`:     `by_name.a.CATEGORY: must be spelled "category"`,
		`{"Patch":[{"nAme":"a"}]}`:                          `Patch[0].nAme: must be spelled "name"`,
		`{"Created_By":"x"}`:                                `Created_By: must be spelled "created_by"`,
		`{"patch":[]}`:                                      `patch: must be spelled "Patch"`,
		`{"title":"first","title":"second"}`:                `title: duplicate member name`,
		`{"title":"a","ti\u0074le":"b"}`:                    `title: duplicate member name`,
		`{"unknown":1,"unknown":2}`:                         `unknown: duplicate member name`,
		`{"any":{"x":{"y":[1,{"z":1,"z":1}]}}}`:             `any.x.y[1].z: duplicate member name`,
		`{"by_name":{"a":{},"a":{}}}`:                       `by_name.a: duplicate member name`,
		`[{"title":"a"},{"title":"a","count":1,"count":1}]`: `[1].count: duplicate member name`,
		`{"raw":{"a":1,"a":2}}`:                             `raw.a: duplicate member name`,
		manyMembers(40) + `,"m7":0}`:                        `m7: duplicate member name`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"a":0}`: `a: duplicate member name`,
	} {
		err := names(t, body)
		var de *domain.Error
		if !errors.As(err, &de) || de.Kind != domain.KindValidation || len(de.Details) != 1 || !strings.Contains(de.Details[0], want) {
			t.Errorf("%s: %v, want a 422 detail with %q", body, err, want)
		}
	}
}

func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(fmt.Sprintf(`,"m%d":0`, i))
	}
	return "{" + b.String()[1:]
}

// SCIM's attribute names are case-insensitive: names differing in case are
// the same attribute.
func TestJSONNamesCaseless(t *testing.T) {
	t.Parallel()
	if err := domain.JSONNamesCaseless([]byte(`{"userName":"a","name":{"givenName":"x","familyName":"y"},"emails":[{"value":"a"},{"value":"b"}]}`)); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"userName":"a","username":"b"}`, `{"name":{"givenName":"x","GIVENNAME":"y"}}`,
		`{"Operations":[{"op":"replace","Op":"add"}]}`} {
		if err := domain.JSONNamesCaseless([]byte(body)); err == nil {
			t.Errorf("%s: accepted", body)
		}
	}
}

// FuzzJSONNames holds JSONNames to a strict reader (the JSON v2 proposal:
// duplicate names are an error, names match exactly): whatever JSONNames
// accepts, encoding/json — what the service decodes with — reads as the
// strict reader does; a duplicate the strict reader refuses is refused;
// and a duplicate JSONNames reports, the strict reader refuses too.
func FuzzJSONNames(f *testing.F) {
	for _, s := range []string{`{"title":"first","Title":"second"}`, `{"title":"a","title":"b"}`, `{"statuses":[{"name":"a","NAME":"b"}]}`,
		`{"by_name":{"x":{"category":"a"}},"kind":"k"}`, `{"\u212Aind":"x"}`, `{"Patch":[{"name":"a"}],"count":3}`, `{"created_by":"x"}`,
		`{"any":{"a":1,"A":2},"raw":[{"a":1}]}`, `{"ti\u0074le":"x"}`} {
		f.Add([]byte(s))
	}
	into := reflect.TypeFor[namesBody]()
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || domain.JSONText(b) != nil {
			return
		}
		err := domain.JSONNames(b, into)
		var v1, v2 namesBody
		e1 := json.Unmarshal(b, &v1)
		e2 := jsonv2.Unmarshal(b, &v2)
		duplicate := errors.Is(e2, jsontext.ErrDuplicateName)
		switch {
		case err == nil && duplicate:
			t.Fatalf("%s: accepted, and a strict reader finds a duplicate name: %v", b, e2)
		case err != nil && strings.Contains(err.Error()+detail(err), "duplicate") && !duplicate && e2 == nil:
			t.Fatalf("%s: %v, and a strict reader reads it", b, detail(err))
		case err == nil && e1 == nil && e2 == nil && !reflect.DeepEqual(v1, v2):
			t.Fatalf("%s: accepted, and encoding/json reads\n%+v\nwhere a strict reader reads\n%+v", b, v1, v2)
		}
	})
}

func detail(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		return strings.Join(de.Details, "; ")
	}
	return ""
}

// BenchmarkJSONNames is the names pass on bodies at the 1 MiB limit of an
// ordinary route: one long text, an object of some 71,000 members (past
// the few a list holds: the map), an array of 20,000 small objects of the
// body's struct.
func BenchmarkJSONNames(b *testing.B) {
	long := []byte(`{"title":"` + strings.Repeat("x", 1<<20-20) + `"}`)
	var members strings.Builder
	members.WriteString(`{"any":{`)
	for i := 0; members.Len() < 1<<20-20; i++ {
		if i > 0 {
			members.WriteByte(',')
		}
		fmt.Fprintf(&members, `"m%d":%d`, i, i)
	}
	members.WriteString(`}}`)
	var array strings.Builder
	array.WriteString(`{"statuses":[`)
	for i := 0; array.Len() < 1<<20-50; i++ {
		if i > 0 {
			array.WriteByte(',')
		}
		array.WriteString(`{"name":"In review","category":"in_progress"}`)
	}
	array.WriteString(`]}`)
	into := reflect.TypeFor[namesBody]()
	for name, body := range map[string][]byte{"long text": long, "many members": []byte(members.String()), "many objects": []byte(array.String())} {
		if !json.Valid(body) {
			b.Fatalf("%s: not JSON", name)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for range b.N {
				if err := domain.JSONNames(body, into); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for range b.N {
				var v namesBody
				if err := json.Unmarshal(body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
