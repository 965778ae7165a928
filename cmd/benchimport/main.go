// Command benchimport measures a Jira import against a running stack (`make
// run`'s `tracker dev`, or `tracker api` + `tracker worker` with Temporal):
// it writes a Jira CSV export of BENCH_ISSUES issues (30 columns, three
// comments each, parents and links), registers a user, creates an org, posts
// the file to POST /orgs/{org_id}/imports as a dry run and then for real,
// polls GET /imports/{id} until the import completes, checks what it wrote,
// and reads the peak RSS (VmHWM) of the processes serving the API and the
// worker. Targets (issue: 100,000 issues): dry run < 15 s, import < 60 s,
// each process's peak RSS < 300 MB.
//
//	BENCH_URL              base address of the API (http://localhost:3000)
//	BENCH_ISSUES           issues in the file (100000)
//	BENCH_PIDS             the API's and worker's pids, comma-separated (else
//	                       the process listening on BENCH_URL's port and every
//	                       `tracker worker` process of this machine)
//	BENCH_IMPORT_TIMEOUT   how long to wait for the import (10m)
//	BENCH_DRY_MAX, BENCH_IMPORT_MAX, BENCH_RSS_MAX_MB   the targets (15s, 60s, 300)
//
// It exits non-zero when a measurement misses its target.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
	"tracker/cmd/internal/benchenv"
)

type config struct {
	URL               string
	Issues            int
	PIDs              []int
	Timeout           time.Duration
	DryMax, ImportMax time.Duration
	RSSMax            int64
}

func loadConfig() (config, error) {
	c := config{URL: strings.TrimRight(benchenv.String("BENCH_URL", "http://localhost:3000"), "/"), Issues: benchenv.Int("BENCH_ISSUES", 100000, 1),
		Timeout: benchenv.Duration("BENCH_IMPORT_TIMEOUT", 10*time.Minute), DryMax: benchenv.Duration("BENCH_DRY_MAX", 15*time.Second),
		ImportMax: benchenv.Duration("BENCH_IMPORT_MAX", 60*time.Second), RSSMax: int64(benchenv.Int("BENCH_RSS_MAX_MB", 300, 1)) << 20}
	for _, s := range strings.Split(os.Getenv("BENCH_PIDS"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		pid, err := strconv.Atoi(s)
		if err != nil {
			return c, fmt.Errorf("BENCH_PIDS: %q is not a pid", s)
		}
		c.PIDs = append(c.PIDs, pid)
	}
	return c, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := loadConfig()
	if err == nil {
		var ok bool
		if ok, err = run(ctx, c); err == nil && !ok {
			os.Exit(1)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchimport:", err)
		os.Exit(1)
	}
}

// result is one measured figure against its target.
type result struct {
	name        string
	value, max  float64
	unit, extra string
}

func (r result) ok() bool { return r.value < r.max }

func run(ctx context.Context, c config) (bool, error) {
	fmt.Printf("benchimport: %s, a Jira CSV of %d issues\n", c.URL, c.Issues)
	f, err := os.CreateTemp("", "benchimport-*.csv")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	want, err := writeJira(f, c.Issues)
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return false, err
	}
	st, _ := os.Stat(f.Name())
	fmt.Printf("file: %s, %.1f MB\n", f.Name(), float64(st.Size())/1e6)
	pids, err := servers(c.URL, c.PIDs)
	if err != nil {
		fmt.Println("peak RSS not measured:", err)
	}
	for _, pid := range pids {
		fmt.Printf("measuring pid %d: %s\n", pid, name(pid))
	}
	cl, err := signup(ctx, c.URL)
	if err != nil {
		return false, err
	}
	org, err := cl.newOrg(ctx)
	if err != nil {
		return false, err
	}
	var results []result
	watch := startWatch(pids)
	took, sum, err := cl.dryRun(ctx, org, f.Name())
	if err != nil {
		return false, fmt.Errorf("dry run: %w", err)
	}
	if sum.Tickets != want.Tickets || sum.Comments != want.Comments || sum.Parents != want.Parents || sum.Links != want.Links {
		return false, fmt.Errorf("dry run counts %+v, want %+v", sum, want)
	}
	results = append(results, result{name: "dry run", value: took.Seconds(), max: c.DryMax.Seconds(), unit: "s",
		extra: fmt.Sprintf("%d tickets, %d comments, %d parents, %d links", sum.Tickets, sum.Comments, sum.Parents, sum.Links)})
	took, accepted, got, err := cl.importFile(ctx, org, f.Name(), c.Timeout)
	if err != nil {
		return false, fmt.Errorf("import: %w", err)
	}
	if got.Tickets != want.Tickets || got.Comments != want.Comments || got.Parents != want.Parents || got.Links != want.Links {
		return false, fmt.Errorf("import wrote %+v, want %+v", got, want)
	}
	results = append(results, result{name: "import", value: took.Seconds(), max: c.ImportMax.Seconds(), unit: "s",
		extra: fmt.Sprintf("answered in %s; %d tickets, %d comments, %d parents, %d links", accepted.Round(time.Millisecond),
			got.Tickets, got.Comments, got.Parents, got.Links)})
	for _, m := range watch.stop() {
		results = append(results, result{name: fmt.Sprintf("peak RSS pid %d", m.pid), value: float64(m.hwm) / (1 << 20),
			max: float64(c.RSSMax) / (1 << 20), unit: "MB",
			extra: fmt.Sprintf("VmHWM; %.0f MB at most while measured (sampled); %s", float64(m.sampled)/(1<<20), m.name)})
	}
	ok := true
	fmt.Printf("\n%-18s %10s %10s  %s\n", "measure", "value", "target", "detail")
	for _, r := range results {
		mark := "ok"
		if !r.ok() {
			mark, ok = "MISSED", false
		}
		fmt.Printf("%-18s %8.1f %-2s < %5.0f %-2s %-6s %s\n", r.name, r.value, r.unit, r.max, r.unit, mark, r.extra)
	}
	return ok, nil
}
