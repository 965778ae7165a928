// Package workertest starts the real Temporal dev server for tests, from the
// CLI binary built by `make temporal` (no download: it works offline).
package workertest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"tracker/workflows"
)

// CLI finds the Temporal CLI: $TRACKER_TEMPORAL_CLI (which must exist when
// set: `make test` sets it), else bin/temporal at the repository root. With
// neither, the test is skipped: run `make temporal` first.
func CLI(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TRACKER_TEMPORAL_CLI"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("TRACKER_TEMPORAL_CLI=%s: %v", p, err)
		}
		return p
	}
	p := filepath.Join(RepoRoot(t), "bin", "temporal")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no Temporal CLI at %s (run `make temporal`, or set TRACKER_TEMPORAL_CLI)", p)
	}
	return p
}

// RepoRoot is the directory of go.mod above the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// FreePort is a TCP port free on 127.0.0.1 right now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Server is a dev server that can be stopped and started again on the same
// address with the same SQLite file (workflows survive the restart).
type Server struct {
	t       testing.TB
	cli     string
	Address string
	dbFile  string
	logFile string
	dev     *testsuite.DevServer
}

// Start runs a dev server on a free port; it is stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{t: t, cli: CLI(t), Address: "127.0.0.1:" + strconv.Itoa(FreePort(t)),
		dbFile: filepath.Join(dir, "temporal.db"), logFile: filepath.Join(dir, "temporal.log")}
	s.Start()
	t.Cleanup(func() { s.Stop() })
	return s
}

// Start (re)starts a stopped server.
func (s *Server) Start() {
	s.t.Helper()
	if s.dev != nil {
		return
	}
	logf, err := os.OpenFile(s.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.dev, err = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  s.cli,
		ClientOptions: &client.Options{HostPort: s.Address, Namespace: "default", Logger: quiet},
		DBFilename:    s.dbFile,
		LogLevel:      "error",
		// The tracker's custom search attributes, as deploy/dev/temporal.sh
		// registers them (the worker would add them too, a little later).
		SearchAttributes: workflows.DevServerSearchAttributes(),
		Stdout:           logf,
		Stderr:           logf,
	})
	if err != nil {
		s.dev = nil
		log, _ := os.ReadFile(s.logFile)
		s.t.Fatalf("start the Temporal dev server: %v\n%s", err, log)
	}
	s.dev.Client().Close() // tests dial their own
}

// Stop stops the server (its state stays in the SQLite file).
func (s *Server) Stop() {
	if s.dev == nil {
		return
	}
	if err := s.dev.Stop(); err != nil {
		s.t.Logf("stop the Temporal dev server: %v", err)
	}
	s.dev = nil
}

// Client dials the server; it is closed when the test ends.
func (s *Server) Client(t testing.TB) client.Client {
	t.Helper()
	quiet := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	c, err := client.Dial(client.Options{HostPort: s.Address, Namespace: "default", Logger: quiet})
	if err != nil {
		t.Fatalf("dial Temporal: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// WaitFor polls cond until it holds or the timeout passes. The timeout is
// stretched sixfold: the whole suite shares two cores, and a slow pass is
// not a failure (the wait ends as soon as cond holds).
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout *= 6
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Background runs run (worker.Run with the test's Deps, typically) until
// the returned stop cancels its context, and fails the test unless it then
// returns nil within 30 s. Stop is idempotent and also runs when the test
// ends.
func Background(t testing.TB, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("Run did not return after cancel")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
