// Left out of mutation runs (make mutate builds with the mutate tag): this
// test takes most of the package's run time, and a mutation run repeats the
// package's tests once per mutant.

//go:build !mutate

package capex_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/storetest"
)

// stallingWriter stalls once, at its first write, for longer than the
// statement timeout: a client that stops reading for a while.
type stallingWriter struct {
	bytes.Buffer
	stall   time.Duration
	stalled bool
}

func (w *stallingWriter) Write(p []byte) (int, error) {
	if !w.stalled {
		w.stalled = true
		time.Sleep(w.stall)
	}
	return w.Buffer.Write(p)
}

// A drill-down export streams at the client's pace on the API's pool,
// whose statement timeout bounds each batch the stream reads, not the
// whole stream: a client that stalls for longer than the timeout still
// gets every entry, as CSV and as XLSX. The entries are more bytes than
// the sockets between the server and the client hold, so one statement
// reading them all would still be sending during the stall.
func TestDrillDownStreamOutlivesTheStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The seed goes through the test's own pool; the export through one
	// with the statement timeout, as the API's.
	db, url := storetest.NewWithURL(t)
	// Generous, so that one batch read on a loaded machine stays inside it;
	// the stall below still outlasts it.
	const timeout = 5 * time.Second
	api, err := store.Open(ctx, url, store.WithStatementTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	o := newOrg(t, db, testfactory.ProjectOpts{})
	const entries = 60_000
	if _, err := db.Pool.Exec(ctx, `UPDATE tickets SET title = repeat('long title ', 18) WHERE id = $1`, o.ticket.ID); err != nil {
		t.Fatal(err)
	}
	testfactory.ApprovedEntries(t, db, o.ticket, o.ann, entries, testfactory.Day("2026-03-01"), 28)
	period, err := capex.ParsePeriod("period", "2026-03")
	if err != nil {
		t.Fatal(err)
	}
	svc := capex.New(api, domain.SystemClock{})
	eq := capex.EntriesQuery{Query: capex.Query{OrgID: o.id, Period: period}}

	write, err := svc.EntriesCSV(ctx, o.caller, eq)
	if err != nil {
		t.Fatal(err)
	}
	out := &stallingWriter{stall: timeout + time.Second}
	if err := write(out); err != nil {
		t.Fatalf("CSV stream: %v", err)
	}
	if rows := strings.Count(out.String(), "\r\n"); rows != entries+1 {
		t.Fatalf("CSV: %d rows, want the header and %d entries", rows, entries)
	}
	if out.Len() < 16<<20 {
		t.Fatalf("CSV of %d bytes: too few to outlast the sockets' buffers", out.Len())
	}

	write, err = svc.EntriesXLSX(ctx, o.caller, eq)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(&stallingWriter{stall: timeout + time.Second}); err != nil {
		t.Fatalf("XLSX stream: %v", err)
	}
}

var _ io.Writer = (*stallingWriter)(nil)
