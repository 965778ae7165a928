package exchange_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
)

// TestDueEstimateRoundTrip: due_date, estimate and the project's
// estimate_unit travel through the JSON and SQLite exports and an import
// into another org; a document written before they existed imports with
// none (and points).
func TestDueEstimateRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 2, TicketsPerProject: 4})
	ctx := context.Background()
	if _, err := f.env.DB.Pool.Exec(ctx, `UPDATE tickets SET due_date = '2026-12-01', estimate = 2.75 WHERE org_id = $1 AND ticket_number = 1`, f.a); err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.DB.Pool.Exec(ctx, `UPDATE projects SET estimate_unit = 'hours' WHERE org_id = $1`, f.a); err != nil {
		t.Fatal(err)
	}
	rawA, docA := f.exportJSON(t, f.a, f.owner.Token)
	if !strings.Contains(string(rawA), `"due_date":"2026-12-01","estimate":2.75`) || !strings.Contains(string(rawA), `"estimate_unit":"hours"`) {
		t.Fatalf("export lacks the fields: %s", rawA)
	}
	var set int
	for _, p := range docA.Projects {
		for _, tk := range p.Tickets {
			if tk.Estimate != nil {
				set++
				if tk.Estimate.String() != "2.75" || tk.DueDate.String() != "2026-12-01" {
					t.Fatalf("ticket %+v", tk)
				}
			}
		}
	}
	if set != 2 {
		t.Fatalf("%d tickets with an estimate, want 2", set)
	}

	docS, err := export.ReadSQLite(ctx, f.exportSQLite(t, f.a))
	if err != nil {
		t.Fatal(err)
	}
	if a, s := normalized(t, docA), normalized(t, docS); a != s {
		t.Fatalf("sqlite differs from json:\n%s", firstDiff(a, s))
	}

	f.joinPeople(t, f.b, docA)
	f.importInto(t, f.b, rawA)
	_, docB := f.exportJSON(t, f.b, f.owner.Token)
	if a, b := normalized(t, docA), normalized(t, docB); a != b {
		t.Fatalf("round trip differs:\n%s", firstDiff(a, b))
	}

	var doc map[string]any
	if err := json.Unmarshal(rawA, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc["projects"].([]any) {
		delete(p.(map[string]any), "estimate_unit")
		for _, tk := range p.(map[string]any)["tickets"].([]any) {
			delete(tk.(map[string]any), "due_date")
			delete(tk.(map[string]any), "estimate")
		}
	}
	old, _ := json.Marshal(doc)
	org := f.env.Do("POST", "/api/v1/orgs", f.owner.Token, map[string]any{"name": "Old", "slug": "old-" + uuid.NewString()[:8]}).Expect(t, 201).Map(t)
	c := uuid.MustParse(org["id"].(string))
	f.joinPeople(t, c, docA)
	f.importInto(t, c, old)
	var withValue, units int
	if err := f.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM tickets WHERE org_id = $1 AND (due_date IS NOT NULL OR estimate IS NOT NULL)),
		(SELECT count(*) FROM projects WHERE org_id = $1 AND estimate_unit = 'points')`, c).Scan(&withValue, &units); err != nil {
		t.Fatal(err)
	}
	if withValue != 0 || units != 2 {
		t.Fatalf("old document: %d tickets with values, %d projects in points", withValue, units)
	}

	doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["estimate"] = -1
	bad, _ := json.Marshal(doc)
	r := f.env.Do("POST", "/api/v1/import?org_id="+c.String(), f.owner.Token, bad)
	if r.Status != 422 || !strings.Contains(string(r.Body), "estimate") {
		t.Fatalf("negative estimate: %d %s", r.Status, r.Body)
	}
}
