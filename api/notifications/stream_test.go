package notifications_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/notificationdb"
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

// TestStreamSendsALateCommit: a notification whose transaction took its id
// long before and commits after later ones were sent still comes on the
// open stream, once, and on a stream resumed after a later one.
func TestStreamSendsALateCommit(t *testing.T) {
	t.Parallel()
	w := setupWith(t, api.StreamOptions{Heartbeat: 100 * time.Millisecond, MaxAge: time.Minute})
	base := apitest.Serve(t, w.Env.App)
	id := w.createTicket(t, w.Member, nil)
	events, stop := open(t, base, w.Member.Token, "")
	defer stop()

	// The later notification is committed and sent first.
	w.comment(t, w.Admin, id, "later", nil)
	ev := apitest.NextSSE(t, events)
	if !strings.Contains(ev.Data, `"excerpt":"later"`) {
		t.Fatalf("event %+v, want the later comment", ev)
	}
	later := ev.ID

	// An id taken a minute ago, as by a transaction that ran that long.
	early := uuid.Must(uuid.NewV7())
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(time.Now().Add(-time.Minute).UnixMilli()))
	copy(early[:6], ms[2:])
	ctx := context.Background()
	inserted, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	commit := sync.OnceFunc(func() { close(release) })
	defer commit() // a failure before the commit must not leave the transaction open
	go func() {
		done <- w.Env.DB.InTx(ctx, func(q store.Querier) error {
			ids, err := notificationdb.Insert(ctx, q, []notificationdb.New{{ID: early, UserID: w.Member.ID,
				Type: notification.TypeImportFinished, OrgID: w.Owner.OrgID, Excerpt: "held open", CreatedAt: time.Now()}})
			if err == nil && len(ids) != 1 {
				err = fmt.Errorf("inserted %v", ids)
			}
			close(inserted)
			if err != nil {
				return err
			}
			<-release
			return nil
		})
	}()
	select {
	case <-inserted:
	case err := <-done:
		t.Fatal(err)
	}
	// Committed while the held one is open: sent after it, not before.
	w.comment(t, w.Admin, id, "after the held one", nil)
	select {
	case ev := <-events:
		if ev.Comment == "" {
			t.Fatalf("event %+v before the held transaction committed", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}
	commit()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"held open", "after the held one"}
	expect := func(events <-chan apitest.SSEEvent) {
		t.Helper()
		for _, s := range want {
			if ev := apitest.NextSSE(t, events); !strings.Contains(ev.Data, `"excerpt":"`+s+`"`) {
				t.Fatalf("event %+v, want %q", ev, s)
			}
		}
		deadline := time.After(300 * time.Millisecond)
		for {
			select {
			case ev := <-events:
				if ev.Comment == "" {
					t.Fatalf("unexpected event %+v", ev)
				}
			case <-deadline:
				return
			}
		}
	}
	expect(events)
	resumed, stop2 := open(t, base, w.Member.Token, later)
	defer stop2()
	expect(resumed)
}
