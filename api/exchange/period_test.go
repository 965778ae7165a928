package exchange_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// entryDoc is a document of one project (key) with one ticket holding one
// Approved time entry on date, approved (the document says) by approver,
// a person the document lists.
func entryDoc(source, key, date, approver string) map[string]any {
	return map[string]any{
		"version": 1, "source": source, "exported_at": "2026-01-02T03:04:05Z",
		"users":     []any{map[string]any{"email": approver, "display_name": "Approver", "role": nil}},
		"workflows": []any{}, "labels": []any{},
		"projects": []any{map[string]any{"key": key, "name": "Ledger",
			"tickets": []any{map[string]any{"number": 1, "title": "Booked work", "status": "Backlog", "priority": "None",
				"reporter": approver, "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z",
				"time_entries": []any{map[string]any{"user": approver, "date": date, "duration_minutes": 480, "activity_type": "Coding",
					"status": "Approved", "approved_by": approver, "approved_at": "2026-01-31T12:00:00Z"}}}}}},
	}
}

// TestImportObeysThePeriodLock: an import never writes a time entry into a
// closed month (409 naming it, nothing written; a close that lands while the
// import runs fails the import, and the batch writes nothing), and records
// an approval as the importing admin's, keeping the document's approver as
// text only.
func TestImportObeysThePeriodLock(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	ctx := context.Background()
	owner := domain.Principal{UserID: f.owner.ID, OrgID: f.a, Scopes: []string{domain.ScopeAll}}
	periods := capex.New(f.env.DB, f.env.Clock)
	closeMonth := func(t *testing.T, month string) {
		t.Helper()
		if _, err := periods.Close(ctx, owner, f.b, month); err != nil {
			t.Fatalf("close %s: %v", month, err)
		}
	}
	count := func(t *testing.T, sql string) int {
		t.Helper()
		var n int
		if err := f.env.DB.Pool.QueryRow(ctx, sql, f.b).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	written := func(t *testing.T) (imports, projects, tickets, entries, users int) {
		t.Helper()
		return count(t, `SELECT count(*) FROM imports WHERE org_id = $1`), count(t, `SELECT count(*) FROM projects WHERE org_id = $1`),
			count(t, `SELECT count(*) FROM tickets WHERE org_id = $1`), count(t, `SELECT count(*) FROM time_entries WHERE org_id = $1`),
			count(t, `SELECT count(*) FROM users WHERE email LIKE '%@source.test' AND $1::uuid IS NOT NULL`)
	}
	path := "/api/v1/import?org_id=" + f.b.String()
	closeMonth(t, "2026-01")

	t.Run("409 naming the closed month, nothing written", func(t *testing.T) {
		r := f.env.Do("POST", path, f.owner.Token, entryDoc("src-closed", "LED", "2026-01-15", "mallory@source.test")).Expect(t, 409)
		e := r.Error()
		if e.Code != "CONFLICT" || !strings.Contains(e.Message, "period 2026-01 is closed") || !strings.Contains(strings.Join(e.Details, ";"), "period: 2026-01") {
			t.Fatalf("409 body %s", r.Body)
		}
		if i, p, tk, te, u := written(t); i+p+tk+te+u != 0 {
			t.Fatalf("refused import wrote %d imports, %d projects, %d tickets, %d entries, %d users", i, p, tk, te, u)
		}
	})

	t.Run("the importing admin approves; the document's approver is text", func(t *testing.T) {
		f.importInto(t, f.b, jsonBody(t, entryDoc("src-open", "OPN", "2026-02-10", "mallory@source.test")))
		var entry uuid.UUID
		var approvedBy *uuid.UUID
		var source *string
		err := f.env.DB.Pool.QueryRow(ctx, `SELECT id, approved_by, source_approved_by FROM time_entries WHERE org_id = $1`, f.b).
			Scan(&entry, &approvedBy, &source)
		if err != nil {
			t.Fatal(err)
		}
		if approvedBy == nil || *approvedBy != f.owner.ID || source == nil || *source != "mallory@source.test" {
			t.Fatalf("approved_by %v, source_approved_by %v: want the importer %s and the document's approver as text", approvedBy, source, f.owner.ID)
		}
	})

	t.Run("an approver the document does not list is text, not an account", func(t *testing.T) {
		doc := entryDoc("src-ghost", "GHO", "2026-04-01", "ann@source.test")
		entries := doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["time_entries"].([]any)
		entries[0].(map[string]any)["approved_by"] = "ghost@elsewhere.test"
		f.importInto(t, f.b, jsonBody(t, doc))
		if n := count(t, `SELECT count(*) FROM users WHERE email = 'ghost@elsewhere.test' AND $1::uuid IS NOT NULL`); n != 0 {
			t.Fatalf("%d accounts made for an approver named only as text", n)
		}
		var source string
		if err := f.env.DB.Pool.QueryRow(ctx, `SELECT te.source_approved_by FROM time_entries te JOIN projects p ON p.id = te.project_id
		    WHERE te.org_id = $1 AND p.key = 'GHO'`, f.b).Scan(&source); err != nil || source != "ghost@elsewhere.test" {
			t.Fatalf("source_approved_by %q, %v", source, err)
		}
		// Both export formats carry it beside the importing approver, so
		// a further import keeps the original approver's name.
		_, docJSON := f.exportJSON(t, f.b, f.owner.Token)
		docSQLite, err := export.ReadSQLite(ctx, f.exportSQLite(t, f.b))
		if err != nil {
			t.Fatal(err)
		}
		for name, d := range map[string]export.Document{"json": docJSON, "sqlite": docSQLite} {
			i := slices.IndexFunc(d.Projects, func(p export.Project) bool { return p.Key == "GHO" })
			if i < 0 || len(d.Projects[i].Tickets) != 1 || len(d.Projects[i].Tickets[0].TimeEntries) != 1 {
				t.Fatalf("%s: project GHO %+v", name, d.Projects)
			}
			e := d.Projects[i].Tickets[0].TimeEntries[0]
			if e.ApprovedBy == nil || *e.ApprovedBy != f.owner.Email || e.SourceApprovedBy == nil || *e.SourceApprovedBy != "ghost@elsewhere.test" {
				t.Fatalf("%s: exported entry %+v", name, e)
			}
		}
	})

	t.Run("a document imported again after its month closed skips what is there", func(t *testing.T) {
		closeMonth(t, "2026-02")
		st := f.importInto(t, f.b, jsonBody(t, entryDoc("src-open", "OPN", "2026-02-10", "mallory@source.test")))
		if st.Summary.TimeEntriesCreated != 0 || st.Progress.TicketsSkipped != 1 {
			t.Fatalf("re-import %+v", st)
		}
		// Under another source, a ticket of the same number created at
		// another time is another ticket: created, with its entry. Refused.
		doc := entryDoc("src-other", "OPN", "2026-02-10", "mallory@source.test")
		doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)["created_at"] = "2026-01-05T00:00:00Z"
		r := f.env.Do("POST", path, f.owner.Token, doc).Expect(t, 409)
		if !strings.Contains(r.Error().Message, "period 2026-02 is closed") {
			t.Fatalf("409 body %s", r.Body)
		}
	})

	t.Run("a close while the import waits fails it and its batch writes nothing", func(t *testing.T) {
		_, _, tickets, entries, _ := written(t)
		r := f.env.Do("POST", path, f.owner.Token, entryDoc("src-race", "RAC", "2026-03-05", "mallory@source.test")).Expect(t, 202)
		id := uuid.MustParse(r.Map(t)["import_id"].(string))
		closeMonth(t, "2026-03")
		st, err := f.runner.RunAll(ctx, id)
		if err == nil {
			t.Fatalf("the import ran into a closed month: %+v", st)
		}
		if err := f.runner.Fail(ctx, id, err.Error()); err != nil { // as the workflow does with a permanent error
			t.Fatal(err)
		}
		var got importer.Status
		f.env.Do("GET", "/api/v1/imports/"+id.String(), f.owner.Token, nil).Expect(t, 200).Decode(t, &got)
		if got.Status != "failed" || len(got.Errors) == 0 || !strings.Contains(got.Errors[0], "period 2026-03 is closed") {
			t.Fatalf("import %+v", got)
		}
		if _, _, tk, te, _ := written(t); tk != tickets || te != entries {
			t.Fatalf("tickets %d → %d, entries %d → %d", tickets, tk, entries, te)
		}
	})
}

func jsonBody(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
