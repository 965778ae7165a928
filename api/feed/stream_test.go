package feed_test

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
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

type sseEvent struct{ id, event, data, comment string }

// open starts the feed's stream at path as token (lastID: the
// Last-Event-ID header, if any) and returns its events as they come.
func open(t *testing.T, base, path, token, lastID string) (<-chan sseEvent, func()) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
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

func decode(t *testing.T, ev sseEvent) item {
	t.Helper()
	var it item
	if err := json.Unmarshal([]byte(ev.data), &it); err != nil {
		t.Fatal(err)
	}
	if ev.id != it.ID.String() || ev.event != it.Type {
		t.Fatalf("event id %q type %q, item %s %s", ev.id, ev.event, it.ID, it.Type)
	}
	return it
}

// TestFeedStream: stream=true sends the feed's events as they are
// committed, including those written through another API replica (another
// app on the same database, woken by LISTEN/NOTIFY), keeps the types
// filter, sends heartbeats, and resumes after Last-Event-ID with exactly
// what came since.
func TestFeedStream(t *testing.T) {
	t.Parallel()
	opts := api.StreamOptions{Heartbeat: 100 * time.Millisecond, MaxAge: time.Minute}
	w := setupWith(t, opts)
	other := apitest.New(t, apitest.Options{DB: w.Env.DB, Modules: func(e *apitest.Env) []api.Module { return modules(t, e, opts) }})
	base := serve(t, w.Env.App)
	first := createTicket(t, w, w.Member.Token, w.Project.ID, "before the stream")
	path := feedURL(w, url.Values{"stream": {"true"}, "types": {"ticket.created,comment.created"}})

	events, stop := open(t, base, path, w.Admin.Token, "")
	// Without a position the stream starts at the oldest kept event.
	if it := decode(t, next(t, events)); it.Type != "ticket.created" || !strings.Contains(string(it.Data), first.String()) {
		t.Fatalf("first event %+v", it)
	}
	deadline := time.After(5 * time.Second)
	for beat := false; !beat; {
		select {
		case ev := <-events:
			beat = ev.comment == "heartbeat"
		case <-deadline:
			t.Fatal("no heartbeat")
		}
	}
	// Through the other replica; the update is not of the asked types.
	other.Do("PATCH", "/api/v1/tickets/"+first.String(), w.Member.Token, map[string]any{"title": "renamed"}).Expect(t, 200)
	other.Do("POST", "/api/v1/tickets/"+first.String()+"/comments", w.Member.Token, map[string]any{"body": "via the other replica"}).Expect(t, 201)
	comment := decode(t, next(t, events))
	if comment.Type != "comment.created" || !strings.Contains(string(comment.Data), "via the other replica") {
		t.Fatalf("event %+v", comment)
	}
	stop()

	// Away: two events happen; the reconnect gets exactly those.
	second := createTicket(t, w, w.Member.Token, w.Project.ID, "while away")
	w.Env.Do("POST", "/api/v1/tickets/"+second.String()+"/comments", w.Member.Token, map[string]any{"body": "also while away"}).Expect(t, 201)
	events, stop = open(t, base, path, w.Admin.Token, comment.ID.String())
	defer stop()
	if it := decode(t, next(t, events)); it.Type != "ticket.created" || !strings.Contains(string(it.Data), second.String()) {
		t.Fatalf("resumed with %+v", it)
	}
	if it := decode(t, next(t, events)); it.Type != "comment.created" || !strings.Contains(string(it.Data), "also while away") {
		t.Fatalf("resumed with %+v", it)
	}
	select {
	case ev := <-events:
		if ev.comment == "" {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}
	// The stream is refused like the page.
	apitest.ExpectCode(t, w.Env.Do("GET", path, w.Member.Token, nil), 403, "FORBIDDEN")
	apitest.ExpectCode(t, w.Env.DoHeaders("GET", path, w.Admin.Token, nil, map[string]string{"Last-Event-ID": "x"}), 422, "VALIDATION_ERROR")
}

// TestFeedStreamEndsWithAccess: an Admin demoted while streaming gets no
// further event: the stream ends at the next read.
func TestFeedStreamEndsWithAccess(t *testing.T) {
	t.Parallel()
	w := setupWith(t, api.StreamOptions{Heartbeat: time.Minute, MaxAge: time.Minute})
	base := serve(t, w.Env.App)
	events, stop := open(t, base, feedURL(w, url.Values{"stream": {"true"}}), w.Admin.Token, "")
	defer stop()
	w.Env.Exec(t, `UPDATE memberships SET role = 'member' WHERE user_id = $1 AND org_id = $2`, w.Admin.ID, w.Owner.OrgID)
	createTicket(t, w, w.Member.Token, w.Project.ID, "after the demotion")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.comment == "" {
				t.Fatalf("a demoted Admin got %+v", ev)
			}
		case <-deadline:
			t.Fatal("stream still open 10 s after the demotion")
		}
	}
}
