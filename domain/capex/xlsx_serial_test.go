package capex

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// dateSerial is the number excelize writes for the same time.Time: every
// day around the missing 29 February 1900 and across four centuries, read
// back from a workbook excelize wrote with the times themselves; any other
// time is left to excelize.
func TestDateSerial(t *testing.T) {
	var days []time.Time
	for d := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 1901; d = d.AddDate(0, 0, 1) {
		days = append(days, d)
	}
	for d := time.Date(1901, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2400; d = d.AddDate(0, 0, 13) {
		days = append(days, d)
	}
	days = append(days, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))

	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range days {
		ref, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := sw.SetRow(ref, []any{excelize.Cell{StyleID: 1, Value: d}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	rows, err := back.GetRows("Sheet1", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, d := range days {
		s, ok := dateSerial(d)
		if d.Before(time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)) {
			if ok {
				t.Errorf("%s: serial %v, want it left to excelize", d.Format(time.DateOnly), s)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no serial", d.Format(time.DateOnly))
			continue
		}
		if got := strconv.FormatFloat(s, 'f', -1, 64); got != rows[i][0] {
			t.Errorf("%s: serial %s, excelize writes %s", d.Format(time.DateOnly), got, rows[i][0])
		}
		checked++
	}
	if checked < 11000 {
		t.Fatalf("only %d days checked", checked)
	}
	for _, d := range []time.Time{
		time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),                   // a time of day
		time.Date(2026, 3, 1, 0, 0, 0, 1, time.UTC),                    // a nanosecond past midnight
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)), // another zone
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("UTC0", 0)),   // not time.UTC
	} {
		if s, ok := dateSerial(d); ok {
			t.Errorf("%v: serial %v, want it left to excelize", d, s)
		}
		if _, isTime := dateCellValue(d).(time.Time); !isTime {
			t.Errorf("%v: cell value not the time", d)
		}
	}
}
