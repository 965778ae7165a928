package notifications_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
)

// open starts the caller's notification stream (lastID: the Last-Event-ID
// header, if any).
func open(t *testing.T, base, token, lastID string) (<-chan apitest.SSEEvent, func()) {
	return apitest.OpenSSE(t, base+"/api/v1/notifications/stream", token, lastID)
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
	base := apitest.Serve(t, w.Env.App)
	id := w.createTicket(t, w.Member, nil)
	w.comment(t, w.Admin, id, "before the stream", nil) // not sent: the stream starts now

	events, stop := open(t, base, w.Member.Token, "")
	// A heartbeat comes while nothing happens.
	deadline := time.After(5 * time.Second)
	for beat := false; !beat; {
		select {
		case ev := <-events:
			beat = ev.Comment == "heartbeat"
		case <-deadline:
			t.Fatal("no heartbeat")
		}
	}
	// Written through the other replica.
	other.Do("POST", w.ticketURL(id)+"/comments", w.Admin.Token, map[string]any{"body": "via the other replica"}).Expect(t, 201)
	ev := apitest.NextSSE(t, events)
	var n note
	if err := json.Unmarshal([]byte(ev.Data), &n); err != nil {
		t.Fatal(err)
	}
	if ev.Event != "notification" || ev.ID != n.ID.String() || n.Excerpt != "via the other replica" || n.Type != "commented" {
		t.Fatalf("event %+v", ev)
	}
	// Someone else's notifications never come.
	w.comment(t, w.Member, id, "the Member's own comment", nil)
	w.comment(t, w.Admin, id, "second", nil)
	if ev := apitest.NextSSE(t, events); !strings.Contains(ev.Data, `"excerpt":"second"`) {
		t.Fatalf("event %+v, want the second comment", ev)
	}
	stop()

	// Resuming after the first: the second and what came while away.
	w.comment(t, w.Admin, id, "while away", nil)
	events, stop = open(t, base, w.Member.Token, n.ID.String())
	defer stop()
	for _, want := range []string{"second", "while away"} {
		if ev := apitest.NextSSE(t, events); !strings.Contains(ev.Data, `"excerpt":"`+want+`"`) {
			t.Fatalf("resumed event %+v, want %q", ev, want)
		}
	}
	select {
	case ev := <-events:
		if ev.Comment == "" {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}
	apitest.ExpectCode(t, w.Env.DoHeaders("GET", "/api/v1/notifications/stream", w.Member.Token, nil, map[string]string{"Last-Event-ID": "x"}), 422, "VALIDATION_ERROR")
}
