package e2e

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// driveEvents makes one event of every type through the API (falling back
// to writing the event directly for a feature that is not mounted) and
// returns the ticket id when the tickets API made it.
func driveEvents(t *testing.T, s *stack, db *store.DB, u user) uuid.UUID {
	t.Helper()
	tok := u.Token
	emitVia := func(typ, method, path string, body any, want int) resp {
		r := s.do(method, path, tok, body)
		if r.routeMissing() {
			t.Logf("%s %s not mounted: emitting %s directly", method, path, typ)
			emitDirect(t, db, u.OrgID, typ, map[string]any{"fallback": true})
			return r
		}
		if r.Status != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
		}
		return r
	}
	project := s.createProject(db, u, "EVT")
	ticket, viaAPI := s.createTicket(db, u, project, "First ticket")
	if viaAPI {
		tp := "/tickets/" + ticket.String()
		emitVia(domain.EventTicketUpdated, "PATCH", tp, map[string]any{"title": "Renamed ticket"}, 200)
		emitVia(domain.EventTicketStatusChanged, "PATCH", tp, map[string]any{"status": "InProgress"}, 200)
		emitVia(domain.EventCommentCreated, "POST", tp+"/comments", map[string]any{"body": "A comment"}, 201)
	} else {
		for _, typ := range []string{domain.EventTicketUpdated, domain.EventTicketStatusChanged, domain.EventCommentCreated} {
			emitDirect(t, db, u.OrgID, typ, map[string]any{"fallback": true})
		}
	}
	r := s.do("POST", "/projects/"+project.String()+"/sprints", tok,
		map[string]any{"name": "Sprint 1", "start_date": "2025-01-06", "end_date": "2025-01-17"})
	if r.routeMissing() {
		emitDirect(t, db, u.OrgID, domain.EventSprintStarted, map[string]any{"fallback": true})
		emitDirect(t, db, u.OrgID, domain.EventSprintCompleted, map[string]any{"fallback": true})
		return ticket
	}
	if r.Status != 201 {
		t.Fatalf("create sprint: %d %s", r.Status, r.Body)
	}
	sp := "/sprints/" + r.m(t)["id"].(string)
	emitVia(domain.EventSprintStarted, "POST", sp+"/start", nil, 200)
	emitVia(domain.EventSprintCompleted, "POST", sp+"/complete", nil, 200)
	return ticket
}

type deliveryItem struct {
	ID         uuid.UUID `json:"id"`
	EventID    uuid.UUID `json:"event_id"`
	EventType  string    `json:"event_type"`
	DeliveryID uuid.UUID `json:"delivery_id"`
	Attempt    int       `json:"attempt"`
	Redelivery int       `json:"redelivery"`
	StatusCode *int      `json:"status_code"`
	Succeeded  bool      `json:"succeeded"`
	DurationMS *int      `json:"duration_ms"`
	FinishedAt *string   `json:"finished_at"`
}

func (s *stack) deliveries(u user, hook uuid.UUID) []deliveryItem {
	s.t.Helper()
	var p struct {
		Items []deliveryItem `json:"items"`
	}
	s.must(200, "GET", "/webhooks/"+hook.String()+"/deliveries?limit=100", u.Token, nil).decode(s.t, &p)
	return p.Items
}

// TestWebhooksEndToEnd: every event type arrives signed; a receiver
// answering 500 then 200 gets the retry; a redelivery arrives with the same
// delivery id.
func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	// Scaled retry offsets: the 5 s second attempt comes after 0.5 s.
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_WEBHOOK_RETRY_SCALE": "0.1"})
	s.run("dev")
	u := s.register("owner")

	all := newReceiver(t, ok)
	flaky := newReceiver(t, func(n int) int {
		if n == 1 {
			return 500
		}
		return 200
	})
	hookAll := s.createWebhook(u, all, domain.EventTypes...)
	hookFlaky := s.createWebhook(u, flaky, domain.EventTicketCreated)

	ticket := driveEvents(t, s, db, u)

	waitFor(t, 90*time.Second, "one delivery of every event type", func() bool { return len(all.types()) == len(domain.EventTypes) })
	for _, h := range all.got() {
		if h.SigErr != nil {
			t.Errorf("%s: signature: %v", h.Event.Type, h.SigErr)
		}
		if h.Header.Get(webhook.HeaderEvent) != h.Event.Type || h.Event.OrgID != u.OrgID || h.Event.ID == uuid.Nil ||
			h.Event.CreatedAt.IsZero() || h.Event.Data == nil {
			t.Errorf("malformed delivery %v %s", h.Header, h.Body)
		}
		if h.Header.Get(webhook.HeaderDelivery) != webhook.DeliveryKey(h.Event.ID, hookAll).String() {
			t.Errorf("X-Service-Delivery %q", h.Header.Get(webhook.HeaderDelivery))
		}
		if h.Event.Type == domain.EventTicketCreated && ticket != uuid.Nil && h.Event.Data["id"] != ticket.String() {
			t.Errorf("ticket.created data %v", h.Event.Data)
		}
		if h.Event.Type == domain.EventTicketUpdated && ticket != uuid.Nil && len(h.Event.Changes) == 0 {
			t.Errorf("ticket.updated without changes: %s", h.Body)
		}
	}
	if n := all.types(); n[domain.EventTicketCreated] != 1 {
		t.Errorf("ticket.created delivered %d times", n[domain.EventTicketCreated])
	}

	// 500 then 200: the retry arrives, same delivery id, both attempts recorded.
	waitFor(t, 60*time.Second, "the retry after a 500", func() bool { return len(flaky.got()) == 2 })
	fh := flaky.got()
	if fh[0].SigErr != nil || fh[1].SigErr != nil || fh[0].Header.Get(webhook.HeaderDelivery) != fh[1].Header.Get(webhook.HeaderDelivery) {
		t.Fatal("the retry is not the same signed delivery")
	}
	waitFor(t, 10*time.Second, "both attempts recorded", func() bool {
		ds := s.deliveries(u, hookFlaky)
		return len(ds) == 2 && ds[1].FinishedAt != nil
	})
	ds := s.deliveries(u, hookFlaky)
	if *ds[0].StatusCode != 500 || ds[0].Attempt != 1 || ds[0].Succeeded || *ds[1].StatusCode != 200 || ds[1].Attempt != 2 || !ds[1].Succeeded {
		t.Fatalf("flaky deliveries %+v", ds)
	}

	// Redeliver the first delivery of the all-events webhook.
	waitFor(t, 10*time.Second, "all deliveries recorded", func() bool {
		ds := s.deliveries(u, hookAll)
		return len(ds) == len(domain.EventTypes) && ds[len(ds)-1].FinishedAt != nil
	})
	first := s.deliveries(u, hookAll)[0]
	before := len(all.got())
	r := s.must(202, "POST", "/webhooks/"+hookAll.String()+"/deliveries/"+first.ID.String()+"/redeliver", u.Token, nil).m(t)
	if r["workflow_id"] != webhook.RedeliveryWorkflowID(first.EventID, hookAll, 1) {
		t.Fatalf("redeliver %v", r)
	}
	waitFor(t, 30*time.Second, "the redelivery", func() bool { return len(all.got()) == before+1 })
	last := all.got()[before]
	if last.SigErr != nil || last.Event.ID != first.EventID || last.Header.Get(webhook.HeaderDelivery) != first.DeliveryID.String() {
		t.Fatalf("redelivery %v %s", last.Header, last.Body)
	}
	waitFor(t, 10*time.Second, "the redelivery record", func() bool {
		for _, d := range s.deliveries(u, hookAll) {
			if d.Redelivery == 1 && d.Succeeded {
				return true
			}
		}
		return false
	})
}

// TestEventsWrittenWhileTemporalIsDown: the relay makes every delivery's
// first attempt itself, so events written while Temporal is down are
// delivered at once; a delivery whose first attempt fails needs Temporal for
// its retries, so its outbox row stays pending through the outage and the
// retry comes once Temporal is back, under the same delivery id.
func TestEventsWrittenWhileTemporalIsDown(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	s := newStack(t, url, srv, map[string]string{"TRACKER_TEST_WEBHOOK_RETRY_SCALE": "0.001"})
	s.run("api")
	s.run("worker")
	u := s.register("owner")
	var failing atomic.Bool
	rcv := newReceiver(t, func(int) int {
		if failing.Load() {
			return 500
		}
		return 200
	})
	hook := s.createWebhook(u, rcv, domain.EventTicketCreated, domain.EventCommentCreated)
	project := s.createProject(db, u, "DOWN")

	s.createTicket(db, u, project, "Before the outage")
	waitFor(t, 60*time.Second, "the first delivery", func() bool { return len(rcv.got()) == 1 })

	srv.Stop()
	want := 1
	for i := 0; i < 3; i++ {
		id, viaAPI := s.createTicket(db, u, project, "During the outage")
		want++
		if viaAPI {
			r := s.do("POST", "/tickets/"+id.String()+"/comments", u.Token, map[string]any{"body": "while down"})
			if r.routeMissing() {
				emitDirect(t, db, u.OrgID, domain.EventCommentCreated, map[string]any{"fallback": true})
			} else if r.Status != 201 {
				t.Fatalf("comment while Temporal is down: %d %s", r.Status, r.Body)
			}
			want++
		}
	}
	waitFor(t, 30*time.Second, "deliveries during the outage", func() bool { return len(rcv.got()) >= want })

	failing.Store(true)
	s.createTicket(db, u, project, "Refused during the outage")
	want++
	waitFor(t, 30*time.Second, "the refused first attempt", func() bool { return len(rcv.got()) >= want })
	time.Sleep(time.Second)
	if n := scalar(t, db, `SELECT count(*) FROM outbox WHERE dispatched_at IS NULL AND topic = 'ticket.created'`); n != 1 {
		t.Fatalf("%d ticket.created rows pending, want the refused one", n)
	}
	failing.Store(false)
	srv.Start()
	waitFor(t, 120*time.Second, "the retry after the outage", func() bool { return len(rcv.got()) >= want+1 })
	byEvent := map[uuid.UUID][]hit{}
	for _, h := range rcv.got() {
		if h.SigErr != nil {
			t.Errorf("signature: %v", h.SigErr)
		}
		if got, wantID := h.Header.Get(webhook.HeaderDelivery), webhook.DeliveryKey(h.Event.ID, hook).String(); got != wantID {
			t.Errorf("delivery id %s, want %s", got, wantID)
		}
		byEvent[h.Event.ID] = append(byEvent[h.Event.ID], h)
	}
	if len(byEvent) != want {
		t.Fatalf("%d distinct events delivered, want %d", len(byEvent), want)
	}
	twice := 0
	for _, hs := range byEvent {
		if len(hs) > 1 {
			twice++
		}
	}
	if twice != 1 {
		t.Fatalf("%d events posted more than once, want only the refused one", twice)
	}
}
