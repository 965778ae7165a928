// Command benchexport measures export and import against a running stack
// (`tracker dev`, or `tracker api` + `tracker worker` with Temporal): it
// registers a user, seeds its org directly in PostgreSQL (COPY), exports it
// as JSON and as SQLite, imports the JSON document into a new org through
// the Import workflow, and prints each duration against its target:
// import < 60 s, JSON export < 10 s, SQLite export < 20 s.
//
//	BENCH_URL              base address of the API (http://localhost:3000)
//	BENCH_DATABASE_URL     the database that API serves (else SERVICE_DATABASE_URL)
//	BENCH_PROJECTS         projects to seed (100)
//	BENCH_TICKETS          tickets to seed, spread evenly (100000)
//	BENCH_COMMENTS         comments per ticket (1)
//	BENCH_ENTRIES          time entries per ticket (1)
//	BENCH_IMPORT_TIMEOUT   how long to wait for the import (5m)
//
// It exits non-zero when a measurement misses its target.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"
	"tracker/cmd/internal/benchenv"
)

type config struct {
	URL, DB                    string
	Projects, Tickets          int
	Comments, Entries          int
	ImportTimeout              time.Duration
	ImportMax, JSONMax, SQLMax time.Duration
}

func loadConfig() config {
	c := config{
		URL:      benchenv.String("BENCH_URL", "http://localhost:3000"),
		DB:       benchenv.String("BENCH_DATABASE_URL", benchenv.String("SERVICE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable")),
		Projects: max(benchenv.Int("BENCH_PROJECTS", 100, 0), 1), Tickets: benchenv.Int("BENCH_TICKETS", 100000, 0),
		Comments: benchenv.Int("BENCH_COMMENTS", 1, 0), Entries: benchenv.Int("BENCH_ENTRIES", 1, 0),
		ImportMax: 60 * time.Second, JSONMax: 10 * time.Second, SQLMax: 20 * time.Second,
	}
	var err error
	if c.ImportTimeout, err = time.ParseDuration(benchenv.String("BENCH_IMPORT_TIMEOUT", "5m")); err != nil {
		c.ImportTimeout = 5 * time.Minute
	}
	return c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, loadConfig()); err != nil {
		fmt.Fprintln(os.Stderr, "benchexport:", err)
		os.Exit(1)
	}
}

// result is one measured operation.
type result struct {
	name   string
	took   time.Duration
	limit  time.Duration
	detail string
}

func (r result) ok() bool { return r.took < r.limit }

func run(ctx context.Context, c config) error {
	fmt.Printf("benchexport: %s, %d projects, %d tickets, %d comments and %d time entries per ticket\n",
		c.URL, c.Projects, c.Tickets, c.Comments, c.Entries)
	b, err := newBench(ctx, c)
	if err != nil {
		return err
	}
	defer b.close()
	start := time.Now()
	if err := b.seed(ctx); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("seeded in %s\n", time.Since(start).Round(time.Millisecond))
	var results []result
	jsonPath, r, err := b.exportJSON(ctx)
	if err != nil {
		return fmt.Errorf("export json: %w", err)
	}
	defer os.Remove(jsonPath)
	results = append(results, r)
	if r, err = b.exportSQLite(ctx); err != nil {
		return fmt.Errorf("export sqlite: %w", err)
	}
	results = append(results, r)
	if r, err = b.importJSON(ctx, jsonPath); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	results = append(results, r)
	failed := false
	fmt.Printf("\n%-14s %10s %8s  %s\n", "operation", "took", "target", "detail")
	for _, r := range results {
		mark := "ok"
		if !r.ok() {
			mark, failed = "MISSED", true
		}
		fmt.Printf("%-14s %10s %8s  %s %s\n", r.name, r.took.Round(time.Millisecond), r.limit, r.detail, mark)
	}
	if failed {
		return fmt.Errorf("a measurement missed its target")
	}
	return nil
}
