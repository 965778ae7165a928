// Package storetest gives tests their own PostgreSQL database, created from a
// migrated template (one template per migration fingerprint), so packages
// run in parallel without sharing rows.
package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/tempdb"
)

// New gives the test its own migrated database, dropped when the test ends.
func New(t testing.TB) *store.DB {
	t.Helper()
	db, _ := NewWithURL(t)
	return db
}

// NewWithURL is New that also returns the database URL (for tests that start
// the real binary or a second pool).
func NewWithURL(t testing.TB) (*store.DB, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, drop, err := tempdb.NewDatabase(ctx)
	if err != nil {
		t.Fatalf("test database: %v", err)
	}
	db, err := store.Open(ctx, u)
	if err != nil {
		drop()
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() {
		db.Close()
		drop()
	})
	return db, u
}

// Queryer runs a query: a pool, a connection or a transaction.
type Queryer interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Lines runs sql and returns its rows' one text column.
func Lines(t testing.TB, q Queryer, sql string, args ...any) []string {
	t.Helper()
	rows, err := q.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return lines
}

// Explain is the plan PostgreSQL prints for EXPLAIN <options> sql (options
// "" or such as "(ANALYZE, TIMING OFF)"), one text.
func Explain(t testing.TB, q Queryer, options, sql string, args ...any) string {
	t.Helper()
	return strings.Join(Lines(t, q, "EXPLAIN "+options+" "+sql, args...), "\n")
}
