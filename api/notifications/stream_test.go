package notifications_test

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/api/apitest"
)

// serve runs app on a loopback port until the test ends (streams need a
// real connection: app.Test buffers the whole answer).
func serve(t *testing.T, app *fiber.App) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(time.Second) })
	return "http://" + ln.Addr().String()
}

// sseEvent is one event or comment read from a stream.
type sseEvent struct {
	id, event, data, comment string
}

// open starts a stream as token (lastID: the Last-Event-ID header, if any)
// and returns its events as they come.
func open(t *testing.T, base, token, lastID string) (<-chan sseEvent, func()) {
	req, _ := http.NewRequest("GET", base+"/api/v1/notifications/stream", nil)
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
	out := make(chan sseEvent, 100)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ": "):
				ev.comment = line[2:]
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:]
			}
		}
	}()
	return out, func() { _ = res.Body.Close() }
}

// next is the next event (not a comment) of the stream.
func next(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("stream ended")
			}
			if ev.comment == "" {
				return ev
			}
		case <-deadline:
			t.Fatal("no event within 10 s")
		}
	}
}

// TestStream: the stream sends the caller's new notifications, including
// those written through another API replica (another app on the same
// database), resumes after Last-Event-ID without loss and sends heartbeats.
func TestStream(t *testing.T) {
	t.Parallel()
	opts := api.StreamOptions{Heartbeat: 100 * time.Millisecond, MaxAge: time.Minute}
	w := setupWith(t, opts)
	other := apitest.New(t, apitest.Options{DB: w.Env.DB, Modules: func(e *apitest.Env) []api.Module {
		mods, _ := modules(t, e, opts)
		return mods
	}})
	base := serve(t, w.Env.App)
	id := w.createTicket(t, w.Member, nil)
	w.comment(t, w.Admin, id, "before the stream", nil) // not sent: the stream starts now

	events, stop := open(t, base, w.Member.Token, "")
	// A heartbeat comes while nothing happens.
	deadline := time.After(5 * time.Second)
	for beat := false; !beat; {
		select {
		case ev := <-events:
			beat = ev.comment == "heartbeat"
		case <-deadline:
			t.Fatal("no heartbeat")
		}
	}
	// Written through the other replica.
	other.Do("POST", w.ticketURL(id)+"/comments", w.Admin.Token, map[string]any{"body": "via the other replica"}).Expect(t, 201)
	ev := next(t, events)
	var n note
	if err := json.Unmarshal([]byte(ev.data), &n); err != nil {
		t.Fatal(err)
	}
	if ev.event != "notification" || ev.id != n.ID.String() || n.Excerpt != "via the other replica" || n.Type != "commented" {
		t.Fatalf("event %+v", ev)
	}
	// Someone else's notifications never come.
	w.comment(t, w.Member, id, "the Member's own comment", nil)
	w.comment(t, w.Admin, id, "second", nil)
	if ev := next(t, events); !strings.Contains(ev.data, `"excerpt":"second"`) {
		t.Fatalf("event %+v, want the second comment", ev)
	}
	stop()

	// Resuming after the first: the second and what came while away.
	w.comment(t, w.Admin, id, "while away", nil)
	events, stop = open(t, base, w.Member.Token, n.ID.String())
	defer stop()
	for _, want := range []string{"second", "while away"} {
		if ev := next(t, events); !strings.Contains(ev.data, `"excerpt":"`+want+`"`) {
			t.Fatalf("resumed event %+v, want %q", ev, want)
		}
	}
	select {
	case ev := <-events:
		if ev.comment == "" {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}
	apitest.ExpectCode(t, w.Env.DoHeaders("GET", "/api/v1/notifications/stream", w.Member.Token, nil, map[string]string{"Last-Event-ID": "x"}), 422, "VALIDATION_ERROR")
}
