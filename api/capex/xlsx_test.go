package capex_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"tracker/domain/capex"
)

// xcell is one cell read back from a workbook: its type, raw value, number
// format and boldness.
type xcell struct {
	Type excelize.CellType
	Raw  string
	Fmt  string
	Bold bool
}

// sheet is a workbook's only sheet read back with excelize: every row, and
// the frozen panes.
type sheet struct {
	name  string
	rows  [][]xcell
	panes excelize.Panes
}

// readXLSX checks the download's headers and reads the workbook back.
func readXLSX(t *testing.T, body []byte, header map[string][]string, filename string) sheet {
	t.Helper()
	if ct := strings.Join(header["Content-Type"], ""); ct != capex.XLSXContentType {
		t.Fatalf("content type %q", ct)
	}
	if cd := strings.Join(header["Content-Disposition"], ""); cd != `attachment; filename="`+filename+`"` {
		t.Fatalf("content disposition %q", cd)
	}
	return parseXLSX(t, body)
}

func parseXLSX(t *testing.T, body []byte) sheet {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	defer f.Close()
	names := f.GetSheetList()
	if len(names) != 1 {
		t.Fatalf("sheets %v", names)
	}
	s := sheet{name: names[0]}
	if s.panes, err = f.GetPanes(s.name); err != nil {
		t.Fatal(err)
	}
	all, err := f.GetRows(s.name, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	lastRow, lastCol := len(all), 0
	for _, r := range all {
		lastCol = max(lastCol, len(r))
	}
	for r := 1; r <= lastRow; r++ {
		var row []xcell
		for c := 1; c <= lastCol; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, r)
			var x xcell
			if x.Type, err = f.GetCellType(s.name, ref); err != nil {
				t.Fatal(err)
			}
			if x.Raw, err = f.GetCellValue(s.name, ref, excelize.Options{RawCellValue: true}); err != nil {
				t.Fatal(err)
			}
			id, err := f.GetCellStyle(s.name, ref)
			if err != nil {
				t.Fatal(err)
			}
			if id != 0 {
				st, err := f.GetStyle(id)
				if err != nil {
					t.Fatal(err)
				}
				if st.CustomNumFmt != nil {
					x.Fmt = *st.CustomNumFmt
				}
				x.Bold = st.Font != nil && st.Font.Bold
			}
			row = append(row, x)
		}
		s.rows = append(s.rows, row)
	}
	return s
}

// The expected cells.
func text(s string) xcell { return xcell{Type: excelize.CellTypeInlineString, Raw: s} }
func blank() xcell        { return xcell{Type: excelize.CellTypeUnset} }
func money(cents int64) xcell {
	return xcell{Type: excelize.CellTypeUnset, Raw: strconv.FormatFloat(float64(cents)/100, 'f', -1, 64), Fmt: capex.XLSXMoneyFormat}
}
func dec2(d capex.Decimal2) xcell {
	return xcell{Type: excelize.CellTypeUnset, Raw: strconv.FormatFloat(float64(d)/100, 'f', -1, 64), Fmt: capex.XLSXDec2Format}
}
func integer(n int64) xcell {
	return xcell{Type: excelize.CellTypeUnset, Raw: strconv.FormatInt(n, 10), Fmt: capex.XLSXIntFormat}
}
func boolean(b bool) xcell {
	raw := "0"
	if b {
		raw = "1"
	}
	return xcell{Type: excelize.CellTypeBool, Raw: raw}
}
func day(s string) xcell   { return dateCell(s, "2006-01-02", capex.XLSXDateFormat) }
func month(s string) xcell { return dateCell(s, "2006-01", capex.XLSXMonthFormat) }
func dateCell(s, layout, format string) xcell {
	t, err := time.Parse(layout, s)
	if err != nil {
		panic(err)
	}
	// The serial number of the day (days since 1899-12-30).
	serial := t.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24
	return xcell{Type: excelize.CellTypeUnset, Raw: strconv.FormatFloat(serial, 'f', -1, 64), Fmt: format}
}

// bold is c in the totals row.
func bold(c xcell) xcell {
	if c.Type != excelize.CellTypeUnset || c.Raw != "" {
		c.Bold = true
	}
	return c
}

// checkLayout: the bold header, panes frozen under it, a bold Total row.
func checkLayout(t *testing.T, s sheet, header []string) {
	t.Helper()
	if len(s.rows) < 2 {
		t.Fatalf("%d rows", len(s.rows))
	}
	for i, h := range header {
		if got := s.rows[0][i]; got != (xcell{Type: excelize.CellTypeInlineString, Raw: h, Bold: true}) {
			t.Errorf("header %d: %+v, want bold %q", i, got, h)
		}
	}
	if p := s.panes; !p.Freeze || p.YSplit != 1 || p.XSplit != 0 || p.TopLeftCell != "A2" {
		t.Errorf("panes %+v, want frozen under row 1", p)
	}
	if last := s.rows[len(s.rows)-1][0]; last != (xcell{Type: excelize.CellTypeInlineString, Raw: "Total", Bold: true}) {
		t.Errorf("last row starts %+v, want bold Total", last)
	}
}

// compareRow compares one row cell by cell.
func compareRow(t *testing.T, what string, got, want []xcell) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d cells, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if w := want[i]; w.Type == excelize.CellTypeUnset && w.Raw == "" {
			// A blank cell: no value (its column's style may remain).
			if got[i].Raw != "" || got[i].Type != excelize.CellTypeUnset {
				t.Errorf("%s col %d: %+v, want blank", what, i+1, got[i])
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("%s col %d: %+v, want %+v", what, i+1, got[i], want[i])
		}
	}
}

// TestCapitalizationXLSX: the export's XLSX has the CSV's rows as typed
// cells whose numbers are the report's JSON numbers, and its totals are the
// report's; a closed month's XLSX comes from the snapshot.
func TestCapitalizationXLSX(t *testing.T) {
	t.Parallel()
	w := setup(t)
	// Names that tell the rows apart (the export has no user id column).
	w.exec(t, `UPDATE users SET display_name = 'Ann' WHERE id = $1`, w.ann.ID)
	w.exec(t, `UPDATE users SET display_name = 'Bob' WHERE id = $1`, w.bob.ID)
	get := func(query string) sheet {
		r := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+query, w.owner.Token, nil).Expect(t, 200)
		return readXLSX(t, r.Body, r.Header, "capitalization-2026-03.xlsx")
	}
	csvRows := func(query string) [][]string {
		r := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+query, w.owner.Token, nil).Expect(t, 200)
		recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	// want builds the expected sheet from the JSON report grouped by user
	// (its breakdown is the export's grain) and the CSV's text columns.
	want := func(query string) [][]xcell {
		var byUser capex.Report
		w.report(t, w.owner, query+"&group_by=user&include_budget=true", 200).Decode(t, &byUser)
		type key struct{ project, user, activity string }
		lines := map[key]capex.ActivityLine{}
		budgets := map[string]*capex.BudgetFields{}
		for _, u := range *byUser.Users {
			for _, p := range u.Projects {
				budgets[p.ProjectKey] = p.BudgetFields
				for _, a := range p.Breakdown {
					lines[key{p.ProjectKey, u.DisplayName, a.ActivityType}] = a
				}
			}
		}
		var out [][]xcell
		recs := csvRows(query)
		for _, rec := range recs[1:] {
			a, ok := lines[key{rec[2], rec[3], rec[7]}]
			if !ok {
				t.Fatalf("CSV row %v not in the JSON report", rec)
			}
			delete(lines, key{rec[2], rec[3], rec[7]})
			row := []xcell{month(rec[0])}
			for _, s := range rec[1:6] {
				row = append(row, textOrBlank(s))
			}
			row = append(row, dec2(a.Hours))
			for _, s := range rec[7:10] {
				row = append(row, textOrBlank(s))
			}
			row = append(row, moneyOf(t, rec[10]), money(a.AmountCents), textOrBlank(rec[12]), textOrBlank(rec[13]))
			b := budgets[rec[2]]
			if b == nil || b.BudgetCents == nil {
				row = append(row, blank(), blank(), blank())
			} else {
				row = append(row, money(*b.BudgetCents), money(*b.SpentCents), dec2(*b.BudgetUtilizationPct))
			}
			out = append(out, row)
		}
		if len(lines) != 0 {
			t.Fatalf("JSON lines missing from the CSV: %v", lines)
		}
		total := make([]xcell, len(capex.XLSXHeader))
		for i := range total {
			total[i] = blank()
		}
		total[0], total[6], total[11] = text("Total"), dec2(byUser.TotalHours), money(byUser.TotalAmountCents)
		for i := range total {
			total[i] = bold(total[i])
		}
		return append(out, total)
	}
	check := func(t *testing.T, query string) sheet {
		t.Helper()
		s := get(query + "&format=xlsx")
		checkLayout(t, s, capex.XLSXHeader)
		if s.name != "Capitalization" {
			t.Errorf("sheet %q", s.name)
		}
		exp := want(query)
		if len(s.rows) != 1+len(exp) {
			t.Fatalf("%d rows, want %d", len(s.rows), 1+len(exp))
		}
		for i, row := range exp {
			compareRow(t, fmt.Sprintf("row %d", i+2), s.rows[i+1], row)
		}
		return s
	}
	whole := check(t, q("period", "2026-03"))
	// Spot checks on the fixture's numbers: CORE, Ann, Coding: 2.00 h at
	// 100.00 = 200.00; the month's total 50000 cents over 6.00 h.
	if r := whole.rows[1]; r[1] != text("Core") || r[3].Raw == "" || r[6] != dec2(200) || r[11] != money(20000) || r[14] != money(100000) {
		t.Errorf("first row %+v", r)
	}
	if r := whole.rows[len(whole.rows)-1]; r[11].Raw != "500" || r[6].Raw != "6" {
		t.Errorf("totals %+v", r)
	}
	check(t, q("period", "2026-03", "tag", "env:prod"))
	check(t, q("period", "2026-03", "user_id", w.bob.ID.String()))

	if r := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "format", "pdf"), w.owner.Token, nil).Expect(t, 422); !strings.Contains(r.Error().Message+fmt.Sprint(r.Error().Details), "xlsx") {
		t.Errorf("format error %s", r.Body)
	}
	w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "format", "xlsx", "org_id", w.owner.OrgID.String()), w.member.Token, nil).Expect(t, 403)

	t.Run("closed month: from the snapshot", func(t *testing.T) {
		before := get(q("period", "2026-03", "format", "xlsx"))
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201)
		// A rate that would reprice March and a phase change that would
		// turn CORE into OpEx: the closed month's XLSX does not move.
		w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.ann.ID, "org_id": w.owner.OrgID,
			"loaded_rate_cents": 20000, "effective_date": "2026-02-15"}).Expect(t, 201)
		w.exec(t, `UPDATE projects SET development_phase = 'Preliminary', name = 'Renamed' WHERE id = $1`, w.core)
		after := check(t, q("period", "2026-03")) // still equal to the (snapshot) JSON and CSV
		if !reflect.DeepEqual(before.rows, after.rows) {
			t.Fatalf("the closed month's XLSX changed:\n%v\n%v", before.rows, after.rows)
		}
		check(t, q("period", "2026-03", "tag", "env:prod"))
	})
}

func textOrBlank(s string) xcell {
	if s == "" {
		return blank()
	}
	return text(s)
}

// moneyOf reads a CSV amount ("120.00"; "" is blank).
func moneyOf(t *testing.T, s string) xcell {
	t.Helper()
	if s == "" {
		return blank()
	}
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || len(frac) != 2 {
		t.Fatalf("amount %q", s)
	}
	return money(n)
}

// TestEntriesXLSX: the drill-down's XLSX has one typed row per JSON item,
// cell for cell, and a totals row equal to the JSON totals.
func TestEntriesXLSX(t *testing.T) {
	t.Parallel()
	w := setup(t)
	check := func(t *testing.T, query string) {
		t.Helper()
		var items []capex.EntryLine
		var first entriesPage
		for p, cursor := (entriesPage{}), ""; ; {
			qq := query + "&limit=2"
			if cursor != "" {
				qq += "&cursor=" + cursor
			}
			p = w.entries(t, qq)
			if cursor == "" {
				first = p
			}
			items = append(items, p.Items...)
			if !p.HasMore {
				break
			}
			cursor = *p.NextCursor
		}
		r := w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+query+"&format=xlsx", w.owner.Token, nil).Expect(t, 200)
		s := readXLSX(t, r.Body, r.Header, "capitalization-entries-"+first.Period+".xlsx")
		checkLayout(t, s, capex.EntriesXLSXHeader)
		if len(s.rows) != 2+len(items) || int64(len(items)) != first.TotalEntries {
			t.Fatalf("%d rows for %d entries (total_entries %d)", len(s.rows), len(items), first.TotalEntries)
		}
		var minutes int64
		for i, it := range items {
			rate := blank()
			if it.RateCents != nil {
				rate = money(*it.RateCents)
			}
			minutes += it.DurationMinutes
			compareRow(t, "entry "+it.EntryID.String(), s.rows[i+1], []xcell{month(first.Period), text(it.EntryID.String()),
				day(it.Date), text(it.DisplayName), text(it.UserID.String()), text(it.TicketRef), text(it.TicketTitle),
				text(it.ProjectKey), text(it.ActivityType), integer(it.DurationMinutes), dec2(it.Hours), rate,
				money(it.AmountCents), text(it.CapExOpEx)})
		}
		total := []xcell{text("Total"), blank(), blank(), blank(), blank(), blank(), blank(), blank(), blank(),
			integer(minutes), dec2(first.TotalHours), blank(), money(first.TotalAmountCents), blank()}
		for i := range total {
			total[i] = bold(total[i])
		}
		compareRow(t, "totals", s.rows[len(s.rows)-1], total)
	}
	check(t, q("period", "2026-03"))
	check(t, q("period", "2026-03", "project_id", w.core.String()))
	check(t, q("period", "2026-02"))
	check(t, q("period", "2025-01")) // no entries: header and a zero totals row

	org := w.owner.OrgID.String()
	w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "org_id", org, "format", "xlsx"), w.member.Token, nil).Expect(t, 403)
	w.env.Do("GET", "/api/v1/reports/capitalization/entries?"+q("period", "2026-03", "org_id", org, "format", "xlsx"), w.outsider.Token, nil).Expect(t, 404)

	// A closed month's XLSX is the snapshot's, as its JSON is.
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201)
	w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.ann.ID, "org_id": org,
		"loaded_rate_cents": 20000, "effective_date": "2026-02-15"}).Expect(t, 201)
	w.exec(t, `UPDATE projects SET development_phase = 'Preliminary' WHERE id = $1`, w.core)
	if e := w.entries(t, q("period", "2026-03")); e.Close == nil || e.TotalAmountCents != 50000 || e.CapExAmountCents != 36000 {
		t.Fatalf("closed drill-down %+v", e.Totals)
	}
	check(t, q("period", "2026-03"))
}

// TestAmortizationXLSX: the schedule's XLSX has the JSON's months as typed
// cells and its Total row.
func TestAmortizationXLSX(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.exec(t, `UPDATE projects SET amortization_months = 7, placed_in_service = '2026-02-20' WHERE id = $1`, w.core)
	for _, query := range []string{q("from", "2026-01", "to", "2026-12"), q("from", "2026-05", "to", "2026-06", "project_id", w.core.String())} {
		rep := w.amort(t, query, 200)
		r := w.env.Do("GET", "/api/v1/reports/amortization?"+query+"&format=xlsx", w.owner.Token, nil).Expect(t, 200)
		s := readXLSX(t, r.Body, r.Header, "amortization-"+rep.From+"-"+rep.To+".xlsx")
		checkLayout(t, s, capex.AmortXLSXHeader)
		var want [][]xcell
		for _, p := range rep.Projects {
			for _, m := range p.Months {
				want = append(want, []xcell{month(m.Period), text(p.ProjectKey), text(p.ProjectName), integer(p.AmortizationMonths),
					day(*p.PlacedInService), boolean(m.InService), money(m.CapitalizedCents), money(m.AmortizationCents),
					money(m.AccumulatedAmortizationCents), money(m.ConstructionInProgressCents), money(m.NetBookValueCents)})
			}
		}
		if len(want) == 0 || len(s.rows) != 2+len(want) {
			t.Fatalf("%d rows for %d months", len(s.rows), len(want))
		}
		for i, row := range want {
			compareRow(t, fmt.Sprintf("row %d", i+2), s.rows[i+1], row)
		}
		tt := rep.Totals
		total := []xcell{text("Total"), blank(), blank(), blank(), blank(), blank(), money(tt.CapitalizedCents), money(tt.AmortizationCents),
			money(tt.AccumulatedAmortizationCents), money(rep.Months[len(rep.Months)-1].ConstructionInProgressCents), money(tt.NetBookValueCents)}
		for i := range total {
			total[i] = bold(total[i])
		}
		compareRow(t, "totals", s.rows[len(s.rows)-1], total)
	}
	// October's remainder: 51.48 as the number 51.48.
	s := parseXLSX(t, w.env.Do("GET", "/api/v1/reports/amortization?"+q("from", "2026-10", "to", "2026-10", "format", "xlsx"), w.owner.Token, nil).Expect(t, 200).Body)
	if c := s.rows[1][7]; c.Raw != "51.48" || c.Fmt != capex.XLSXMoneyFormat {
		t.Fatalf("October expense %+v", c)
	}
}
