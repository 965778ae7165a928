// Command benchbody measures what over-limit bodies cost the server: it
// serves the API in process (as benchkit does, through the lingering
// listener the binary uses), sends -n bodies of -size bytes with Go's
// net/http client (half by Content-Length, half chunked; streamed, never
// held by the client), to POST /auth/login and to a create route, checks
// that every one is answered 413 with the envelope, and prints the
// process's RSS before and after. It exits 1 when an answer is not read or
// RSS grew by more than -max-growth MiB.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"tracker/api"
	"tracker/api/projects"
	"tracker/cmd/internal/benchkit"
	"tracker/domain"
	"tracker/domain/project"
	"tracker/store"
)

func main() {
	n := flag.Int("n", 20, "over-limit requests")
	size := flag.Int64("size", 200<<20, "bytes per body")
	maxGrowth := flag.Int("max-growth", 32, "RSS growth (MiB) above which the run fails")
	flag.Parse()
	if err := run(*n, *size, *maxGrowth); err != nil {
		fmt.Fprintln(os.Stderr, "benchbody:", err)
		os.Exit(1)
	}
}

func run(n int, size int64, maxGrowth int) error {
	ctx := context.Background()
	s, err := benchkit.Serve(ctx, "", false, func(db *store.DB, clock domain.Clock) []api.Module {
		return []api.Module{projects.New(project.New(db, clock))}
	})
	if err != nil {
		return err
	}
	defer s.Stop()
	var auth struct {
		AccessToken string `json:"access_token"`
	}
	if err := benchkit.Call(ctx, s.URL, "POST", "/api/v1/auth/register", "", map[string]string{
		"email": "body@example.test", "password": "bench-password-1", "display_name": "Body"}, &auth); err != nil {
		return err
	}
	routes := []struct{ path, token string }{
		{"/api/v1/auth/login", ""},
		{"/api/v1/projects", auth.AccessToken},
	}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}
	// One over-limit request first: what the first one allocates once (pools,
	// buffers) is not growth.
	if err := send(client, s.URL+routes[0].path, "", 2<<20, false); err != nil {
		return err
	}
	runtime.GC()
	before := rss()
	start := time.Now()
	for i := range n {
		r := routes[i%len(routes)]
		if err := send(client, s.URL+r.path, r.token, size, i%4 >= 2); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	elapsed := time.Since(start)
	time.Sleep(2 * time.Second) // the last connections' linger ends
	runtime.GC()
	after := rss()
	fmt.Printf("%d over-limit bodies of %d MiB (by Content-Length and chunked, to login and a create route): every one answered 413 with the envelope in %s\n",
		n, size>>20, elapsed.Round(time.Millisecond))
	fmt.Printf("RSS before %d MiB, after %d MiB (growth %+d MiB)\n", before>>20, after>>20, (after-before)>>20)
	if (after-before)>>20 > int64(maxGrowth) {
		return fmt.Errorf("RSS grew by more than %d MiB", maxGrowth)
	}
	return nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// send posts size bytes of an endless reader and expects the 413 envelope.
func send(client *http.Client, url, token string, size int64, chunked bool) error {
	req, err := http.NewRequest("POST", url, io.LimitReader(zeros{}, size))
	if err != nil {
		return err
	}
	req.ContentLength = size
	if chunked {
		req.ContentLength = -1
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	var env struct{ Error struct{ Code string } }
	if res.StatusCode != 413 || json.Unmarshal(b, &env) != nil || env.Error.Code != "PAYLOAD_TOO_LARGE" {
		return fmt.Errorf("%s: %d %s", url, res.StatusCode, b)
	}
	return nil
}

// rss is the process's resident set size in bytes (Linux).
func rss() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
