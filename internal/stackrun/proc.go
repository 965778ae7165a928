package stackrun

import (
	"context"
	"errors"
	"fmt"
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
