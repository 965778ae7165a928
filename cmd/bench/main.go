// Command bench is the load benchmark of the ticket API (`make bench`). It
// registers a user through the API, creates an org, seeds projects and
// tickets directly in PostgreSQL (COPY: seeding through the API would take
// longer than the measurement), then drives each operation for a fixed time
// with 8 and 32 concurrent clients and prints ops/s, p50, p99 and errors.
//
//	BENCH_URL            base address of a running `tracker api` (http://localhost:3000)
//	BENCH_DATABASE_URL   the database that API serves (else SERVICE_DATABASE_URL)
//	BENCH_DURATION       measured time per operation and client count (10s)
//	BENCH_WARMUP         unmeasured time before each run (2s)
//	BENCH_CLIENTS        client counts (8,32)
//	BENCH_PROJECTS       projects to seed (100)
//	BENCH_TICKETS        tickets to seed, spread evenly (100000)
//	BENCH_OPS            operations to run (get,list,create-spread,create-one)
//
// With -ceiling it runs instead the reads (get, list) against the API and
// against the ceiling (a bare Fiber app running the same query, started by
// this program) alternately, -rounds times, and prints the ratio.
//
// Each flag of the same name (-url, -db, -duration, ...) overrides its variable.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
	"tracker/cmd/internal/benchenv"
)

type config struct {
	URL, DB          string
	Duration, Warmup time.Duration
	Clients          []int
	Projects         int
	Tickets          int
	Ops              []string
	Ceiling          bool
	Rounds           int
	// ServeCeiling is the address the ceiling's own process serves on.
	ServeCeiling, CeilingUser string
}

func parseConfig() (config, error) {
	var c config
	var duration, warmup, clients, ops string
	flag.StringVar(&c.URL, "url", benchenv.String("BENCH_URL", "http://localhost:3000"), "base address of the API")
	flag.StringVar(&c.DB, "db", benchenv.String("BENCH_DATABASE_URL", benchenv.String("SERVICE_DATABASE_URL",
		"postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable")), "database the API serves (for seeding)")
	flag.StringVar(&duration, "duration", benchenv.String("BENCH_DURATION", "10s"), "measured time per run")
	flag.StringVar(&warmup, "warmup", benchenv.String("BENCH_WARMUP", "2s"), "unmeasured time before each run")
	flag.StringVar(&clients, "clients", benchenv.String("BENCH_CLIENTS", "8,32"), "concurrent client counts")
	flag.IntVar(&c.Projects, "projects", atoi(benchenv.String("BENCH_PROJECTS", "100")), "projects to seed")
	flag.IntVar(&c.Tickets, "tickets", atoi(benchenv.String("BENCH_TICKETS", "100000")), "tickets to seed")
	flag.BoolVar(&c.Ceiling, "ceiling", false, "compare the reads with the ceiling (a bare Fiber app running the same query)")
	flag.IntVar(&c.Rounds, "rounds", 3, "with -ceiling: alternating rounds per read and client count")
	flag.StringVar(&c.ServeCeiling, "serve-ceiling", "", "internal: serve the ceiling on this address")
	flag.StringVar(&c.CeilingUser, "ceiling-user", "", "internal: the user the ceiling reads as")
	flag.StringVar(&ops, "ops", benchenv.String("BENCH_OPS", strings.Join(allOps, ",")), "operations to run")
	flag.Parse()
	var err error
	if c.Duration, err = time.ParseDuration(duration); err != nil {
		return c, fmt.Errorf("duration: %w", err)
	}
	if c.Warmup, err = time.ParseDuration(warmup); err != nil {
		return c, fmt.Errorf("warmup: %w", err)
	}
	for _, s := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("clients: %q is not a positive integer", s)
		}
		c.Clients = append(c.Clients, n)
	}
	for _, s := range strings.Split(ops, ",") {
		s = strings.TrimSpace(s)
		if !known(s) {
			return c, fmt.Errorf("ops: unknown %q (one of %s)", s, strings.Join(allOps, ", "))
		}
		c.Ops = append(c.Ops, s)
	}
	if c.Projects < 1 || c.Tickets < c.Projects {
		return c, fmt.Errorf("need at least one project and one ticket per project")
	}
	c.URL = strings.TrimRight(c.URL, "/")
	return c, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func main() {
	cfg, err := parseConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if cfg.ServeCeiling != "" {
		if err := serveCeiling(cfg.ServeCeiling, cfg.DB, cfg.CeilingUser); err != nil {
			fmt.Fprintln(os.Stderr, "bench ceiling:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config) error {
	c := newClient(cfg.URL, maxOf(cfg.Clients))
	fmt.Printf("bench against %s: %d projects, %d tickets; %s per run (+%s warm-up)\n",
		cfg.URL, cfg.Projects, cfg.Tickets, cfg.Duration, cfg.Warmup)
	start := time.Now()
	w, err := prepare(ctx, c, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("seeded in %s (org %s)\n\n", time.Since(start).Round(time.Millisecond), w.orgID)
	if cfg.Ceiling {
		defer w.pool.Close()
		return compareCeiling(ctx, cfg, c, w)
	}
	var results []result
	for _, n := range cfg.Clients {
		for _, op := range cfg.Ops {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r := measure(ctx, c, w, op, n, cfg.Warmup, cfg.Duration)
			fmt.Fprintf(os.Stderr, "  %-14s %2d clients: %8.0f ops/s\n", op, n, r.opsPerSec())
			results = append(results, r)
		}
	}
	printTable(os.Stdout, results)
	return verify(ctx, w)
}

func maxOf(ns []int) int {
	m := 0
	for _, n := range ns {
		m = max(m, n)
	}
	return m
}
