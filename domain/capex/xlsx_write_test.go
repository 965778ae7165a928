package capex

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"
)

// XLSXRows reads sheet back with raw cell values, one string per row
// (exported for the package's external tests).
func XLSXRows(t *testing.T, book []byte, sheet string) (*excelize.File, []string) {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(book), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, ",")
	}
	return f, out
}

// WantXLSXRows checks that sheet holds exactly the rows want (raw values
// joined by commas) and returns the workbook.
func WantXLSXRows(t *testing.T, book []byte, sheet string, want ...string) *excelize.File {
	t.Helper()
	f, rows := XLSXRows(t, book, sheet)
	if got, w := strings.Join(rows, "\n"), strings.Join(want, "\n"); got != w {
		t.Fatalf("%s rows\n%s\nwant\n%s", sheet, got, w)
	}
	return f
}

// CheckXLSXWidths checks the widths of sheet's columns.
func CheckXLSXWidths(t *testing.T, f *excelize.File, sheet string, want map[string]float64) {
	t.Helper()
	for col, w := range want {
		if got, err := f.GetColWidth(sheet, col); err != nil || got != w {
			t.Errorf("%s column %s is %v wide (%v), want %v", sheet, col, got, err, w)
		}
	}
}

// The drill-down workbook holds every entry in order across the reader's
// batches (many full ones, so that a writer that stopped the reader
// without an error would be caught, and a partial last one), typed: the month and the
// dates as serial numbers, text that is not a date as text, a missing rate
// as a blank cell, money in currency units; then the totals row.
func TestEntriesXLSXRows(t *testing.T) {
	period := PeriodOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	const n = 24*entryBatchRows + 88
	entry := func(i int) EntryLine {
		l := EntryLine{EntryID: uuid.UUID{15: byte(i), 14: byte(i >> 8)}, Date: fmt.Sprintf("2026-03-%02d", 1+i%31),
			UserID: uuid.UUID{0: 1}, DisplayName: fmt.Sprintf("E%d", i), TicketRef: fmt.Sprintf("T-%d", i), TicketTitle: "Title",
			ProjectKey: "T", ActivityType: "Coding", DurationMinutes: int64(i + 1), Hours: HoursOf(int64(i + 1)), AmountCents: int64(i * 10),
			CapExOpEx: CapEx}
		if i%2 == 1 {
			r := int64(100 * i)
			l.RateCents = &r
		}
		if i == n-1 {
			l.Date = "someday"
		}
		return l
	}
	var buf bytes.Buffer
	err := writeEntriesXLSX(&buf, period, false, func(fn func(EntryLine) error) error {
		for i := range n {
			if err := fn(entry(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f, rows := XLSXRows(t, buf.Bytes(), "Entries")
	if len(rows) != n+2 {
		t.Fatalf("%d rows, want the header, %d entries and the totals", len(rows), n)
	}
	if rows[0] != strings.Join(EntriesXLSXHeader, ",") {
		t.Fatalf("header %q", rows[0])
	}
	var minutes, amount int64
	for i := range n {
		l := entry(i)
		minutes, amount = minutes+l.DurationMinutes, amount+l.AmountCents
		date, rate := fmt.Sprint(46082+i%31), ""
		if i == n-1 {
			date = "someday"
		}
		if l.RateCents != nil {
			rate = fmt.Sprint(*l.RateCents / 100)
		}
		want := fmt.Sprintf("46082,%s,%s,E%d,%s,T-%d,Title,T,Coding,%d,%s,%s,%s,CapEx", l.EntryID, date, i, l.UserID, i,
			l.DurationMinutes, strings.TrimSuffix(strings.TrimRight(l.Hours.String(), "0"), "."), rate,
			strings.TrimSuffix(strings.TrimRight(Decimal2(l.AmountCents).String(), "0"), "."))
		if rows[i+1] != want {
			t.Fatalf("entry %d: row %q, want %q", i, rows[i+1], want)
		}
	}
	if want := fmt.Sprintf("Total,,,,,,,,,%d,%s,,%s", minutes, strings.TrimRight(strings.TrimRight(HoursOf(minutes).String(), "0"), "."),
		strings.TrimRight(strings.TrimRight(Decimal2(amount).String(), "0"), ".")); rows[n+1] != want {
		t.Fatalf("totals %q, want %q", rows[n+1], want)
	}
	CheckXLSXWidths(t, f, "Entries", map[string]float64{"A": 14, "B": 38, "C": 14, "D": 22, "E": 38, "G": 40, "N": 14})
}

// The amortization workbook: each project's months typed (the placed in
// service date as a serial number, blank when the project is not in
// service), then the Total row with the construction in progress of the
// range's last month; the widths of its wide columns.
func TestWriteAmortXLSX(t *testing.T) {
	placed := "2026-01-15"
	r := AmortReport{From: "2026-01", To: "2026-02",
		Projects: []AmortProject{
			{ProjectKey: "A", ProjectName: "Alpha", AmortizationMonths: 36, PlacedInService: &placed, Months: []AmortMonth{
				{Period: "2026-01", InService: true, CapitalizedCents: 3600, AmortizationCents: 100, AccumulatedAmortizationCents: 100, NetBookValueCents: 3500},
				{Period: "2026-02", InService: true, AmortizationCents: 100, AccumulatedAmortizationCents: 200, NetBookValueCents: 3400}}},
			{ProjectKey: "B", ProjectName: "Beta", AmortizationMonths: 12, Months: []AmortMonth{
				{Period: "2026-01", CapitalizedCents: 250, ConstructionInProgressCents: 250, NetBookValueCents: 250},
				{Period: "2026-02", CapitalizedCents: 50, ConstructionInProgressCents: 300, NetBookValueCents: 300}}},
		},
		Totals: AmortTotals{CapitalizedCents: 3900, AmortizationCents: 200, AccumulatedAmortizationCents: 200, NetBookValueCents: 3700},
		Months: []AmortMonth{{Period: "2026-01", ConstructionInProgressCents: 250}, {Period: "2026-02", ConstructionInProgressCents: 300}},
	}
	var buf bytes.Buffer
	if err := WriteAmortXLSX(&buf, r); err != nil {
		t.Fatal(err)
	}
	f := WantXLSXRows(t, buf.Bytes(), "Amortization",
		strings.Join(AmortXLSXHeader, ","),
		"46023,A,Alpha,36,46037,1,36,1,1,0,35",
		"46054,A,Alpha,36,46037,1,0,1,2,0,34",
		"46023,B,Beta,12,,0,2.5,0,0,2.5,2.5",
		"46054,B,Beta,12,,0,0.5,0,0,3,3",
		"Total,,,,,,39,2,2,3,37")
	CheckXLSXWidths(t, f, "Amortization", map[string]float64{"A": 14, "C": 24, "D": 20, "E": 14, "I": 24, "J": 24, "K": 14})

	// A schedule without months: the header and a Total row of zeros.
	buf.Reset()
	if err := WriteAmortXLSX(&buf, AmortReport{From: "2026-01", To: "2026-01"}); err != nil {
		t.Fatal(err)
	}
	WantXLSXRows(t, buf.Bytes(), "Amortization", strings.Join(AmortXLSXHeader, ","), "Total,,,,,,0,0,0,0,0")
}
