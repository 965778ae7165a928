package export_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"tracker/docs"
	"tracker/domain/comment"
	"tracker/domain/exchange/export"
	"tracker/domain/label"
	"tracker/domain/project"
	"tracker/domain/sprint"
	"tracker/domain/ticket"
	"tracker/domain/timeentry"
	"tracker/internal/civil"
	"tracker/store/commentdb"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/labeldb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// entity is one entity's representations, tied together by the columns of
// its store Row, and the deliberate differences between them. Every list
// below is an exception with its reason; a name in a list that no longer
// differs fails too, so the lists cannot go stale.
type entity struct {
	name    string
	row     reflect.Type // the store Row: its `db` tags are the columns
	columns []string     // the store package's own column list, when it has one
	api     reflect.Type // the API's JSON body (its `json` tags)
	openapi string       // its schema in docs/openapi.yaml components.schemas
	doc     reflect.Type // the export document's type
	docDef  string       // its $defs entry in docs/export-schema.json
	sqlite  string       // its table in the SQLite export
	content []string     // the columns of its store Content: a client's values
	writes  []string     // the operations whose bodies take each of content

	notInAPI    []string          // Row columns the API leaves out
	apiOnly     []string          // API keys read from other tables than Row's
	inDocAs     map[string]string // Row columns the document names otherwise ("" = not at all)
	docOnly     []string          // document keys that are no Row column
	notInSQLite []string          // document keys of Row columns the SQLite table holds elsewhere
	sqliteOnly  []string          // SQLite columns that are no Row column
	docRetyped  []string          // document keys of Row columns written as another type
	// notRequired are keys the API always writes that its OpenAPI schema
	// leaves optional: the schema is looser than the server, and requiring
	// them would change the published contract, so they stay listed here.
	notRequired []string
}

// Every row carries its org and version; neither is in any body (the org is
// the caller's, the version the ETag) nor in the document (the org is the
// exported one, a version is local to a database).
var (
	notInAPI = []string{"org_id", "row_version"}
	// The document names rows by keys, not ids (package doc of export).
	noIDs = map[string]string{"id": "", "org_id": "", "row_version": ""}
	// A child's position among its siblings and its parent's keys, in the
	// SQLite tables that flatten the document's nesting.
	underTicket = []string{"project_key", "ticket_number", "position"}
)

func with(m map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

var entities = []entity{{
	name: "ticket", row: reflect.TypeFor[ticketdb.Row](), content: ticketdb.ContentFields.Names(), writes: []string{"createTicket", "updateTicket"},
	columns: ticketdb.Columns(),
	api:     reflect.TypeFor[ticket.Ticket](), openapi: "Ticket",
	doc: reflect.TypeFor[export.Ticket](), docDef: "ticket", sqlite: "tickets",
	notInAPI: notInAPI,
	inDocAs: with(noIDs, map[string]string{
		"project_id":    "", // the enclosing project
		"ticket_number": "number", "assignee_id": "assignee", "reporter_id": "reporter", "sprint_id": "sprint",
		"parent_id": "parent",
	}),
	// resolved_at: a ticket's resolution in the tracker it is imported
	// from, which the import records as a status change in the audit trail.
	docOnly: []string{"labels", "comments", "time_entries", "attachments", "links", "resolved_at"},
	// parent: table ticket_parents; the keys a ticket had in the tracker it
	// was imported from travel in the JSON document only; custom values:
	// table ticket_custom_values, one row per key.
	notInSQLite: []string{"parent", "external_key", "external_url", "custom_fields"},
	sqliteOnly:  []string{"project_key"},
}, {
	name: "project", row: reflect.TypeFor[projectdb.Row](), content: projectdb.ContentFields.Names(), writes: []string{"createProject", "updateProject"},
	columns: projectdb.Columns(""),
	api:     reflect.TypeFor[project.Project](), openapi: "Project",
	doc: reflect.TypeFor[export.Project](), docDef: "project", sqlite: "projects",
	notInAPI: []string{"row_version"}, // a project shows its org_id
	notRequired: []string{"capitalization_type", "development_phase", "cost_center_id", "amortization_months",
		"placed_in_service", "budget_cents", "budget_period"},
	inDocAs: with(noIDs, map[string]string{"team_id": "team", "workflow_id": "workflow"}),
	docOnly: []string{"members", "sprints", "tickets"}, // members: table project_members
}, {
	name: "time entry", row: reflect.TypeFor[timeentrydb.Row](), content: timeentrydb.ContentFields.Names(), writes: []string{"createTimeEntry", "updateTimeEntry"},
	columns: timeentrydb.Columns(),
	api:     reflect.TypeFor[timeentry.Entry](), openapi: "TimeEntry",
	doc: reflect.TypeFor[export.TimeEntry](), docDef: "time_entry", sqlite: "time_entries",
	notInAPI: notInAPI,
	inDocAs: with(noIDs, map[string]string{
		"ticket_id": "", "project_id": "", // the enclosing ticket
		"user_id": "user", "approved_by": "approved_by",
		// A rejection's reason is a message to the entry's user about a
		// Draft, not part of the record the document moves.
		"rejection_reason": "",
	}),
	sqliteOnly:  underTicket,
	notRequired: []string{"source_approved_by"},
}, {
	name: "sprint", row: reflect.TypeFor[sprintdb.Row](), content: sprintdb.ContentFields.Names(), writes: []string{"createSprint", "updateSprint"},
	columns: sprintdb.Columns(),
	api:     reflect.TypeFor[sprint.Sprint](), openapi: "Sprint",
	doc: reflect.TypeFor[export.Sprint](), docDef: "sprint", sqlite: "sprints",
	notInAPI:   notInAPI,
	inDocAs:    with(noIDs, map[string]string{"project_id": ""}), // the enclosing project
	sqliteOnly: []string{"project_key", "position"},
}, {
	name: "comment", row: reflect.TypeFor[commentdb.Row](), content: commentdb.ContentFields.Names(), writes: []string{"createComment", "updateComment"},
	columns: commentdb.Columns(),
	api:     reflect.TypeFor[comment.Comment](), openapi: "Comment",
	doc: reflect.TypeFor[export.Comment](), docDef: "comment", sqlite: "comments",
	notInAPI: notInAPI,
	inDocAs: with(noIDs, map[string]string{
		"ticket_id": "", // the enclosing ticket
		"author_id": "author", "parent_comment_id": "parent",
	}),
	sqliteOnly: underTicket,
	docRetyped: []string{"parent"}, // the answered comment's position, not its id
}, {
	name: "label", row: reflect.TypeFor[labeldb.Row](), content: labeldb.ContentFields.Names(), writes: []string{"createLabel", "updateLabel"},
	columns: labeldb.Columns(),
	api:     reflect.TypeFor[label.Label](), openapi: "Label",
	doc: reflect.TypeFor[export.Label](), docDef: "label", sqlite: "labels",
	notInAPI: []string{"row_version"}, // a label shows its org_id
	// A label's times are not exported: an import reuses a label by name.
	inDocAs: with(noIDs, map[string]string{"created_at": "", "updated_at": ""}),
}}

// TestTicketFieldsAgree holds every representation of tickets, projects,
// time entries, sprints, comments and labels to the entity's store Row:
// each column is a key of the API's JSON, of its OpenAPI schema (same JSON
// type and nullability), of the export document's type and its schema in
// docs/export-schema.json, and a column of the SQLite export's table,
// unless an exception above says otherwise. A column added to a Row (or to
// ticketdb.Content, which reaches the API, the document and SQLite by
// itself) that does not reach them all is caught here, as is a schema that
// drifts from the Go types.
func TestTicketFieldsAgree(t *testing.T) {
	openapi := openAPISchemas(t)
	var exportSchema struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(docs.ExportSchema, &exportSchema); err != nil {
		t.Fatal(err)
	}
	for _, e := range entities {
		t.Run(e.name, func(t *testing.T) {
			cols := fieldsOf(e.row, "db")
			colNames := names(cols)
			if e.columns != nil && !slices.Equal(sorted(e.columns), sorted(colNames)) {
				t.Errorf("the store's column list %v is not Row's %v", e.columns, colNames)
			}

			// The API: Row's columns less notInAPI, same nullability.
			api := fieldsOf(e.api, "json")
			want := append(minus(colNames, e.notInAPI), e.apiOnly...)
			assertSame(t, "API JSON keys", names(api), want)
			assertSubset(t, "notInAPI", e.notInAPI, colNames)
			for _, f := range api {
				if c, ok := find(cols, f.name); ok && jsonType(c.typ) != jsonType(f.typ) {
					t.Errorf("API %s is %s, Row's column is %s", f.name, jsonType(f.typ), jsonType(c.typ))
				}
			}
			schema := properties(t, openapi, openapi[e.openapi], "OpenAPI "+e.openapi)
			checkSchema(t, "OpenAPI "+e.openapi, openapi, schema, api)
			// The API writes every key (no omitempty), so the schema
			// requires them all.
			req, _ := openapi[e.openapi].(map[string]any)["required"].([]any)
			var required []string
			for _, r := range req {
				required = append(required, r.(string))
			}
			assertSame(t, "OpenAPI "+e.openapi+" required", required, minus(names(api), e.notRequired))
			assertSubset(t, "notRequired", e.notRequired, names(api))

			// The document: each column under its document name.
			doc := fieldsOf(e.doc, "json")
			var fromRow []string
			for _, c := range colNames {
				name, renamed := e.inDocAs[c]
				if !renamed {
					name = c
				}
				if name != "" {
					fromRow = append(fromRow, name)
				}
			}
			for k := range e.inDocAs {
				if !slices.Contains(colNames, k) {
					t.Errorf("inDocAs names %s, no column of Row", k)
				}
			}
			assertSame(t, "export document keys", names(doc), append(slices.Clone(fromRow), e.docOnly...))
			for _, f := range doc {
				c, ok := find(cols, rowColumn(e, f.name))
				if ok && jsonType(c.typ) != jsonType(f.typ) && !slices.Contains(e.docRetyped, f.name) {
					t.Errorf("document %s is %s, Row's column is %s", f.name, jsonType(f.typ), jsonType(c.typ))
				}
			}
			checkSchema(t, "export-schema.json "+e.docDef, exportSchema.Defs,
				properties(t, exportSchema.Defs, exportSchema.Defs[e.docDef], "export-schema.json "+e.docDef), doc)

			// The SQLite table: the document's names of the columns.
			assertSame(t, "SQLite "+e.sqlite+" columns", sqliteColumns(t, e.sqlite),
				append(minus(fromRow, e.notInSQLite), e.sqliteOnly...))
			assertSubset(t, "notInSQLite", e.notInSQLite, fromRow)
		})
	}

	// The ticket's generated encoder writes exactly Ticket's keys.
	if keys := keysOf(t, ticket.Ticket{}.AppendJSON(nil)); !slices.Equal(keys, sorted(names(fieldsOf(reflect.TypeFor[ticket.Ticket](), "json")))) {
		t.Errorf("AppendJSON writes %v", keys)
	}
	// Content are the values a client sets: the entity's create and update
	// bodies take each.
	for _, e := range entities {
		for _, c := range e.content {
			if !slices.Contains(names(fieldsOf(e.row, "db")), c) {
				t.Errorf("%s: Content column %s is not a column of Row", e.name, c)
			}
			for _, op := range e.writes {
				if _, ok := requestProperties(t, op)[c]; !ok {
					t.Errorf("OpenAPI %s's body has no %s (a Content column of %s)", op, c, e.name)
				}
			}
		}
	}
}

// requestProperties are the JSON body properties of the operation with
// that operationId in docs/openapi.yaml.
func requestProperties(t *testing.T, operationID string) map[string]any {
	t.Helper()
	var d struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(docs.YAML, &d); err != nil {
		t.Fatal(err)
	}
	at := func(v any, keys ...string) any {
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	for _, item := range d.Paths {
		for _, op := range item {
			if at(op, "operationId") == operationID {
				props, _ := at(op, "requestBody", "content", "application/json", "schema", "properties").(map[string]any)
				return props
			}
		}
	}
	t.Fatalf("no operation %s", operationID)
	return nil
}

// rowColumn is the Row column a document key comes from ("" for none).
func rowColumn(e entity, key string) string {
	for c, k := range e.inDocAs {
		if k == key {
			return c
		}
	}
	if _, renamed := e.inDocAs[key]; renamed {
		return ""
	}
	return key
}

// field is one tagged field: its name in the tag, its Go type, and whether
// it is left out when empty (json omitempty).
type field struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

// fieldsOf lists rt's fields by tag (db or json) in order, flattening
// untagged embedded structs as encoding/json and store.FieldsOf do.
func fieldsOf(rt reflect.Type, tag string) []field {
	var out []field
	for i := range rt.NumField() {
		sf := rt.Field(i)
		v, ok := sf.Tag.Lookup(tag)
		if !ok && sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			out = append(out, fieldsOf(sf.Type, tag)...)
			continue
		}
		name, opts, _ := strings.Cut(v, ",")
		if !sf.IsExported() || name == "-" || name == "" {
			continue
		}
		out = append(out, field{name, sf.Type, strings.Contains(opts, "omitempty")})
	}
	return out
}

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

func find(fs []field, name string) (field, bool) {
	for _, f := range fs {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// jsonType is the JSON type a Go value of t is written as, "?" prefixed
// for a nullable one.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "?" + jsonType(t.Elem())
	}
	switch t {
	case reflect.TypeFor[uuid.UUID](), reflect.TypeFor[time.Time](), reflect.TypeFor[civil.Date]():
		return "string"
	case reflect.TypeFor[civil.Decimal]():
		return "number"
	case reflect.TypeFor[ticketdb.CustomFields](): // a JSON object kept as its bytes
		return "object"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	}
	return "object"
}

// checkSchema holds a schema's properties to the Go fields written under
// them: the same keys, each of the same JSON type, nullable exactly when
// the Go field is a pointer (a pointer left out when nil may be either).
func checkSchema(t *testing.T, what string, defs map[string]any, props map[string]any, fs []field) {
	t.Helper()
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	assertSame(t, what+" properties", keys, names(fs))
	for _, f := range fs {
		p, ok := props[f.name]
		if !ok {
			continue
		}
		have := schemaType(defs, p)
		want := jsonType(f.typ)
		if f.omitempty && strings.HasPrefix(want, "?") && !strings.HasPrefix(have, "?") {
			want = want[1:]
		}
		if have != want {
			t.Errorf("%s.%s is %s in the schema, %s in Go", what, f.name, have, want)
		}
	}
}

// schemaType is a property's JSON type as jsonType writes it: from `type`
// (a name, or a list with "null"), from an enum's values, or from the
// schema a $ref names (in defs, by its last path element).
func schemaType(defs map[string]any, p any) string {
	m, _ := p.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return schemaType(defs, defs[ref[strings.LastIndex(ref, "/")+1:]])
	}
	var types []string
	switch ty := m["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			types = append(types, x.(string))
		}
	default:
		enum, _ := m["enum"].([]any)
		for _, v := range enum {
			switch v.(type) {
			case nil:
				types = append(types, "null")
			case string:
				types = append(types, "string")
			}
		}
	}
	out, null := "", false
	for _, ty := range types {
		if ty == "null" {
			null = true
		} else if out == "" || out == ty {
			out = ty
		} else {
			out = "mixed"
		}
	}
	if out == "" {
		out = "unknown"
	}
	if null {
		return "?" + out
	}
	return out
}

// properties are a schema's properties (the object itself, or the one
// object of its allOf).
func properties(t *testing.T, defs map[string]any, schema any, what string) map[string]any {
	t.Helper()
	m, _ := schema.(map[string]any)
	props, ok := m["properties"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no such object schema", what)
	}
	return props
}

// openAPISchemas are docs/openapi.yaml's components.schemas.
func openAPISchemas(t *testing.T) map[string]any {
	t.Helper()
	var d struct {
		Components struct {
			Schemas map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(docs.YAML, &d); err != nil {
		t.Fatal(err)
	}
	return d.Components.Schemas
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func assertSame(t *testing.T, what string, have, want []string) {
	t.Helper()
	if extra, missing := minus(have, want), minus(want, have); len(extra)+len(missing) > 0 {
		t.Errorf("%s: %v not expected, %v missing (have %v)", what, extra, missing, sorted(have))
	}
}

func assertSubset(t *testing.T, what string, list, of []string) {
	t.Helper()
	if stale := minus(list, of); len(stale) > 0 {
		t.Errorf("%s lists %v, which are not there", what, stale)
	}
}

func keysOf(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sqliteColumns are the columns of a table of a new export file.
func sqliteColumns(t *testing.T, table string) []string {
	path := filepath.Join(t.TempDir(), "x.sqlite")
	f, err := exportdb.CreateSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
