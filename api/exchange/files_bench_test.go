package exchange_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// benchJira writes a Jira export of n issues, three comments each.
func benchJira(n int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"Summary", "Issue key", "Issue id", "Status", "Project key", "Priority", "Assignee", "Reporter",
		"Created", "Updated", "Description", "Labels", "Sprint", "Custom field (Story Points)", "Parent",
		"Outward issue link (Blocks)", "Comment", "Comment", "Comment", "Status Category"})
	statuses := []string{"To Do", "In Progress", "Done"}
	for i := 1; i <= n; i++ {
		parent, link := "", ""
		if i%10 != 1 {
			parent = strconv.Itoa(10000 + i - i%10 + 1)
		}
		if i > 1 && i%7 == 0 {
			link = fmt.Sprintf("BIG-%d", i-1)
		}
		at := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("02/Jan/06 3:04 PM")
		_ = w.Write([]string{fmt.Sprintf("Issue %d", i), fmt.Sprintf("BIG-%d", i), strconv.Itoa(10000 + i), statuses[i%3], "BIG",
			"Medium", "ada@example.com", "grace@example.com", at, at, "A description of the work.", "backend",
			fmt.Sprintf("Sprint %d", i%20), "3", parent, link, at + ";ada@example.com;First", at + ";grace@example.com;Second",
			at + ";ada@example.com;Third"})
	}
	w.Flush()
	return b.Bytes()
}

// BenchmarkImportJiraCSV imports a generated Jira export through the route
// and runs the import in this process (BENCH_ISSUES issues, default
// 20,000): the submit (conversion, validation, storing), then the batches.
func BenchmarkImportJiraCSV(b *testing.B) {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_ISSUES")); err == nil {
		n = v
	}
	file := benchJira(n)
	for i := 0; i < b.N; i++ {
		f := setup(b, exportseed.Options{})
		// What the benchmark itself holds (the generated file) before the
		// request: the phases' peaks count it too.
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		// peak is the whole run's; phase the current phase's, reset
		// (swapped out) at each phase's end.
		var peak, phasePeak atomic.Uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(50 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					peak.Store(max(peak.Load(), ms.HeapAlloc))
					phasePeak.Store(max(phasePeak.Load(), ms.HeapAlloc))
				}
			}
		}()
		mb := func(v uint64) float64 { return float64(v) / (1 << 20) }
		start := time.Now()
		r := f.postFile(b, f.b, f.owner.Token, fileForm{format: "jira_csv", file: file}).Expect(b, 202)
		var res struct {
			ImportID uuid.UUID `json:"import_id"`
		}
		r.Decode(b, &res)
		submitted := time.Since(start)
		submitPeak := phasePeak.Swap(0)
		// The worker's batch size (the fixture's is tiny, for tests).
		runner := importer.NewRunner(f.env.DB, f.env.Clock, 0, f.files)
		ctx := b.Context()
		phase := time.Now()
		if _, err := runner.Stage(ctx, res.ImportID); err != nil {
			b.Fatal(err)
		}
		staged := time.Since(phase)
		stagePeak := phasePeak.Swap(0)
		phase = time.Now()
		st, err := runner.Catalog(ctx, res.ImportID)
		for err == nil && !st.Done {
			st, err = runner.Batch(ctx, res.ImportID)
		}
		if err != nil {
			b.Fatal(err)
		}
		batches := time.Since(phase)
		batchPeak := phasePeak.Swap(0)
		phase = time.Now()
		if _, err := runner.Finish(ctx, res.ImportID); err != nil {
			b.Fatal(err)
		}
		finished := time.Since(phase)
		close(done)
		total := time.Since(start)
		b.ReportMetric(submitted.Seconds(), "submit-s")
		b.ReportMetric(total.Seconds(), "total-s")
		b.ReportMetric(staged.Seconds(), "stage-s")
		b.ReportMetric(batches.Seconds(), "batches-s")
		b.ReportMetric(finished.Seconds(), "finish-s")
		b.ReportMetric(mb(peak.Load()), "peak-heap-MB")
		b.ReportMetric(mb(base.HeapAlloc), "baseline-MB")
		b.ReportMetric(mb(submitPeak), "submit-peak-MB")
		b.ReportMetric(mb(stagePeak), "stage-peak-MB")
		b.ReportMetric(mb(batchPeak), "batches-peak-MB")
		b.ReportMetric(float64(n), "issues")
	}
}
