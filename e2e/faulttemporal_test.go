package e2e

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// TestFaultTemporalStopped: the Temporal server stopped in the middle of an
// import and of a fan-out (events written at a steady rate, before, during
// and after the outage, to two webhooks), and started again: the import
// completes with exact counts and no duplicate, and every (event, webhook)
// pair is delivered under its one delivery id. Short: a 10 s outage;
// FAULTS=long: 60 s.
func TestFaultTemporalStopped(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	// Batches of 40 with a 2 s pause: the import is still running when
	// Temporal stops, a few seconds after its first batches.
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_IMPORT_BATCH": "40", "TRACKER_TEST_IMPORT_PAUSE": "2s"})
	s.run("api")
	s.run("worker")
	u := s.register("owner")
	slow := func(int) int { time.Sleep(20 * time.Millisecond); return 200 }
	rcvs := []*receiver{newReceiver(t, slow), newReceiver(t, slow)}
	hooks := []uuid.UUID{s.createWebhook(u, rcvs[0], domain.EventTicketCreated), s.createWebhook(u, rcvs[1], domain.EventTicketCreated)}
	posts := func() int { return len(rcvs[0].got()) + len(rcvs[1].got()) }

	var (
		events = pick(150, 600)
		outage = pick(10*time.Second, 60*time.Second)
	)
	// Events at 10/s (short) or 5/s (long): the fan-out spans the outage.
	gap := pick(100*time.Millisecond, 200*time.Millisecond)
	ir := s.startImport(db, u, pick(2, 4))
	waitFor(t, 60*time.Second, "the first import batches", func() bool { return ir.tickets(t, db) >= 80 })
	// The fan-out starts once the import runs, so that both are in flight
	// when Temporal stops.
	var emitted atomic.Int64
	emitDone, stop := make(chan struct{}), make(chan struct{})
	// A failed test ends the emitter before its database goes away.
	t.Cleanup(func() { close(stop); <-emitDone })
	go func() {
		defer close(emitDone)
		for i := range events {
			select {
			case <-stop:
				return
			default:
			}
			emitDirect(t, db, u.OrgID, domain.EventTicketCreated, map[string]any{"n": i})
			emitted.Add(1)
			time.Sleep(gap)
		}
	}()
	waitFor(t, 60*time.Second, "the first deliveries", func() bool { return posts() >= 4 })
	srv.Stop()
	stoppedAt := ir.tickets(t, db)
	time.Sleep(outage)
	if stoppedAt >= ir.seeded.Tickets {
		t.Fatalf("the import finished before Temporal stopped (%d tickets)", stoppedAt)
	}
	before, imported := posts(), ir.tickets(t, db)
	srv.Start()
	back := time.Now()
	waitFor(t, 120*time.Second, "a delivery and an import batch after Temporal is back", func() bool {
		return (posts() > before || posts() >= 2*events) && (ir.tickets(t, db) > imported || imported >= ir.seeded.Tickets)
	})
	recovery := time.Since(back)
	<-emitDone

	imp := &figures{name: "Temporal stopped: import", recovery: recovery}
	imp.attempted.Store(int64(ir.seeded.Tickets))
	imp.duplicated.Store(int64(s.finishImport(db, u, ir, 180*time.Second)))
	stored := scalar(t, db, `SELECT count(DISTINCT (project_id, ticket_number)) FROM tickets WHERE org_id = $1`, ir.target)
	imp.succeeded.Store(int64(stored))
	imp.lost.Store(int64(ir.seeded.Tickets - stored))
	imp.report(t)

	fan := &figures{name: "Temporal stopped: fan-out", recovery: recovery}
	fan.attempted.Store(2 * emitted.Load())
	waitFor(t, 180*time.Second, "every event at both webhooks", func() bool {
		return len(distinctEvents(rcvs[0])) == events && len(distinctEvents(rcvs[1])) == events
	})
	for i, rcv := range rcvs {
		byEvent := map[uuid.UUID]map[string]bool{}
		for _, h := range rcv.got() {
			if byEvent[h.Event.ID] == nil {
				byEvent[h.Event.ID] = map[string]bool{}
			}
			byEvent[h.Event.ID][h.Header.Get(webhook.HeaderDelivery)] = true
			if want := webhook.DeliveryKey(h.Event.ID, hooks[i]).String(); h.Header.Get(webhook.HeaderDelivery) != want {
				t.Errorf("event %s at webhook %d under delivery id %s, want %s", h.Event.ID, i, h.Header.Get(webhook.HeaderDelivery), want)
			}
		}
		fan.succeeded.Add(int64(len(byEvent)))
		fan.lost.Add(int64(events - len(byEvent)))
		fan.retried.Add(int64(len(rcv.got()) - len(byEvent)))
		for _, ids := range byEvent {
			fan.duplicated.Add(int64(len(ids) - 1))
		}
	}
	fan.report(t)
}

// distinctEvents is the set of event ids rcv got.
func distinctEvents(rcv *receiver) map[uuid.UUID]bool {
	m := map[uuid.UUID]bool{}
	for _, h := range rcv.got() {
		m[h.Event.ID] = true
	}
	return m
}
