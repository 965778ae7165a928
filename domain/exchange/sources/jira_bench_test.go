package sources

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"tracker/domain/exchange/export"
)

// jiraFile writes a Jira export of n issues in the shape of the real
// samples: 30 columns (the repeated Labels, Sprint and Comment among them),
// three comments an issue, parents and links between neighbours.
func jiraFile(n int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"Summary", "Issue key", "Issue id", "Issue Type", "Status", "Project key", "Project name", "Priority",
		"Resolution", "Assignee", "Assignee Id", "Reporter", "Reporter Id", "Created", "Updated", "Resolved", "Due date",
		"Description", "Labels", "Labels", "Sprint", "Custom field (Story Points)", "Custom field (Rank)", "Parent",
		"Outward issue link (Blocks)", "Comment", "Comment", "Comment", "Status Category", "Status Category Changed"})
	statuses := []string{"To Do", "In Progress", "Done"}
	for i := 1; i <= n; i++ {
		parent := ""
		if i%10 != 1 {
			parent = fmt.Sprint(10000 + i - i%10 + 1)
		}
		link := ""
		if i > 1 && i%7 == 0 {
			link = fmt.Sprintf("BIG-%d", i-1)
		}
		at := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("02/Jan/06 3:04 PM")
		_ = w.Write([]string{fmt.Sprintf("Issue %d: make the thing work on every platform", i), fmt.Sprintf("BIG-%d", i),
			fmt.Sprint(10000 + i), "Story", statuses[i%3], "BIG", "Big project", "Medium", "", "Ada Lovelace", "acc-1",
			"Grace Hopper", "acc-2", at, at, "", "", "A description\nover two lines of the work to be done.", "backend", "api",
			fmt.Sprintf("Sprint %d", i%20), "3.0", "0|i001wn:", parent, link,
			at + ";acc-1;A first comment on the issue", at + ";acc-2;A second comment, with a, comma",
			at + ";acc-1;\"Quoted\" third comment\nover two lines", statuses[i%3], at})
	}
	w.Flush()
	return b.Bytes()
}

// BenchmarkJiraDryRun100k converts a 100,000-issue export as the dry run
// does (streamed from the file, each ticket dropped once converted) and
// reports the peak heap, which counts the file itself (file-MB): the
// benchmark holds it in memory, the API reads it from a temporary file.
func BenchmarkJiraDryRun100k(b *testing.B) {
	file := jiraFile(100_000)
	m := Mapping{Users: map[string]string{"acc-1": "ada@example.com", "acc-2": "grace@example.com"}}
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
			}
		}()
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file)), nil }
		res, err := Convert("jira_csv", open, m, defaultTarget(), func(string, export.Ticket) error { return nil })
		close(done)
		if err != nil || res.Report.Summary.Tickets != 100_000 || res.Report.Summary.Comments != 300_000 {
			b.Fatalf("%v %+v", err, res.Report.Summary)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(len(file))/(1<<20), "file-MB")
}
