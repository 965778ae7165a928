package exchange_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/store/customfielddb"
)

// TestCustomFieldsRoundTrip: the org's field definitions and the tickets'
// values travel through the JSON and SQLite exports and an import into
// another org (by key; a user by email, a select by its option's name,
// archived options and project-restricted fields too); a document without
// them imports as before, and a value naming no field of the document is
// a 422.
func TestCustomFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 2, TicketsPerProject: 4})
	ctx := context.Background()
	var p1, p2 uuid.UUID
	if err := f.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT id FROM projects WHERE org_id = $1 AND deleted_at IS NULL ORDER BY key LIMIT 1),
		(SELECT id FROM projects WHERE org_id = $1 AND deleted_at IS NULL ORDER BY key DESC LIMIT 1)`, f.a).Scan(&p1, &p2); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	field := func(key, typ string, opts []string, projects ...uuid.UUID) customfielddb.Row {
		r := customfielddb.Row{ID: uuid.New(), OrgID: f.a, Key: key, Name: "Field " + key, Type: typ, Options: []customfielddb.Option{},
			ProjectIDs: projects, CreatedAt: now, UpdatedAt: now}
		for i, o := range opts {
			r.Options = append(r.Options, customfielddb.Option{ID: uuid.New(), Name: o, Archived: i == len(opts)-1 && typ == "select"})
		}
		if err := customfielddb.Insert(ctx, f.env.DB.Pool, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	sev := field("severity", "select", []string{"Low", "High", "Gone"})
	tags := field("areas", "multi_select", []string{"ui", "api", "db"})
	pts := field("story_points", "number", nil)
	ship := field("shipped_on", "date", nil, p2)
	cust := field("customer", "text", nil)
	owner := field("owner", "user", nil)
	flag := field("flag", "checkbox", nil)
	link := field("spec", "url", nil, p1)
	field("unused", "text", nil)

	ticket := func(p uuid.UUID, n int) uuid.UUID {
		var id uuid.UUID
		if err := f.env.DB.Pool.QueryRow(ctx, `SELECT id FROM tickets WHERE project_id = $1 AND ticket_number = $2`, p, n).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	t1, t2, t3 := ticket(p1, 1), ticket(p2, 2), ticket(p2, 3)
	s := func(v string) *string { return &v }
	yes := true
	vals := []customfielddb.Value{
		{TicketID: t1, FieldID: sev.ID, OptionIDs: []uuid.UUID{sev.Options[1].ID}},
		{TicketID: t2, FieldID: sev.ID, OptionIDs: []uuid.UUID{sev.Options[2].ID}}, // archived
		{TicketID: t1, FieldID: tags.ID, OptionIDs: []uuid.UUID{tags.Options[0].ID, tags.Options[2].ID}},
		{TicketID: t1, FieldID: pts.ID, Num: s("5.5")},
		{TicketID: t3, FieldID: pts.ID, Num: s("13")},
		{TicketID: t2, FieldID: ship.ID, Date: s("2026-12-01")},
		{TicketID: t1, FieldID: cust.ID, Text: s("ACME, Inc.")},
		{TicketID: t2, FieldID: owner.ID, User: &f.seeded.Users[1]},
		{TicketID: t3, FieldID: flag.ID, Bool: &yes},
		{TicketID: t1, FieldID: link.ID, Text: s("https://example.com/spec")},
	}
	for i := range vals {
		vals[i].OrgID = f.a
	}
	if err := customfielddb.Put(ctx, f.env.DB.Pool, vals); err != nil {
		t.Fatal(err)
	}

	rawA, docA := f.exportJSON(t, f.a, f.owner.Token)
	if len(docA.Fields) != 9 {
		t.Fatalf("%d fields exported, want 9: %s", len(docA.Fields), rawA)
	}
	var withValues int
	for _, p := range docA.Projects {
		for _, tk := range p.Tickets {
			if len(tk.CustomFields) > 0 {
				withValues++
			}
		}
	}
	for _, want := range []string{`"severity":"High"`, `"severity":"Gone"`, `"areas":["ui","db"]`, `"story_points":5.5`, `"shipped_on":"2026-12-01"`,
		`"owner":"` + f.seeded.Emails[1] + `"`, `"flag":true`, `"customer":"ACME, Inc."`, `"spec":"https://example.com/spec"`} {
		if !strings.Contains(string(rawA), want) {
			t.Fatalf("export lacks %s: %s", want, rawA)
		}
	}
	if withValues != 3 {
		t.Fatalf("%d tickets with values, want 3", withValues)
	}

	docS, err := readSQLite(ctx, f.exportSQLite(t, f.a))
	if err != nil {
		t.Fatal(err)
	}
	if a, s := normalized(t, docA), normalized(t, docS); a != s {
		t.Fatalf("sqlite differs from json:\n%s", firstDiff(a, s))
	}

	f.joinPeople(t, f.b, docA)
	st := f.importInto(t, f.b, rawA)
	_, docB := f.exportJSON(t, f.b, f.owner.Token)
	if a, b := normalized(t, docA), normalized(t, docB); a != b {
		t.Fatalf("round trip differs:\n%s", firstDiff(a, b))
	}
	var defsB, valsB int
	if err := f.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM custom_fields WHERE org_id = $1),
		(SELECT count(*) FROM ticket_custom_values WHERE org_id = $1)`, f.b).Scan(&defsB, &valsB); err != nil {
		t.Fatal(err)
	}
	if defsB != 9 || valsB != len(vals) {
		t.Fatalf("target holds %d definitions and %d values, want 9 and %d", defsB, valsB, len(vals))
	}
	if st.Summary.FieldsCreated != 9 {
		t.Fatalf("summary counts %d definitions created, want 9: %+v", st.Summary.FieldsCreated, st.Summary)
	}

	// A document without fields and values imports as before.
	var doc map[string]any
	if err := json.Unmarshal(rawA, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "fields")
	for _, p := range doc["projects"].([]any) {
		for _, tk := range p.(map[string]any)["tickets"].([]any) {
			delete(tk.(map[string]any), "custom_fields")
		}
	}
	old, _ := json.Marshal(doc)
	org := f.env.Do("POST", "/api/v1/orgs", f.owner.Token, map[string]any{"name": "Old", "slug": "old-" + uuid.NewString()[:8]}).Expect(t, 201).Map(t)
	c := uuid.MustParse(org["id"].(string))
	f.joinPeople(t, c, docA)
	if st := f.importInto(t, c, old); st.Summary.FieldsCreated != 0 {
		t.Fatalf("old document's summary %+v", st.Summary)
	}
	var n int
	if err := f.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM custom_fields WHERE org_id = $1) +
		(SELECT count(*) FROM ticket_custom_values WHERE org_id = $1)`, c).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("old document made %d definitions and values", n)
	}

	// A value of a key the document defines no field of, or of the wrong type.
	doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["custom_fields"] = map[string]any{"nope": 1}
	bad, _ := json.Marshal(doc)
	r := f.env.Do("POST", "/api/v1/import?org_id="+c.String(), f.owner.Token, bad)
	if r.Status != 422 || !strings.Contains(string(r.Body), "custom_fields.nope") {
		t.Fatalf("unknown field: %d %s", r.Status, r.Body)
	}
	var full map[string]any
	_ = json.Unmarshal(rawA, &full)
	full["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["custom_fields"] = map[string]any{"story_points": "many"}
	bad, _ = json.Marshal(full)
	r = f.env.Do("POST", "/api/v1/import?org_id="+c.String(), f.owner.Token, bad)
	if r.Status != 422 || !strings.Contains(string(r.Body), "custom_fields.story_points") {
		t.Fatalf("wrong type: %d %s", r.Status, r.Body)
	}
}

func readSQLite(ctx context.Context, path string) (export.Document, error) {
	return export.ReadSQLite(ctx, path)
}
