// Package e2e drives the real binary over HTTP: it builds bin/tracker once,
// runs it against a fresh database and the real Temporal dev server (started
// from the CLI built by `make temporal`), with a webhook receiver on
// 127.0.0.1.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/worker/workertest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds ./cmd/tracker once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tracker-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tracker")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/tracker")
		cmd.Dir = workertest.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is one running tracker process.
type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// start runs `tracker <role>` with env; its output goes to a log file shown
// when the test fails.
func start(t *testing.T, role string, env map[string]string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), role+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), role)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 6000 {
				b = b[len(b)-6000:]
			}
			t.Logf("--- tail of tracker %s log ---\n%s", role, b)
		}
	})
	return p
}

// stop ends the process gracefully (SIGTERM), killing it after 15 s.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.kill()
	}
}

// kill ends the process at once (SIGKILL): a crash.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// stack is one test's configuration of the binary.
type stack struct {
	t        *testing.T
	env      map[string]string
	BaseURL  string
	DBURL    string
	Temporal *workertest.Server
}

// newStack prepares the environment for a tracker on dbURL and srv.
func newStack(t *testing.T, dbURL string, srv *workertest.Server, extra map[string]string) *stack {
	port := workertest.FreePort(t)
	env := map[string]string{
		"SERVICE_ADDR":                  "127.0.0.1:" + strconv.Itoa(port),
		"SERVICE_DATABASE_URL":          dbURL,
		"SERVICE_TEMPORAL_ADDRESS":      srv.Address,
		"SERVICE_TEMPORAL_NAMESPACE":    "default",
		"SERVICE_TASK_QUEUE":            "e2e-" + uuid.NewString()[:8],
		"SERVICE_JWT_SECRET":            "e2e-secret-0123456789abcdef0123456789",
		"SERVICE_WEBHOOK_ALLOW_PRIVATE": "true",
		"SERVICE_LOG_LEVEL":             "info",
	}
	for k, v := range extra {
		env[k] = v
	}
	return &stack{t: t, env: env, BaseURL: "http://127.0.0.1:" + strconv.Itoa(port), DBURL: dbURL, Temporal: srv}
}

// run starts a role (api, worker, dev); api and dev wait for /health. A
// standalone worker listens on nothing (SERVICE_WORKER_METRICS_ADDR unset).
func (s *stack) run(role string) *proc {
	s.t.Helper()
	p := start(s.t, role, s.env)
	if role != "worker" {
		deadline := time.Now().Add(60 * time.Second)
		for {
			resp, err := http.Get(s.BaseURL + "/health")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			select {
			case <-p.done:
				s.t.Fatalf("tracker %s exited during start-up", role)
			default:
			}
			if time.Now().After(deadline) {
				s.t.Fatalf("tracker %s did not answer /health", role)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return p
}

// resp is an HTTP answer.
type resp struct {
	Status int
	Body   []byte
}

func (r resp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

func (r resp) m(t *testing.T) map[string]any {
	var v map[string]any
	r.decode(t, &v)
	return v
}

// routeMissing tells a route another engineer has not mounted yet.
func (r resp) routeMissing() bool {
	return r.Status == 404 && strings.Contains(string(r.Body), "route not found")
}

// do calls the API.
func (s *stack) do(method, path, token string, body any) resp {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, s.BaseURL+"/api/v1"+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Body: b}
}

// must is do that fails the test unless the status is want.
func (s *stack) must(want int, method, path, token string, body any) resp {
	s.t.Helper()
	r := s.do(method, path, token, body)
	if r.Status != want {
		s.t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	return r
}

// user is a registered account and its personal org.
type user struct {
	ID, OrgID uuid.UUID
	Token     string
}

func (s *stack) register(name string) user {
	s.t.Helper()
	email := fmt.Sprintf("%s-%s@e2e.test", name, uuid.NewString()[:8])
	var a struct {
		AccessToken string    `json:"access_token"`
		UserID      uuid.UUID `json:"user_id"`
	}
	s.must(201, "POST", "/auth/register", "", map[string]any{"email": email, "password": "correct-horse-1", "display_name": name}).decode(s.t, &a)
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	s.must(200, "GET", "/auth/me", a.AccessToken, nil).decode(s.t, &me)
	return user{ID: a.UserID, OrgID: me.OrgID, Token: a.AccessToken}
}

// waitFor polls cond until it holds or the timeout (stretched sixfold)
// passes.
var waitFor = workertest.WaitFor
