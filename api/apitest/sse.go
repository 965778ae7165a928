package apitest

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Serve runs app on a loopback port until the test ends and returns its
// base URL: streams need a real connection (app.Test buffers the whole
// answer).
func Serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(time.Second) })
	return "http://" + ln.Addr().String()
}

// SSEEvent is one event or comment read from a Server-Sent Events stream.
type SSEEvent struct {
	ID, Event, Data, Comment string
}

// OpenSSE starts the stream at url as token (lastID: the Last-Event-ID
// header, if any) and returns its events as they come, and a stop.
func OpenSSE(t testing.TB, url, token, lastID string) (<-chan SSEEvent, func()) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan SSEEvent, 100)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		var ev SSEEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (SSEEvent{}) {
					out <- ev
				}
				ev = SSEEvent{}
			case strings.HasPrefix(line, ": "):
				ev.Comment = line[2:]
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data += line[6:]
			}
		}
	}()
	return out, func() { _ = res.Body.Close() }
}

// NextSSE is the stream's next event (not a comment), failing the test
// when the stream ends or nothing comes within 10 s.
func NextSSE(t testing.TB, events <-chan SSEEvent) SSEEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("stream ended")
			}
			if ev.Comment == "" {
				return ev
			}
		case <-deadline:
			t.Fatal("no event within 10 s")
		}
	}
}
