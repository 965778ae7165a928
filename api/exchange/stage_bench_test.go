package exchange_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
	"tracker/internal/heappeak"
)

// BenchmarkStageJiraFile measures what the API's submit and the worker's
// Stage keep in memory, without the HTTP test harness (whose copies of a
// large multipart body dominate BenchmarkImportJiraCSV's heap): a
// generated export (BENCH_ISSUES issues, default 20,000) is written to a
// file, submitted to the service from it as the API does from its spool,
// then staged from the object store. It reports each phase's peak heap
// above the heap before it (internal/heappeak: live and unswept objects,
// sampled every 20 ms).
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
		// phase runs step and answers how far the heap rose above where it
		// started (after a GC), in MB.
		phase := func(step func()) float64 {
			return float64(heappeak.Measure(20*time.Millisecond, step)) / (1 << 20)
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
		_ = file.Close()
		b.ReportMetric(submitMB, "submit-heap-MB")
		b.ReportMetric(stageMB, "stage-heap-MB")
		b.ReportMetric(submitted.Seconds(), "submit-s")
		b.ReportMetric(staged.Seconds(), "stage-s")
		b.ReportMetric(float64(n), "issues")
	}
}
