package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
)

// serveLingering serves env's app on a loopback port through
// api.LingerListener, as the binary does.
func serveLingering(t *testing.T, env *apitest.Env) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = env.App.Listener(api.LingerListener(ln)) }()
	t.Cleanup(func() { _ = ln.Close() })
	return "http://" + ln.Addr().String()
}

// zeros is an endless body that is never held in memory.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// postHuge sends n bytes with net/http's client, by Content-Length or
// (chunked) without one, and returns the status and the body it read.
func postHuge(t *testing.T, client *http.Client, url, token string, n int64, chunked bool) (int, []byte, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", url, io.LimitReader(zeros{}, n))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = n
	if chunked {
		req.ContentLength = -1
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s (%d bytes, chunked %v): %v", url, n, chunked, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("POST %s: reading the answer: %v", url, err)
	}
	return res.StatusCode, b, res
}

// TestOverLimitBodyAnswerReachesClient: net/http's client, sending 200 MiB
// by Content-Length or chunked, reads the 413 envelope (not "connection
// reset by peer"), again and again: the refusal races the client's write.
func TestOverLimitBodyAnswerReachesClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: func(*apitest.Env) []api.Module { return []api.Module{echoModule{}} }})
	u := env.Register("Huge")
	base := serveLingering(t, env)
	client := &http.Client{Transport: &http.Transport{}}
	for i := range 5 {
		for _, route := range []struct{ path, token string }{
			{"/api/v1/auth/login", ""},
			{"/api/v1/test-small", u.Token},
			{"/api/v1/test-upload", u.Token},
		} {
			for _, chunked := range []bool{false, true} {
				status, body, res := postHuge(t, client, base+route.path, route.token, 200<<20, chunked)
				var env struct{ Error struct{ Code string } }
				if status != 413 || json.Unmarshal(body, &env) != nil || env.Error.Code != "PAYLOAD_TOO_LARGE" {
					t.Fatalf("round %d %s chunked=%v: %d %s", i, route.path, chunked, status, body)
				}
				if !res.Close {
					t.Fatalf("%s: the 413 does not close the connection", route.path)
				}
			}
		}
	}
}

// TestOverLimitConnectionNotReused: after a 413 the client's next request
// goes over a new connection, and the refused body's bytes are never taken
// for a request: a body made of requests gets one answer, the 413.
func TestOverLimitConnectionNotReused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: func(*apitest.Env) []api.Module { return []api.Module{echoModule{}} }})
	u := env.Register("Reuse")
	base := serveLingering(t, env)
	client := &http.Client{Transport: &http.Transport{}}
	if status, _, _ := postHuge(t, client, base+"/api/v1/test-small", u.Token, 2<<20, false); status != 413 {
		t.Fatalf("status %d", status)
	}
	reused := true
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	})
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/health", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 200 || reused {
		t.Fatalf("after a 413: status %d, connection reused %v", res.StatusCode, reused)
	}

	// Smuggling: the over-limit body holds whole requests.
	inner := "GET /health HTTP/1.1\r\nHost: tracker.test\r\n\r\n"
	body := strings.Repeat(inner, (2<<20)/len(inner)+1)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() {
		_, _ = fmt.Fprintf(conn, "POST /api/v1/test-small HTTP/1.1\r\nHost: tracker.test\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s",
			u.Token, len(body), body)
	}()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("reading answers: %v (read %q)", err, got)
	}
	if n := bytes.Count(got, []byte("HTTP/1.1 ")); n != 1 || !bytes.HasPrefix(got, []byte("HTTP/1.1 413")) {
		t.Fatalf("%d answers to one over-limit request: %.500s", n, got)
	}
}
