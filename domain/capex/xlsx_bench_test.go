package capex

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"tracker/internal/heappeak"
)

// The drill-down XLSX's writer without the database: b.N workbooks of
// benchRows entries each, to io.Discard. BenchmarkXLSXStreamAlone is
// excelize's StreamWriter alone on the same cells (one prebuilt row slice,
// styles made once) with excelize's defaults: time.Time dates and the
// standard library's default deflate, on one goroutine: the floor this
// package's writer is measured against. With the dates as serial numbers,
// klauspost's level 1 in parallel and the cells prepared on the reader's
// goroutine, the writer takes less (figures in docs/performance.md).
// go test -run '^$' -bench XLSX -benchmem ./domain/capex/

const benchRows = 100_000

func benchEntry(i int) EntryLine {
	rate := int64(9000 + i%50*100)
	m := int64(5 + i%476)
	return EntryLine{EntryID: uuid.New(), Date: fmt.Sprintf("2026-03-%02d", 1+i%31), UserID: uuid.New(),
		DisplayName: fmt.Sprintf("Engineer %d", i%50), TicketRef: fmt.Sprintf("B%d-%d", i%100, i%10),
		TicketTitle: "Bench ticket", ProjectKey: fmt.Sprintf("B%d", i%100), ActivityType: "Coding",
		DurationMinutes: m, Hours: HoursOf(m), RateCents: &rate, AmountCents: m * rate / 60, CapExOpEx: CapEx}
}

// BenchmarkEntriesXLSXWriter also reports peak-heap-MB: the most the heap
// rose above its level at the start while a workbook was written (sampled
// every millisecond), at 10k, 100k and 300k rows: flat memory is the same
// figure at every size. The entries are generated one at a time, as rows
// arrive from PostgreSQL, so only the writer's memory is measured.
func BenchmarkEntriesXLSXWriter(b *testing.B) {
	period := PeriodOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	for _, n := range []int{10_000, benchRows, 300_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				var err error
				peak = max(peak, heappeak.Measure(time.Millisecond, func() {
					err = writeEntriesXLSX(io.Discard, period, false, func(fn func(EntryLine) error) error {
						for i := range n {
							if err := fn(benchEntry(i)); err != nil {
								return err
							}
						}
						return nil
					})
				}))
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

func BenchmarkXLSXStreamAlone(b *testing.B) {
	lines := make([]EntryLine, benchRows)
	for i := range lines {
		lines[i] = benchEntry(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		f := excelize.NewFile()
		nf := "#,##0.00"
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &nf})
		if err != nil {
			b.Fatal(err)
		}
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			b.Fatal(err)
		}
		row := make([]any, 14)
		cells := make([]excelize.Cell, 14)
		for i := range cells {
			cells[i].StyleID = style
		}
		start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		for i, l := range lines {
			vals := [14]any{start, l.EntryID.String(), start, l.DisplayName, l.UserID.String(), l.TicketRef,
				l.TicketTitle, l.ProjectKey, l.ActivityType, l.DurationMinutes, float64(l.Hours) / 100,
				float64(*l.RateCents) / 100, float64(l.AmountCents) / 100, l.CapExOpEx}
			for j := range cells {
				cells[j].Value = vals[j]
				row[j] = &cells[j]
			}
			ref, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := sw.SetRow(ref, row); err != nil {
				b.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
		_ = f.Close()
	}
}

// An error of the entries' reader (it runs on its own goroutine) ends the
// workbook with that error, after the rows before it were written.
func TestEntriesXLSXReaderError(t *testing.T) {
	period := PeriodOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	boom := errors.New("boom")
	sent := 0
	err := writeEntriesXLSX(io.Discard, period, false, func(fn func(EntryLine) error) error {
		for i := range 3*entryBatchRows + 7 {
			if err := fn(benchEntry(i)); err != nil {
				return err
			}
			sent++
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's", err)
	}
	if sent != 3*entryBatchRows+7 {
		t.Fatalf("the reader sent %d entries", sent)
	}
}
