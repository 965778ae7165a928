package importer

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/store/commentdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// bigDocument is an import document of about size bytes: one project with
// tickets, each with a comment and a time entry. wrongType puts a string
// where the last ticket's number belongs, so decoding takes the path that
// names every wrong type.
func bigDocument(size int, wrongType bool) []byte {
	v := 1
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	desc := "a description of the work to be done, long enough to look like one"
	p := export.Project{Key: "BIG", Name: "Big", CreatedAt: now, UpdatedAt: now}
	doc := export.Document{Version: &v, Source: "bench", ExportedAt: now,
		Users: []export.User{{Email: "a@example.test", DisplayName: "A"}}}
	for n := 1; n*420 < size; n++ {
		p.Tickets = append(p.Tickets, export.Ticket{Number: n,
			Content:  ticketdb.Content{Title: fmt.Sprintf("Ticket %d", n), Description: &desc, Status: "Todo", Priority: "None"},
			Reporter: "a@example.test", CreatedAt: now, UpdatedAt: now,
			Comments: []export.Comment{{Author: "a@example.test", Content: commentdb.Content{Body: "a comment"}, CreatedAt: now, UpdatedAt: now}},
			TimeEntries: []export.TimeEntry{{User: "a@example.test", Date: "2026-01-01",
				Content: timeentrydb.Content{DurationMinutes: 30, ActivityType: "Coding"}, Status: "Draft", CreatedAt: now, UpdatedAt: now}}})
	}
	doc.Projects = []export.Project{p}
	b, _ := json.Marshal(doc)
	if wrongType {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		ts := m["projects"].([]any)[0].(map[string]any)["tickets"].([]any)
		ts[len(ts)-1].(map[string]any)["number"] = "not a number"
		b, _ = json.Marshal(m)
	}
	return b
}

// BenchmarkDecodeLargeImport measures the memory that decoding (and, with
// a wrong type, locating every wrong type of) a 20 MB import document
// takes: alloc-bytes/doc-byte is the bytes allocated per byte of document,
// peak-heap-MB the heap in use right after decoding. It runs under
// `make bench`, not as a timed test.
func BenchmarkDecodeLargeImport(b *testing.B) {
	for _, wrong := range []bool{false, true} {
		body := bigDocument(20<<20, wrong)
		b.Run(fmt.Sprintf("wrong_type=%v", wrong), func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range b.N {
				d, err := decode(body)
				if err != nil || (wrong && len(d.typeProblems) != 1) {
					b.Fatalf("decode: %v %q", err, d.typeProblems)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				runtime.KeepAlive(d)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(body)), "alloc-bytes/doc-byte")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// BenchmarkImportNames sets the member-names pass every import document
// takes (domain.JSONNames: duplicates, exact names) beside the decode it
// guards, on the same 20 MB document: MB/s of each, and the bytes the
// names pass allocates per document byte.
func BenchmarkImportNames(b *testing.B) {
	body := bigDocument(20<<20, false)
	b.Run("names", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for range b.N {
			if err := domain.JSONNames(body, documentType); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for range b.N {
			var d export.Document
			if err := json.Unmarshal(body, &d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for range b.N {
			if _, err := decode(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
