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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// Proc is one tracker process of a stack. Its port and environment stay
// the same across restarts.
type Proc struct {
	Name    string // api-1, worker-2
	Role    string // api or worker
	Addr    string // 127.0.0.1:port: the API, or the worker's /metrics and /health
	URL     string // http://Addr
	LogPath string

	binary  string
	dir     string
	env     []string
	timeout time.Duration

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

func newProc(c Config, name, role, addr string, env map[string]string) *Proc {
	p := &Proc{Name: name, Role: role, Addr: addr, LogPath: filepath.Join(c.LogDir, name+".log"),
		binary: c.Binary, dir: c.Dir, timeout: c.StartTimeout, env: os.Environ()}
	if addr != "" {
		p.URL = "http://" + addr
	}
	for k, v := range env {
		p.env = append(p.env, k+"="+v)
	}
	return p
}

// launch starts the process without waiting for it to be healthy.
func (p *Proc) launch() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		select {
		case <-p.done:
		default:
			return fmt.Errorf("%s is already running (pid %d)", p.Name, p.cmd.Process.Pid)
		}
	}
	f, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.binary, p.Role)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = p.dir, p.env, f, f
	// Its own process group: a Ctrl-C in the terminal reaches the caller,
	// which stops the replicas in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	return nil
}

// run starts the process and waits for it to exit 0 (migrate).
func (p *Proc) run(ctx context.Context) error {
	if err := p.launch(); err != nil {
		return err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Kill()
		return ctx.Err()
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("tracker %s exited %d:\n%s", p.Role, code, p.LogTail(4000))
	}
	return nil
}

// Done is closed when the current process exits (already closed when none runs).
func (p *Proc) Done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.done
}

// Running tells whether the process runs.
func (p *Proc) Running() bool {
	select {
	case <-p.Done():
		return false
	default:
		return true
	}
}

// PID is the current process's id (0 when none runs).
func (p *Proc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	select {
	case <-p.done:
		return 0
	default:
		return p.cmd.Process.Pid
	}
}

// Kill ends the process at once with SIGKILL (a crash) and waits for it.
func (p *Proc) Kill() {
	p.signal(syscall.SIGKILL)
	<-p.Done()
}

// Stop ends the process gracefully (SIGTERM), with SIGKILL after timeout.
func (p *Proc) Stop(timeout time.Duration) {
	if !p.Running() {
		return
	}
	p.signal(syscall.SIGTERM)
	select {
	case <-p.Done():
	case <-time.After(timeout):
		p.Kill()
	}
}

func (p *Proc) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// Start starts a process that is not running again, with the same port
// and environment, and waits until it is healthy.
func (p *Proc) Start(ctx context.Context) error {
	if err := p.launch(); err != nil {
		return err
	}
	return p.WaitHealthy(ctx)
}

// Restart is Stop (20 s grace) then Start.
func (p *Proc) Restart(ctx context.Context) error {
	p.Stop(20 * time.Second)
	return p.Start(ctx)
}

// WaitHealthy waits until the process answers GET /health with 200 (both
// roles serve it: the worker on SERVICE_WORKER_METRICS_ADDR), or fails
// when it exits or the start timeout passes.
func (p *Proc) WaitHealthy(ctx context.Context) error {
	deadline := time.Now().Add(p.timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		if p.URL != "" {
			if resp, err := client.Get(p.URL + "/health"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return nil
				}
			}
		}
		select {
		case <-p.Done():
			return fmt.Errorf("tracker %s exited during start-up:\n%s", p.Name, p.LogTail(4000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tracker %s did not answer /health in %s:\n%s", p.Name, p.timeout, p.LogTail(4000))
		}
	}
}

// RSS is the process's resident set size in bytes (Linux /proc).
func (p *Proc) RSS() (int64, error) { return RSSOf(p.PID()) }

// RSSOf reads VmRSS of a process from /proc/<pid>/status.
func RSSOf(pid int) (int64, error) {
	if pid <= 0 {
		return 0, errors.New("not running")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS")
}

// LogTail is the last n bytes of the process's log.
func (p *Proc) LogTail(n int) string {
	b, _ := os.ReadFile(p.LogPath)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
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
