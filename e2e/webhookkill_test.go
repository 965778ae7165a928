package e2e

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// TestFaultWorkerKilledMidDeliveries: events to two webhooks, one of which
// refuses every event's first attempt (500, then 200); the worker is
// killed with SIGKILL in the middle of the deliveries and started again
// after a pause. Every (event, webhook) pair arrives, always under its one
// delivery id, nothing is lost, and the delivery log ends with a 2xx for
// every pair. Short: 120 events (240 deliveries), restarted after 2 s;
// FAULTS=long: 500 events (1,000 deliveries), restarted after 10 s.
func TestFaultWorkerKilledMidDeliveries(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_WEBHOOK_RETRY_SCALE": "0.001"})
	s.run("api")
	w := s.run("worker")
	u := s.register("owner")
	slow := func(int) int { time.Sleep(100 * time.Millisecond); return 200 }
	steady := newReceiver(t, slow)
	var mu sync.Mutex
	seen := map[uuid.UUID]bool{}
	var refusing *receiver
	refusing = newReceiver(t, func(n int) int { // the first post of each event is refused
		time.Sleep(100 * time.Millisecond)
		id := refusing.got()[n-1].Event.ID
		mu.Lock()
		defer mu.Unlock()
		if !seen[id] {
			seen[id] = true
			return 500
		}
		return 200
	})
	hooks := []uuid.UUID{s.createWebhook(u, steady, domain.EventTicketCreated), s.createWebhook(u, refusing, domain.EventTicketCreated)}

	events := pick(120, 500)
	f := &figures{name: "worker killed (SIGKILL)"}
	f.attempted.Store(int64(2 * events))
	for i := 0; i < events; i++ {
		emitDirect(t, db, u.OrgID, domain.EventTicketCreated, map[string]any{"n": i})
	}
	// Killed once a part of the deliveries is recorded as answered (a
	// refused first attempt among them), not merely received: posts
	// received but not yet answered are all cut short by the kill, and on
	// a loaded machine that can be every one of them.
	waitFor(t, 60*time.Second, "a part of the deliveries answered", func() bool {
		return scalar(t, db, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2 AND status_code BETWEEN 200 AND 299`,
			u.OrgID, hooks[0]) >= events/4 &&
			scalar(t, db, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2 AND attempt = 1 AND status_code = 500`,
				u.OrgID, hooks[1]) > 0
	})
	w.kill()
	mid := len(steady.got()) + len(refusing.got())
	time.Sleep(pick(2*time.Second, 10*time.Second))
	restarted := time.Now()
	s.run("worker")
	waitFor(t, 150*time.Second, "a delivery after the restart", func() bool { return len(steady.got())+len(refusing.got()) > mid })
	f.recovery = time.Since(restarted)

	// Claimed rows come back when their lease (1 min) ends.
	waitFor(t, 150*time.Second, "a 2xx in the delivery log for every pair", func() bool {
		return scalar(t, db, `SELECT count(DISTINCT (event_id, webhook_id)) FROM webhook_deliveries
			WHERE org_id = $1 AND status_code BETWEEN 200 AND 299`, u.OrgID) == 2*events
	})
	for i, rcv := range []*receiver{steady, refusing} {
		posts := map[uuid.UUID]int{}
		for _, h := range rcv.got() {
			if h.SigErr != nil {
				t.Errorf("signature: %v", h.SigErr)
			}
			if got, want := h.Header.Get(webhook.HeaderDelivery), webhook.DeliveryKey(h.Event.ID, hooks[i]).String(); got != want {
				f.duplicated.Add(1)
				t.Errorf("event %s at webhook %d under delivery id %s, want %s", h.Event.ID, i, got, want)
			}
			posts[h.Event.ID]++
		}
		if len(posts) != events {
			f.lost.Add(int64(events - len(posts)))
			t.Errorf("webhook %d received %d events, want %d", i, len(posts), events)
		}
		f.succeeded.Add(int64(len(posts)))
		extra := 0
		for _, n := range posts {
			extra += n - 1
		}
		f.retried.Add(int64(extra))
		t.Logf("webhook %d: %d events, %d posts beyond one per event (refused first attempts and at-least-once repeats)", i, len(posts), extra)
	}
	// One first attempt per pair in the log (a first attempt cut short by
	// the kill is posted again under the same row), and the refused ones
	// retried by the workflow.
	if n := scalar(t, db, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND attempt = 1 AND redelivery = 0`,
		u.OrgID); n != 2*events {
		t.Errorf("%d first attempts recorded, want %d", n, 2*events)
	}
	if n := scalar(t, db, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2 AND attempt = 1 AND status_code = 500`,
		u.OrgID, hooks[1]); n == 0 {
		t.Error("no refused first attempt recorded")
	}
	t.Logf("%d posts before the kill", mid)
	f.report(t)
}
