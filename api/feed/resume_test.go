package feed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	webhookact "tracker/activities/webhook"
	"tracker/api/apitest"
	"tracker/internal/safehttp"
	"tracker/store/webhookdb"
)

// TestFeedPagesAndResumes: pages chain through next_cursor; `after` takes
// an event id as well as a cursor, with the same result; types narrows;
// a caught-up reader gets its cursor back to poll with.
func TestFeedPagesAndResumes(t *testing.T) {
	t.Parallel()
	w := setup(t)
	empty := read(t, w, w.Admin.Token, nil)
	if len(empty.Items) != 0 || empty.NextCursor != nil {
		t.Fatalf("empty feed: %+v", empty)
	}
	var made []uuid.UUID
	for i := range 5 {
		made = append(made, createTicket(t, w, w.Member.Token, w.Project.ID, fmt.Sprint("ticket ", i)))
	}
	w.Env.Do("PATCH", "/api/v1/tickets/"+made[0].String(), w.Member.Token, map[string]any{"title": "renamed"}).Expect(t, 200)

	all, last := drain(t, w, w.Admin.Token, "", 2, "", 6)
	if len(all) != 6 || all[5].Type != "ticket.updated" {
		t.Fatalf("read %d events, last %v", len(all), all[len(all)-1].Type)
	}
	for i, it := range all[:5] {
		var data struct{ ID uuid.UUID }
		_ = json.Unmarshal(it.Data, &data)
		if it.Type != "ticket.created" || data.ID != made[i] {
			t.Errorf("event %d: %s of %s, want ticket.created of %s", i, it.Type, data.ID, made[i])
		}
	}
	// From an event id: the events after it.
	fromID, _ := drain(t, w, w.Admin.Token, all[2].ID.String(), 100, "", 3)
	if fmt.Sprint(ids(fromID)) != fmt.Sprint(ids(all[3:])) {
		t.Errorf("after an event id: %v, want %v", ids(fromID), ids(all[3:]))
	}
	// Caught up: nothing, and the same cursor back.
	p := read(t, w, w.Admin.Token, url.Values{"after": {last}})
	if len(p.Items) != 0 || p.NextCursor == nil || *p.NextCursor != last {
		t.Errorf("caught up: %+v, want no items and cursor %s", p, last)
	}
	updated, _ := drain(t, w, w.Admin.Token, "", 100, "ticket.updated,comment.created", 1)
	if len(updated) != 1 || updated[0].ID != all[5].ID {
		t.Errorf("types=ticket.updated: %v", ids(updated))
	}
}

// TestIntegratorCatchesUpAfterDowntime: events reach a real webhook
// receiver through the relay's delivery (activities/webhook); the receiver
// goes down and events keep happening; the integrator reads the feed after
// the last event id it received and gets exactly what it missed — nothing
// it already had — with the ids and data its deliveries carry.
func TestIntegratorCatchesUpAfterDowntime(t *testing.T) {
	t.Parallel()
	w := setup(t)
	var down atomic.Bool
	var mu sync.Mutex
	var delivered []map[string]any // bodies the receiver accepted
	bodies := map[uuid.UUID]map[string]any{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		defer mu.Unlock()
		bodies[uuid.MustParse(body["id"].(string))] = body
		if down.Load() {
			rw.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		delivered = append(delivered, body)
	}))
	defer srv.Close()
	var hook struct{ ID uuid.UUID }
	w.Env.Do("POST", "/api/v1/orgs/"+w.Owner.OrgID.String()+"/webhooks", w.Admin.Token,
		map[string]any{"url": srv.URL, "event_types": []string{"ticket.created", "ticket.updated", "comment.created"}}).Expect(t, 201).Decode(t, &hook)
	acts := &webhookact.Activities{DB: w.Env.DB, HTTP: safehttp.NewClient(true, 5*time.Second)}
	// deliver makes the relay's first attempt of every event not yet
	// offered, as the worker's relay does, once the org has total events.
	offered := map[uuid.UUID]bool{}
	deliver := func(total int) {
		t.Helper()
		all, _ := drain(t, w, w.Admin.Token, "", 100, "", total)
		hookRow, err := webhookdb.Get(context.Background(), w.Env.DB.Q(), w.Owner.OrgID, hook.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range all {
			if offered[it.ID] {
				continue
			}
			offered[it.ID] = true
			payload := apitest.Scalar[[]byte](t, w.Env, `SELECT payload FROM outbox WHERE id = $1`, it.ID)
			if _, err := acts.Attempt(context.Background(), webhookact.DeliverInput{OrgID: w.Owner.OrgID, WebhookID: hook.ID,
				EventID: it.ID, EventType: it.Type, Attempt: 1}, hookRow, payload); err != nil {
				t.Fatal(err)
			}
		}
	}

	id := createTicket(t, w, w.Member.Token, w.Project.ID, "before the outage")
	deliver(1)
	down.Store(true)
	w.Env.Do("PATCH", "/api/v1/tickets/"+id.String(), w.Member.Token, map[string]any{"title": "during the outage"}).Expect(t, 200)
	w.Env.Do("POST", "/api/v1/tickets/"+id.String()+"/comments", w.Member.Token, map[string]any{"body": "still down"}).Expect(t, 201)
	createTicket(t, w, w.Member.Token, w.Project.ID, "also during the outage")
	deliver(4)

	mu.Lock()
	if len(delivered) != 1 || len(bodies) != 4 {
		t.Fatalf("receiver accepted %d, was offered %d; want 1 and 4", len(delivered), len(bodies))
	}
	lastID := delivered[0]["id"].(string)
	mu.Unlock()

	missed, _ := drain(t, w, w.Env.APIKey(w.Admin, []string{"read"}), lastID, 2, "", 3)
	if len(missed) != 3 {
		t.Fatalf("caught up with %d events, want the 3 missed", len(missed))
	}
	mu.Lock()
	defer mu.Unlock()
	var types []string
	for _, it := range missed {
		types = append(types, it.Type)
		body, ok := bodies[it.ID]
		if !ok || slices.ContainsFunc(delivered, func(d map[string]any) bool { return d["id"] == it.ID.String() }) {
			t.Errorf("event %s: offered %v, or already delivered", it.ID, ok)
			continue
		}
		data, _ := json.Marshal(body["data"])
		if !jsonEqual(t, data, it.Data) || body["type"] != it.Type {
			t.Errorf("event %s: feed %s %s, webhook body %s %s", it.ID, it.Type, it.Data, body["type"], data)
		}
	}
	if fmt.Sprint(types) != "[ticket.updated comment.created ticket.created]" {
		t.Errorf("missed events %v", types)
	}
}

// TestFeedUnderConcurrentWriters: tickets created and updated through the
// API by concurrent writers while an integrator pages the feed with its
// cursor: it ends with every event exactly once.
func TestFeedUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	w := setup(t)
	const writers, each = 4, 8
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var out struct{ ID uuid.UUID }
				r := w.Env.Do("POST", "/api/v1/projects/"+w.Project.ID.String()+"/tickets", w.Member.Token, map[string]any{"title": fmt.Sprint("t", i)})
				if r.Status != 201 {
					t.Errorf("create: %d %s", r.Status, r.Body)
					return
				}
				_ = json.Unmarshal(r.Body, &out)
				if r := w.Env.Do("PATCH", "/api/v1/tickets/"+out.ID.String(), w.Member.Token, map[string]any{"title": "u"}); r.Status != 200 {
					t.Errorf("update: %d %s", r.Status, r.Body)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var got []item
	cursor := ""
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		var batch []item
		batch, cursor = drain(t, w, w.Admin.Token, cursor, 5, "", 0)
		got = append(got, batch...)
	}
	rest, _ := drain(t, w, w.Admin.Token, cursor, 5, "", 2*writers*each-len(got))
	got = append(got, rest...)
	seen := map[uuid.UUID]bool{}
	for _, it := range got {
		if seen[it.ID] {
			t.Errorf("event %s read twice", it.ID)
		}
		seen[it.ID] = true
	}
	want := apitest.Scalar[int](t, w.Env, `SELECT count(*) FROM outbox WHERE org_id = $1 AND topic LIKE 'ticket.%'`, w.Owner.OrgID)
	if len(seen) != want || want != 2*writers*each {
		t.Errorf("read %d distinct events, the outbox has %d, %d written", len(seen), want, 2*writers*each)
	}
}
