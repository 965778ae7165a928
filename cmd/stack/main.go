// Command stack runs Tracker in its production shape (what `make stack`
// runs after deploy/dev/stack.sh has PostgreSQL and Temporal answering):
// `tracker migrate`, then -apis `tracker api` and -workers `tracker worker`
// processes on free loopback ports behind a round-robin proxy on -addr,
// until SIGINT or SIGTERM. It writes the processes (name, role, pid,
// address) to -state as JSON, which cmd/soak reads to sample their memory.
//
// Every process inherits the environment (SERVICE_DATABASE_URL,
// SERVICE_TEMPORAL_ADDRESS and the other SERVICE_* variables); the stack
// adds a shared random SERVICE_JWT_SECRET and SERVICE_SECRETS_KEY when
// unset, SERVICE_TRUSTED_PROXIES=127.0.0.1/32 and SERVICE_PUBLIC_URL.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"tracker/internal/stackrun"
)

// State is the -state file.
type State struct {
	URL         string      `json:"url"`
	DatabaseURL string      `json:"database_url"`
	Processes   []StateProc `json:"processes"`
}

// StateProc is one process of the State.
type StateProc struct {
	Name string `json:"name"`
	Role string `json:"role"`
	PID  int    `json:"pid"`
	URL  string `json:"url"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stack:", err)
		os.Exit(1)
	}
}

func run() error {
	apis := flag.Int("apis", 2, "API replicas")
	workers := flag.Int("workers", 2, "worker replicas")
	addr := flag.String("addr", "127.0.0.1:3000", "the proxy's listen address (the stack's one address)")
	bin := flag.String("binary", "bin/tracker", "the tracker binary")
	logs := flag.String("logs", ".data/stack", "directory of the processes' logs (<name>.log)")
	state := flag.String("state", ".data/stack/stack.json", "where to write the processes as JSON")
	flag.Parse()

	dbURL := os.Getenv("SERVICE_DATABASE_URL")
	if dbURL == "" {
		dbURL = "postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable"
	}
	temporal := os.Getenv("SERVICE_TEMPORAL_ADDRESS")
	if temporal == "" {
		temporal = "127.0.0.1:7233"
	}
	binary, err := filepath.Abs(*bin)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := stackrun.Start(ctx, stackrun.Config{Binary: binary, DatabaseURL: dbURL, TemporalAddress: temporal,
		APIs: *apis, Workers: *workers, LogDir: *logs, ProxyAddr: *addr})
	if err != nil {
		return err
	}
	st := State{URL: s.URL, DatabaseURL: dbURL}
	fmt.Fprintf(os.Stderr, "\n  Tracker stack: %d API and %d worker processes (Ctrl-C stops them)\n", *apis, *workers)
	fmt.Fprintf(os.Stderr, "    %-10s %s   (round-robin proxy; REST under /api/v1)\n", "address", s.URL)
	for _, p := range s.Procs() {
		st.Processes = append(st.Processes, StateProc{Name: p.Name, Role: p.Role, PID: p.PID(), URL: p.URL})
		what := "API"
		if p.Role == "worker" {
			what = "/metrics, /health"
		}
		fmt.Fprintf(os.Stderr, "    %-10s %s   pid %d, %s, log %s\n", p.Name, p.URL, p.PID(), what, p.LogPath)
	}
	fmt.Fprintf(os.Stderr, "    %-10s %s\n\n", "temporal", temporal)
	if b, err := json.MarshalIndent(st, "", "  "); err == nil {
		_ = os.WriteFile(*state, b, 0o644)
	}
	defer os.Remove(*state)

	// A replica that exits on its own is reported; the others keep serving.
	for _, p := range s.Procs() {
		go func() {
			select {
			case <-p.Done():
				if ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "stack: %s exited; its log: %s\n%s\n", p.Name, p.LogPath, p.LogTail(2000))
				}
			case <-ctx.Done():
			}
		}()
	}
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "stack: stopping")
	start := time.Now()
	err = s.Close()
	fmt.Fprintf(os.Stderr, "stack: stopped in %s\n", time.Since(start).Round(time.Millisecond))
	return err
}
