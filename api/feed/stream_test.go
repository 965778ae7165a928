package feed_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
)

// open starts the feed's stream at path as token (lastID: the
// Last-Event-ID header, if any).
func open(t *testing.T, base, path, token, lastID string) (<-chan apitest.SSEEvent, func()) {
	return apitest.OpenSSE(t, base+path, token, lastID)
}

func decode(t *testing.T, ev apitest.SSEEvent) item {
	t.Helper()
	var it item
	if err := json.Unmarshal([]byte(ev.Data), &it); err != nil {
		t.Fatal(err)
	}
	if ev.ID != it.ID.String() || ev.Event != it.Type {
		t.Fatalf("event id %q type %q, item %s %s", ev.ID, ev.Event, it.ID, it.Type)
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
	base := apitest.Serve(t, w.Env.App)
	first := createTicket(t, w, w.Member.Token, w.Project.ID, "before the stream")
	path := feedURL(w, url.Values{"stream": {"true"}, "types": {"ticket.created,comment.created"}})

	events, stop := open(t, base, path, w.Admin.Token, "")
	// Without a position the stream starts at the oldest kept event.
	if it := decode(t, apitest.NextSSE(t, events)); it.Type != "ticket.created" || !strings.Contains(string(it.Data), first.String()) {
		t.Fatalf("first event %+v", it)
	}
	deadline := time.After(5 * time.Second)
	for beat := false; !beat; {
		select {
		case ev := <-events:
			beat = ev.Comment == "heartbeat"
		case <-deadline:
			t.Fatal("no heartbeat")
		}
	}
	// Through the other replica; the update is not of the asked types.
	other.Do("PATCH", "/api/v1/tickets/"+first.String(), w.Member.Token, map[string]any{"title": "renamed"}).Expect(t, 200)
	other.Do("POST", "/api/v1/tickets/"+first.String()+"/comments", w.Member.Token, map[string]any{"body": "via the other replica"}).Expect(t, 201)
	comment := decode(t, apitest.NextSSE(t, events))
	if comment.Type != "comment.created" || !strings.Contains(string(comment.Data), "via the other replica") {
		t.Fatalf("event %+v", comment)
	}
	stop()

	// Away: two events happen; the reconnect gets exactly those.
	second := createTicket(t, w, w.Member.Token, w.Project.ID, "while away")
	w.Env.Do("POST", "/api/v1/tickets/"+second.String()+"/comments", w.Member.Token, map[string]any{"body": "also while away"}).Expect(t, 201)
	events, stop = open(t, base, path, w.Admin.Token, comment.ID.String())
	defer stop()
	if it := decode(t, apitest.NextSSE(t, events)); it.Type != "ticket.created" || !strings.Contains(string(it.Data), second.String()) {
		t.Fatalf("resumed with %+v", it)
	}
	if it := decode(t, apitest.NextSSE(t, events)); it.Type != "comment.created" || !strings.Contains(string(it.Data), "also while away") {
		t.Fatalf("resumed with %+v", it)
	}
	select {
	case ev := <-events:
		if ev.Comment == "" {
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
	base := apitest.Serve(t, w.Env.App)
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
			if ev.Comment == "" {
				t.Fatalf("a demoted Admin got %+v", ev)
			}
		case <-deadline:
			t.Fatal("stream still open 10 s after the demotion")
		}
	}
}
