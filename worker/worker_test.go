package worker

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/storetest"
	"tracker/store/webhookdb"
	"tracker/worker/workertest"
)

func TestRelayDeliversEveryEventType(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	srv := workertest.Start(t)
	all := newReceiver(t, func(int) int { return 200 })
	sprints := newReceiver(t, func(int) int { return 204 })
	stranger := newReceiver(t, func(int) int { return 200 })
	org, w := newOrgHook(t, db, all.URL+"/in", domain.EventTypes...)
	all.secret = w.Secret
	sw := webhookdb.Row{ID: domain.NewID(), OrgID: org, URL: sprints.URL, Secret: webhook.NewSecret(),
		EventTypes: []string{domain.EventSprintStarted}, Active: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := webhookdb.Insert(context.Background(), db.Q(), sw); err != nil {
		t.Fatal(err)
	}
	sprints.secret = sw.Secret
	otherOrg, ow := newOrgHook(t, db, stranger.URL, domain.EventTypes...)
	stranger.secret = ow.Secret
	_ = otherOrg

	reg := prometheus.NewRegistry()
	runWorker(t, Deps{DB: db, Address: srv.Address, Metrics: reg})
	for _, typ := range domain.EventTypes {
		emit(t, db, org, typ)
	}

	waitFor(t, 60*time.Second, "six deliveries", func() bool { return len(all.got()) >= 6 })
	waitFor(t, 10*time.Second, "the sprint webhook", func() bool { return len(sprints.got()) >= 1 })
	var types []string
	for _, h := range all.got() {
		if !h.Valid {
			t.Errorf("invalid signature on %s", h.Body)
		}
		if got, want := h.Header.Get(webhook.HeaderDelivery), webhook.DeliveryKey(h.Event.ID, w.ID).String(); got != want {
			t.Errorf("X-Service-Delivery %s, want %s", got, want)
		}
		if h.Header.Get(webhook.HeaderEvent) != h.Event.Type || h.Event.OrgID != org || h.Event.Data == nil {
			t.Errorf("delivery %v %s", h.Header, h.Body)
		}
		if (h.Event.Type == domain.EventTicketUpdated) != (len(h.Event.Changes) > 0) && h.Event.Type != domain.EventTicketStatusChanged {
			t.Errorf("changes on %s: %v", h.Event.Type, h.Event.Changes)
		}
		types = append(types, h.Event.Type)
	}
	slices.Sort(types)
	want := slices.Sorted(slices.Values(domain.EventTypes))
	if !slices.Equal(types, want) {
		t.Fatalf("event types %v, want %v", types, want)
	}
	if h := sprints.got(); len(h) != 1 || h[0].Event.Type != domain.EventSprintStarted || !h[0].Valid {
		t.Fatalf("sprint webhook got %d: %+v", len(h), h)
	}
	// The relay posts first attempts itself and marks a row dispatched
	// once every webhook of its event has been tried: just after the hits.
	waitFor(t, 10*time.Second, "every outbox row dispatched", func() bool {
		n, _ := outboxdb.Pending(context.Background(), db.Q())
		return n == 0
	})
	ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 100})
	if len(ds.Items) != 6 {
		t.Fatalf("%d delivery rows", len(ds.Items))
	}

	// Relaying the same rows again starts nothing new (deterministic ids).
	if _, err := db.Q().Exec(context.Background(), `UPDATE outbox SET dispatched_at = NULL`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the rows to be relayed again", func() bool {
		n, _ := outboxdb.Pending(context.Background(), db.Q())
		return n == 0
	})
	time.Sleep(2 * time.Second)
	if n := len(all.got()); n != 6 {
		t.Fatalf("%d deliveries after relaying again, want 6", n)
	}
	if n := len(stranger.got()); n != 0 {
		t.Fatalf("another org's webhook got %d deliveries", n)
	}

	// The SDK's metrics are on the registry.
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	found := false
	for _, mf := range mfs {
		found = found || strings.HasPrefix(mf.GetName(), "temporal_")
	}
	if !found {
		t.Fatal("no temporal_ metrics on the registry")
	}
}

func TestDeliveryRetriesAcrossAWorkerRestart(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	srv := workertest.Start(t)
	rcv := newReceiver(t, func(n int) int {
		if n == 1 {
			return 500
		}
		return 200
	})
	org, w := newOrgHook(t, db, rcv.URL, domain.EventCommentCreated)
	rcv.secret = w.Secret
	d := Deps{DB: db, Address: srv.Address, TaskQueue: "restart-" + w.ID.String()[:8],
		Webhooks: WebhookConfig{Schedule: []time.Duration{0, 4 * time.Second, 8 * time.Second}}}

	stop := runWorker(t, d)
	emit(t, db, org, domain.EventCommentCreated)
	waitFor(t, 60*time.Second, "the first attempt", func() bool { return len(rcv.got()) == 1 })
	waitFor(t, 10*time.Second, "the first attempt's record", func() bool {
		ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
		return len(ds.Items) == 1 && ds.Items[0].FinishedAt != nil
	})
	stop() // no worker between the attempts
	time.Sleep(5 * time.Second)
	if n := len(rcv.got()); n != 1 {
		t.Fatalf("%d attempts with no worker running", n)
	}
	runWorker(t, d)
	waitFor(t, 60*time.Second, "the retry", func() bool { return len(rcv.got()) == 2 })
	h := rcv.got()
	if !h[0].Valid || !h[1].Valid || h[0].Header.Get(webhook.HeaderDelivery) != h[1].Header.Get(webhook.HeaderDelivery) {
		t.Fatal("the retry is not the same signed delivery")
	}
	waitFor(t, 10*time.Second, "two finished records", func() bool {
		ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
		return len(ds.Items) == 2 && ds.Items[1].FinishedAt != nil
	})
	ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
	if *ds.Items[0].StatusCode != 500 || ds.Items[0].Attempt != 1 || *ds.Items[1].StatusCode != 200 || ds.Items[1].Attempt != 2 {
		t.Fatalf("records %+v %+v", ds.Items[0], ds.Items[1])
	}
	time.Sleep(time.Second)
	if n := len(rcv.got()); n != 2 {
		t.Fatalf("%d attempts after success", n)
	}
	webhookAfter, _ := webhookdb.Get(context.Background(), db.Q(), org, w.ID)
	if !webhookAfter.Active || webhookAfter.ConsecutiveFailures != 0 || webhookAfter.LastSuccessAt == nil {
		t.Fatalf("webhook books %+v", webhookAfter)
	}
}
