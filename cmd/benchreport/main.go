// Command benchreport measures the capitalization report (part of `make
// bench`). It registers a user through the API, seeds that user's org
// straight in PostgreSQL with one month of approved time (by default 100
// projects, 50 users, 100,000 entries, rates changing mid-month, noise in the
// neighbouring month), then requests the report in each mode sequentially
// and prints p50, p95 and max per mode; then downloads the file exports (the
// drill-down as CSV and XLSX, the capitalization XLSX) with their peak heap
// (files.go). The targets are p95 < 500 ms for the default report and
// p95 < 2 s for the drill-down XLSX; the exit code is 1 when one is missed.
//
//	BENCH_URL            base address of a running `tracker api` (http://localhost:3000)
//	BENCH_DATABASE_URL   the database that API serves (else SERVICE_DATABASE_URL)
//	BENCH_REPORT_SELF    "true": no running stack needed; a temporary database
//	                     (TEST_DATABASE_URL's server) and an in-process API on
//	                     a loopback port are used and removed afterwards
//	BENCH_REPORT_ENTRIES approved entries in the month (100000)
//	BENCH_REPORT_RUNS    measured requests per mode (30)
//
// Flags -url, -db, -self, -entries and -runs override the variables;
// -drilldown=false skips the drill-down CSV of every entry (minutes per
// request at 1M; the drill-down's first page is measured either way);
// -policy=false measures without the seeded capitalization policy (20
// ticket rules, 20 overrides); -close=false skips timing one close; -files=false skips the file
// exports; -only default,csv measures only the modes and files whose names
// contain one of the comma-separated words; -cpuprofile FILE (with -self,
// where the API runs in this process) profiles everything after seeding,
// for go tool pprof; -keep
// (with -self) keeps the seeded database and prints its URL, for EXPLAIN;
// -reuse URL (implies -self) measures a database a -keep run left, without
// seeding again (seeding 1M entries takes minutes): a new Owner joins the
// seeded org (-entries must be the kept run's, for the row check).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"tracker/cmd/internal/benchenv"
)

type config struct {
	URL, DB  string
	Self     bool
	Entries  int
	Users    int
	Projects int
	Runs     int
	Period   string
	Target   float64 // milliseconds, p95 of the default report
	Keep     bool    // -self: keep the seeded database and print its URL
	Reuse    string  // a database a -keep run left: measured without seeding
	Drill    bool    // also measure the drill-down modes
	Files    bool    // also measure the file exports (files.go)
	Only     string  // comma-separated substrings: measure only the modes and files whose names hold one
	CPUProf  string  // with -self: write a CPU profile of the measured requests here
	Policy   bool    // put a capitalization policy with 20 rules in force for the month
	Close    bool    // also time a close of the month (then reopen it)
}

func main() {
	var c config
	flag.StringVar(&c.URL, "url", benchenv.String("BENCH_URL", "http://localhost:3000"), "base address of the API")
	flag.StringVar(&c.DB, "db", benchenv.String("BENCH_DATABASE_URL", benchenv.String("SERVICE_DATABASE_URL",
		"postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable")), "database the API serves (for seeding)")
	self, _ := strconv.ParseBool(benchenv.String("BENCH_REPORT_SELF", "false"))
	flag.BoolVar(&c.Self, "self", self, "run against a temporary database and an in-process API")
	entries, _ := strconv.Atoi(benchenv.String("BENCH_REPORT_ENTRIES", "100000"))
	flag.IntVar(&c.Entries, "entries", entries, "approved entries in the month")
	runs, _ := strconv.Atoi(benchenv.String("BENCH_REPORT_RUNS", "30"))
	flag.IntVar(&c.Runs, "runs", runs, "measured requests per mode")
	flag.BoolVar(&c.Drill, "drilldown", true, "also measure the drill-down CSV of every entry (slow at 1M; its first page is always measured)")
	flag.BoolVar(&c.Files, "files", true, "also measure the file exports (drill-down CSV and XLSX, capitalization XLSX)")
	flag.StringVar(&c.Only, "only", "", "comma-separated substrings: measure only the modes and file exports whose names contain one")
	flag.StringVar(&c.CPUProf, "cpuprofile", "", "with -self: write a CPU profile of the measured part (seeding excluded) to this file")
	flag.BoolVar(&c.Policy, "policy", true, "put an ASU 2025-06 policy with 20 ticket rules (and 20 overrides, seeded) in force for the month")
	flag.BoolVar(&c.Close, "close", true, "also time one close of the month (reopened afterwards)")
	flag.BoolVar(&c.Keep, "keep", false, "with -self: keep the seeded database (its URL is printed) for EXPLAIN")
	flag.StringVar(&c.Reuse, "reuse", "", "measure the database a -keep run left (implies -self), without seeding")
	flag.Parse()
	if c.Reuse != "" {
		c.Self = true
	}
	c.Users, c.Projects, c.Period, c.Target = 50, 100, "2026-03", 500
	c.URL = strings.TrimRight(c.URL, "/")
	if c.Entries < 1 || c.Runs < 1 {
		fmt.Fprintln(os.Stderr, "benchreport: entries and runs must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ok, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (bool, error) {
	if c.Self {
		stopSelf, err := startSelf(ctx, &c)
		if err != nil {
			return false, err
		}
		defer stopSelf()
	}
	fmt.Printf("capitalization report bench against %s: %d projects, %d users, %d approved entries in %s\n",
		c.URL, c.Projects, c.Users, c.Entries, c.Period)
	w, err := prepare(ctx, c)
	if err != nil {
		return false, err
	}
	if c.CPUProf != "" {
		f, err := os.Create(c.CPUProf)
		if err != nil {
			return false, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return false, err
		}
		defer pprof.StopCPUProfile()
	}
	ok, err := measureAll(ctx, c, w)
	if err != nil || !c.Files {
		return ok, err
	}
	filesOK, err := measureFiles(ctx, c, w)
	return ok && filesOK, err
}

// selected says whether the mode or file export name is measured (-only).
func (c config) selected(name string) bool {
	if c.Only == "" {
		return true
	}
	for _, w := range strings.Split(c.Only, ",") {
		if w = strings.TrimSpace(w); w != "" && strings.Contains(name, w) {
			return true
		}
	}
	return false
}
