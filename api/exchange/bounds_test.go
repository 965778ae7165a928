package exchange_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// An import document gets the caps of a request body: text at most 100,000
// characters, names at most 255, money within ±10^15 cents, dates and times
// within years 1900-9999. One field over a cap refuses the whole import with
// a 422 naming its path, and nothing is imported.
func TestImportBoundsAreCapped(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	path := "/api/v1/import?org_id=" + f.b.String()
	text := func(n int) string { return strings.Repeat("é", n) }
	project := func(doc map[string]any) map[string]any { return doc["projects"].([]any)[0].(map[string]any) }
	ticket := func(doc map[string]any) map[string]any { return project(doc)["tickets"].([]any)[0].(map[string]any) }

	for want, edit := range map[string]func(doc map[string]any){
		"projects[0].tickets[0].description: must be at most 100000 characters": func(d map[string]any) { ticket(d)["description"] = text(100_001) },
		"projects[0].tickets[0].comments[0].body: must be at most 100000 characters": func(d map[string]any) {
			ticket(d)["comments"].([]any)[0].(map[string]any)["body"] = text(100_001)
		},
		"source: must be at most 100000 characters":                   func(d map[string]any) { d["source"] = text(100_001) },
		"labels[0].name: must be at most 255 characters":              func(d map[string]any) { d["labels"].([]any)[0].(map[string]any)["name"] = text(256) },
		"workflows[0].name: must be at most 255 characters":           func(d map[string]any) { d["workflows"].([]any)[0].(map[string]any)["name"] = text(256) },
		"projects[0].sprints[0].name: must be at most 255 characters": func(d map[string]any) { project(d)["sprints"].([]any)[0].(map[string]any)["name"] = text(256) },
		"projects[0].budget_cents: must be between -10^15 and 10^15":  func(d map[string]any) { project(d)["budget_cents"] = int64(1e15) + 1 },
		"projects[0].sprints[0].start_date: must be a date between years 1900 and 9999": func(d map[string]any) {
			project(d)["sprints"].([]any)[0].(map[string]any)["start_date"] = "1899-12-31"
		},
		"projects[0].tickets[0].time_entries[0].date: must be a date between years 1900 and 9999": func(d map[string]any) {
			ticket(d)["time_entries"].([]any)[0].(map[string]any)["date"] = "1899-12-31"
		},
		"projects[0].tickets[0].created_at: must be a time between years 1900 and 9999": func(d map[string]any) {
			ticket(d)["created_at"] = "0800-01-02T00:00:00Z"
		},
	} {
		doc := smallDoc("ann@example.test")
		edit(doc)
		r := f.env.Do("POST", path, f.owner.Token, doc).Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Contains(e.Details, want) {
			t.Errorf("%s: got %q", want, r.Body[:min(len(r.Body), 400)])
		}
	}

	// At the caps exactly, the same document imports.
	doc := smallDoc("ann@example.test")
	ticket(doc)["description"] = text(100_000)
	doc["labels"].([]any)[0].(map[string]any)["name"] = text(255)
	ticket(doc)["labels"] = []any{text(255)}
	project(doc)["budget_cents"] = int64(1e15)
	project(doc)["sprints"].([]any)[0].(map[string]any)["start_date"] = "1900-01-01"

	// Nothing of the refused documents reached the target org.
	if _, d := f.exportJSON(t, f.b, f.owner.Token); len(d.Projects) != 0 {
		t.Fatalf("refused imports left %d projects", len(d.Projects))
	}
	raw, _ := json.Marshal(doc)
	if st := f.importInto(t, f.b, raw); st.Summary.TicketsCreated != 1 {
		t.Fatalf("at the caps: %+v", st.Summary)
	}
}

// A ticket of an import document has at most importer.MaxCommentsPerTicket
// comments: one more refuses the import with a 422 naming the ticket and
// the cap, and nothing is imported; at the cap the ticket imports with
// every comment, found by a word of its comments.
func TestImportCommentsPerTicketAreCapped(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	const email = "ann@example.test"
	withComments := func(n int) map[string]any {
		doc := smallDoc(email)
		cs := make([]any, n)
		for i := range cs {
			cs[i] = map[string]any{"author": email, "body": fmt.Sprintf("comment %d on the frobnicator", i)}
		}
		doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["comments"] = cs
		return doc
	}

	r := f.env.Do("POST", "/api/v1/import?org_id="+f.b.String(), f.owner.Token, withComments(importer.MaxCommentsPerTicket+1)).Expect(t, 422)
	want := fmt.Sprintf("projects[0].tickets[0].comments: ticket SM-1 has %d comments; at most %d per ticket",
		importer.MaxCommentsPerTicket+1, importer.MaxCommentsPerTicket)
	if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Equal(e.Details, []string{want}) {
		t.Fatalf("over the cap: %.600s", r.Body)
	}
	if _, d := f.exportJSON(t, f.b, f.owner.Token); len(d.Projects) != 0 {
		t.Fatalf("a refused import left %d projects", len(d.Projects))
	}

	raw, _ := json.Marshal(withComments(importer.MaxCommentsPerTicket))
	if st := f.importInto(t, f.b, raw); st.Summary.TicketsCreated != 1 || st.Summary.CommentsCreated != importer.MaxCommentsPerTicket {
		t.Fatalf("at the cap: %+v", st.Summary)
	}
	var found int
	if err := f.env.DB.Q().QueryRow(context.Background(), `SELECT count(*) FROM tickets
	    WHERE org_id = $1 AND search_vector @@ to_tsquery('english', 'frobnicator')`, f.b).Scan(&found); err != nil || found != 1 {
		t.Fatalf("tickets found by a comment word: %d, %v", found, err)
	}
}
