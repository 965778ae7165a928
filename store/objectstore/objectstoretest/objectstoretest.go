// Package objectstoretest starts the real object stores tests run against:
// a MinIO server (bin/minio, which `make test` builds) on a free port, and
// the embedded local store behind a real HTTP server.
package objectstoretest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/internal/syncbuf"
	"tracker/store/objectstore"
)

// MinIOCredentials are the root credentials of test servers.
const (
	AccessKey = "tracker-test"
	SecretKey = "tracker-test-secret"
	Bucket    = "attachments"
)

// minioBinary is TRACKER_MINIO_BIN (make test sets it), else bin/minio of
// the repository. Missing is a failure, not a skip: these tests are the
// proof that uploads work against real S3.
func minioBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TRACKER_MINIO_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("TRACKER_MINIO_BIN=%s: %v (build it with: make bin/minio)", p, err)
		}
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module tracker\n") {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("objectstoretest: repository root not found")
		}
		dir = parent
	}
	p := filepath.Join(dir, "bin", "minio")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no MinIO server at %s: build it with `make bin/minio` (or set TRACKER_MINIO_BIN)", p)
	}
	return p
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// StartMinIO runs a MinIO server for this test on a free loopback port with
// its data in a temporary directory, and returns its endpoint URL; the
// server stops when the test ends.
func StartMinIO(t testing.TB) string {
	t.Helper()
	bin := minioBinary(t)
	for attempt := 0; ; attempt++ {
		port, console := freePort(t), freePort(t)
		endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
		cmd := exec.Command(bin, "server", t.TempDir(), "--quiet",
			"--address", fmt.Sprintf("127.0.0.1:%d", port), "--console-address", fmt.Sprintf("127.0.0.1:%d", console))
		cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+AccessKey, "MINIO_ROOT_PASSWORD="+SecretKey,
			"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
		logs := &syncbuf.Buffer{Limit: 64 << 10} // the first 64 KiB of its stderr
		cmd.Stdout, cmd.Stderr = io.Discard, logs
		if err := cmd.Start(); err != nil {
			t.Fatalf("start minio: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if waitLive(endpoint, exited, 60*time.Second) {
			t.Cleanup(func() {
				_ = cmd.Process.Signal(os.Interrupt)
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					_ = cmd.Process.Kill()
					<-exited
				}
			})
			return endpoint
		}
		_ = cmd.Process.Kill()
		if attempt == 2 {
			t.Fatalf("minio did not come up at %s: %s", endpoint, logs)
		}
	}
}

func waitLive(endpoint string, exited <-chan error, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		res, err := http.Get(endpoint + "/minio/health/ready")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// S3Config is the config of a bucket on the server at endpoint.
func S3Config(endpoint string) objectstore.S3Config {
	return objectstore.S3Config{Endpoint: endpoint, Bucket: Bucket, Region: "us-east-1",
		AccessKey: AccessKey, SecretKey: SecretKey, PathStyle: true}
}

// MinIO starts a server and returns the S3 backend on a fresh bucket.
func MinIO(t testing.TB) *objectstore.S3 {
	t.Helper()
	s, err := objectstore.NewS3(S3Config(StartMinIO(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// Local returns the embedded store in a temporary directory, served by a
// real HTTP server (its presigned URLs point there).
func Local(t testing.TB, now func() time.Time) *objectstore.Local {
	t.Helper()
	var l *objectstore.Local
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { l.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	l = NewLocal(t, srv.URL+strings.TrimSuffix(objectstore.StoragePrefix, "/"), now)
	return l
}

// NewLocal is the embedded store in a temporary directory whose URLs start
// with baseURL (a server the caller runs).
func NewLocal(t testing.TB, baseURL string, now func() time.Time) *objectstore.Local {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	l, err := objectstore.NewLocal(t.TempDir(), baseURL, secret, now)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
