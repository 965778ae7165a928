// Package stackrun runs Tracker in its production shape on one machine: N
// `tracker api` replicas and M `tracker worker` replicas as separate
// processes on free loopback ports, against one PostgreSQL and one Temporal
// server, behind a round-robin reverse proxy (Proxy) that is the stack's one
// address. `make stack` (cmd/stack), the end-to-end suite, the fault suite
// and the soak (cmd/soak) share it; processes can be killed with SIGKILL,
// stopped and started again on the same port.
package stackrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Build compiles ./cmd/tracker of the module rooted at root into out.
func Build(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/tracker")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/tracker: %v\n%s", err, b)
	}
	return nil
}

// Config describes a stack.
type Config struct {
	Binary          string // the tracker binary (Build)
	DatabaseURL     string // SERVICE_DATABASE_URL of every process
	TemporalAddress string // SERVICE_TEMPORAL_ADDRESS of every process
	APIs, Workers   int    // replicas of each role (0 APIs: no proxy either)
	// Env is added to every process's environment after the inherited one
	// and the stack's own settings, so it overrides both.
	Env map[string]string
	// LogDir holds each process's output, <name>.log (api-1.log, worker-2.log,
	// migrate.log), appended to across restarts; default a new temporary
	// directory.
	LogDir string
	// Dir is the processes' working directory (the local attachment store
	// .data/objects is relative to it); default the caller's.
	Dir string
	// ProxyAddr is the proxy's listen address; default 127.0.0.1:0 (a free port).
	ProxyAddr string
	// SkipMigrate skips `tracker migrate` before the replicas start.
	SkipMigrate bool
	// StartTimeout bounds each process's wait for /health; default 90 s.
	StartTimeout time.Duration
}

// Stack is a running set of processes behind a proxy.
type Stack struct {
	URL     string // the proxy's base URL (http://127.0.0.1:port)
	APIs    []*Proc
	Workers []*Proc
	Proxy   *Proxy
	LogDir  string
}

// Start migrates the database, starts the proxy, then every replica, and
// waits until each answers /health. On an error it stops whatever it
// started.
func Start(ctx context.Context, c Config) (_ *Stack, err error) {
	if c.Binary == "" || c.DatabaseURL == "" {
		return nil, errors.New("stackrun: Binary and DatabaseURL are required")
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 90 * time.Second
	}
	if c.ProxyAddr == "" {
		c.ProxyAddr = "127.0.0.1:0"
	}
	if c.LogDir == "" {
		if c.LogDir, err = os.MkdirTemp("", "tracker-stack-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(c.LogDir, 0o755); err != nil {
		return nil, err
	}
	s := &Stack{LogDir: c.LogDir}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if c.APIs > 0 {
		if s.Proxy, err = Listen(c.ProxyAddr); err != nil {
			return nil, err
		}
		s.URL = s.Proxy.URL
	}
	base := map[string]string{
		"SERVICE_DATABASE_URL":     c.DatabaseURL,
		"SERVICE_TEMPORAL_ADDRESS": c.TemporalAddress,
		// The proxy's X-Forwarded-For names the client; the rate limit's
		// per-IP buckets and the audit log see it, not the proxy.
		"SERVICE_TRUSTED_PROXIES": "127.0.0.1/32",
	}
	if s.URL != "" {
		base["SERVICE_PUBLIC_URL"] = s.URL
	}
	// Replicas must share the signing secret and the sealing key: a token
	// one replica issued is checked by another.
	for _, k := range []string{"SERVICE_JWT_SECRET", "SERVICE_SECRETS_KEY"} {
		if os.Getenv(k) == "" {
			base[k] = randomHex(32)
		}
	}
	for k, v := range c.Env {
		base[k] = v
	}
	if !c.SkipMigrate {
		m := newProc(c, "migrate", "migrate", "", base)
		if err := m.run(ctx); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= c.APIs; i++ {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		env := clone(base)
		env["SERVICE_ADDR"] = addr
		s.APIs = append(s.APIs, newProc(c, fmt.Sprintf("api-%d", i), "api", addr, env))
	}
	for i := 1; i <= c.Workers; i++ {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		env := clone(base)
		env["SERVICE_WORKER_METRICS_ADDR"] = addr
		s.Workers = append(s.Workers, newProc(c, fmt.Sprintf("worker-%d", i), "worker", addr, env))
	}
	for _, p := range s.Procs() {
		if err := p.launch(); err != nil {
			return nil, err
		}
	}
	for _, p := range s.Procs() {
		if err := p.WaitHealthy(ctx); err != nil {
			return nil, err
		}
	}
	if s.Proxy != nil {
		s.Proxy.SetBackends(s.APIs)
	}
	return s, nil
}

// Procs is every replica, APIs first.
func (s *Stack) Procs() []*Proc {
	return append(append([]*Proc(nil), s.APIs...), s.Workers...)
}

// Close stops every replica (SIGTERM, SIGKILL after 20 s), then the proxy.
func (s *Stack) Close() error {
	var wg sync.WaitGroup
	for _, p := range s.Procs() {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop(20 * time.Second) }()
	}
	wg.Wait()
	if s.Proxy != nil {
		return s.Proxy.Close()
	}
	return nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
