package capex_test

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/capex"
)

type entriesPage struct {
	capex.Entries
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

func (w *world) entries(t *testing.T, query string) entriesPage {
	t.Helper()
	var p entriesPage
	w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+query, w.owner.Token, nil).Expect(t, 200).Decode(t, &p)
	return p
}

// TestDrillDownEntries: the entries behind a report line add up to it,
// priced and classified as the report does; pages, filters, the per-person
// capitalized share, the CSV, access, and a closed month's frozen numbers.
func TestDrillDownEntries(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()

	// CORE's line: three entries, 36000 CapEx, each priced at the rate of
	// its date.
	var rep capex.Report
	w.report(t, w.owner, q("period", "2026-03"), 200).Decode(t, &rep)
	var coreLine capex.ProjectReport
	for _, p := range *rep.Projects {
		if p.ProjectKey == "CORE" {
			coreLine = p
		}
	}
	core := w.entries(t, q("period", "2026-03", "project_id", w.core.String()))
	if core.TotalAmountCents != coreLine.TotalAmountCents || core.TotalAmountCents != 36000 || core.CapExAmountCents != 36000 ||
		core.TotalEntries != 3 || len(core.Items) != 3 || core.HasMore || core.ProjectID == nil || *core.ProjectID != w.core ||
		core.TotalHours != coreLine.TotalHours || core.Users != nil {
		t.Fatalf("CORE drill-down %+v, report line %+v", core, coreLine)
	}
	var sum int64
	type want struct {
		user    uuid.UUID
		date    string
		minutes int64
		rate    int64
		amount  int64
		act     string
	}
	wants := map[string]want{
		"2026-03-02": {w.ann.ID, "2026-03-02", 120, 10000, 20000, "Coding"},
		"2026-03-03": {w.ann.ID, "2026-03-03", 60, 10000, 10000, "CodeReview"},
		"2026-03-04": {w.bob.ID, "2026-03-04", 60, 6000, 6000, "Coding"},
	}
	for _, it := range core.Items {
		wt, ok := wants[it.Date]
		if !ok || it.UserID != wt.user || it.DurationMinutes != wt.minutes || it.RateCents == nil || *it.RateCents != wt.rate ||
			it.AmountCents != wt.amount || it.ActivityType != wt.act || it.CapExOpEx != "CapEx" || it.TicketRef != "CORE-1" ||
			it.TicketTitle != "Ticket" || it.TicketID != w.coreT.ID || it.ProjectKey != "CORE" || it.DisplayName == "" {
			t.Errorf("entry %+v, want %+v", it, wt)
		}
		sum += it.AmountCents
	}
	if sum != coreLine.TotalAmountCents {
		t.Fatalf("entries sum to %d, the line says %d", sum, coreLine.TotalAmountCents)
	}

	// Every entry of the month, in pages; include_users: each person's
	// capitalized share of their amount.
	all := w.entries(t, q("period", "2026-03", "include_users", "true", "limit", "2"))
	if all.TotalEntries != 5 || all.TotalAmountCents != 50000 || all.CapExAmountCents != 36000 || all.OpExAmountCents != 14000 ||
		len(all.Items) != 2 || !all.HasMore || all.NextCursor == nil || all.Users == nil || len(*all.Users) != 2 {
		t.Fatalf("page 1 %+v", all)
	}
	for _, u := range *all.Users {
		switch {
		case u.UserID == w.ann.ID && u.TotalAmountCents == 35000 && u.CapExAmountCents == 30000 && u.OpExAmountCents == 5000 &&
			u.CapExPct != nil && u.CapExPct.String() == "85.71" && u.TotalHours.String() == "3.50":
		case u.UserID == w.bob.ID && u.TotalAmountCents == 15000 && u.CapExAmountCents == 6000 && u.CapExPct != nil &&
			u.CapExPct.String() == "40.00" && u.TotalHours.String() == "2.50":
		default:
			t.Errorf("user share %+v", u)
		}
	}
	seen := map[uuid.UUID]bool{}
	for p := all; ; {
		for _, it := range p.Items {
			if seen[it.EntryID] {
				t.Fatalf("entry %s twice", it.EntryID)
			}
			seen[it.EntryID] = true
		}
		if !p.HasMore {
			break
		}
		p = w.entries(t, q("period", "2026-03", "limit", "2", "cursor", *p.NextCursor))
	}
	if len(seen) != 5 {
		t.Fatalf("%d entries over the pages", len(seen))
	}

	// The report's filters apply: Bob's entries; tag env:prod (CORE, INFRA).
	if bob := w.entries(t, q("period", "2026-03", "user_id", w.bob.ID.String())); bob.TotalEntries != 2 || len(bob.Items) != 2 || bob.TotalAmountCents != 15000 {
		t.Fatalf("bob %+v", bob)
	}
	if prod := w.entries(t, q("period", "2026-03", "tag", "env:prod")); prod.TotalEntries != 4 || len(prod.Items) != 4 || prod.TotalAmountCents != 45000 {
		t.Fatalf("env:prod %+v", prod)
	}
	if feb := w.entries(t, q("period", "2026-02", "project_id", w.legacy.String())); len(feb.Items) != 1 || feb.Items[0].CapExOpEx != "OpEx" ||
		feb.Items[0].TicketRef != "LEGACY-1" || feb.Items[0].AmountCents != 100000 {
		t.Fatalf("February %+v", feb)
	}

	// CSV: every entry, one row each, money in currency units.
	r := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "format", "csv"), w.owner.Token, nil).Expect(t, 200)
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="capitalization-entries-2026-03.csv"` ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("headers %v", r.Header)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
	if err != nil || len(rows) != 6 || strings.Join(rows[0], ",") != strings.Join(capex.EntriesCSVHeader, ",") {
		t.Fatalf("csv %v %v", rows, err)
	}
	found := false
	for _, row := range rows[1:] {
		if row[2] == "2026-03-03" {
			found = true
			if row[0] != "2026-03" || row[4] != w.ann.ID.String() || row[5] != "CORE-1" || row[6] != "Ticket" || row[7] != "CORE" ||
				row[8] != "CodeReview" || row[9] != "60" || row[10] != "1.00" || row[11] != "100.00" || row[12] != "100.00" || row[13] != "CapEx" {
				t.Fatalf("csv row %v", row)
			}
		}
	}
	if !found || !strings.HasSuffix(string(r.Body), "\r\n") {
		t.Fatalf("csv %q", r.Body)
	}

	// Access as the report's: Admin; the outsider sees nothing.
	path := "/api/v1/reports/capitalization/entries?" + q("period", "2026-03", "org_id", org)
	if r := w.env.Do("GET", path, w.admin.Token, nil).Expect(t, 200).Map(t); r["total_entries"] != float64(5) {
		t.Fatalf("admin %v", r)
	}
	w.env.Do("GET", path, w.member.Token, nil).Expect(t, 403)
	w.env.Do("GET", path, w.viewer.Token, nil).Expect(t, 403)
	w.env.Do("GET", path, w.outsider.Token, nil).Expect(t, 404)
	for _, bad := range []string{q("period", "2026-3"), q(), q("period", "2026-03", "project_id", "nope"),
		q("period", "2026-03", "format", "pdf"), q("period", "2026-03", "cursor", "zzz")} {
		w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+bad, w.owner.Token, nil).Expect(t, 422)
	}

	// A closed month: the entries come from the snapshot, priced and
	// classified as at close, whatever changed since.
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201)
	w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.ann.ID, "org_id": org,
		"loaded_rate_cents": 20000, "effective_date": "2026-02-15"}).Expect(t, 201)
	if _, err := w.env.DB.Pool.Exec(context.Background(), `UPDATE projects SET development_phase = 'Preliminary' WHERE id = $1`, w.core); err != nil {
		t.Fatal(err)
	}
	frozen := w.entries(t, q("period", "2026-03", "project_id", w.core.String()))
	if frozen.Close == nil || frozen.TotalAmountCents != 36000 || frozen.CapExAmountCents != 36000 || len(frozen.Items) != 3 {
		t.Fatalf("closed %+v", frozen)
	}
	for _, it := range frozen.Items {
		if it.CapExOpEx != "CapEx" || it.AmountCents != wants[it.Date].amount {
			t.Fatalf("closed entry %+v", it)
		}
	}
	if open := w.entries(t, q("period", "2026-02", "project_id", w.legacy.String())); open.Close != nil || open.Items[0].AmountCents != 100000 {
		t.Fatalf("February stays live %+v", open)
	}
	// A rate effective on the entry's own date prices it, in pages and in
	// the CSV alike (they read rates differently), as in the report.
	w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.ann.ID, "org_id": org,
		"loaded_rate_cents": 15000, "effective_date": "2026-02-10"}).Expect(t, 201)
	feb := w.entries(t, q("period", "2026-02"))
	if len(feb.Items) != 1 || feb.Items[0].AmountCents != 150000 || *feb.Items[0].RateCents != 15000 || feb.TotalAmountCents != 150000 {
		t.Fatalf("February repriced %+v", feb)
	}
	r = w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-02", "format", "csv"), w.owner.Token, nil).Expect(t, 200)
	if rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll(); err != nil || len(rows) != 2 || rows[1][11] != "150.00" || rows[1][12] != "1500.00" {
		t.Fatalf("February CSV %v %v", rows, err)
	}
}
