package exchange_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// BenchmarkStageJiraFile measures what the API's submit and the worker's
// Stage keep in memory, without the HTTP test harness (whose copies of a
// large multipart body dominate BenchmarkImportJiraCSV's heap): a
// generated export (BENCH_ISSUES issues, default 20,000) is written to a
// file, submitted to the service from it as the API does from its spool,
// then staged from the object store. It reports each phase's peak heap
// above the heap before it (garbage included, sampled every 20 ms).
func BenchmarkStageJiraFile(b *testing.B) {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_ISSUES")); err == nil {
		n = v
	}
	path := filepath.Join(b.TempDir(), "export.csv")
	if err := os.WriteFile(path, benchJira(n), 0o600); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		f := setup(b, exportseed.Options{})
		svc := importer.New(f.env.DB, f.env.Clock, f.files)
		runner := importer.NewRunner(f.env.DB, f.env.Clock, 0, f.files)
		p := domain.Principal{UserID: f.owner.ID, OrgID: f.b, Scopes: []string{domain.ScopeAll}}
		file, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					peak.Store(max(peak.Load(), ms.HeapAlloc))
				}
			}
		}()
		// phase runs step from a collected heap and answers its peak above it.
		phase := func(step func()) float64 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak.Store(ms.HeapAlloc)
			step()
			return float64(peak.Load()-ms.HeapAlloc) / (1 << 20)
		}
		var sub importer.Submitted
		start := time.Now()
		submitMB := phase(func() {
			if sub, err = svc.SubmitFile(b.Context(), p, f.b, importer.File{Format: "jira_csv", Body: file}); err != nil {
				b.Fatal(err)
			}
		})
		submitted := time.Since(start)
		start = time.Now()
		stageMB := phase(func() {
			if _, err := runner.Stage(b.Context(), sub.ImportID); err != nil {
				b.Fatal(err)
			}
		})
		staged := time.Since(start)
		close(done)
		_ = file.Close()
		b.ReportMetric(submitMB, "submit-heap-MB")
		b.ReportMetric(stageMB, "stage-heap-MB")
		b.ReportMetric(submitted.Seconds(), "submit-s")
		b.ReportMetric(staged.Seconds(), "stage-s")
		b.ReportMetric(float64(n), "issues")
	}
}
