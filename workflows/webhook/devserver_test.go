package webhookwf

// End-to-end tests of webhook delivery through the worker, the relay and
// the real Temporal dev server: the feature plugged in with its
// Registration, as cmd/tracker does.

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/storetest"
	"tracker/store/webhookdb"
	"tracker/worker"
	"tracker/worker/jobkind"
	"tracker/worker/workertest"
	"tracker/workflows/webhook/webhooktest"
)

func TestRelayDeliversEveryEventType(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	srv := workertest.Start(t)
	all := webhooktest.NewReceiver(t, func(int) int { return 200 })
	sprints := webhooktest.NewReceiver(t, func(int) int { return 204 })
	stranger := webhooktest.NewReceiver(t, func(int) int { return 200 })
	org, w := newOrgHook(t, db, all.URL+"/in", domain.EventTypes...)
	all.SetSecret(w.Secret)
	sw := webhookdb.Row{ID: domain.NewID(), OrgID: org, URL: sprints.URL, Secret: webhook.NewSecret(),
		EventTypes: []string{domain.EventSprintStarted}, Active: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := webhookdb.Insert(context.Background(), db.Q(), sw); err != nil {
		t.Fatal(err)
	}
	sprints.SetSecret(sw.Secret)
	otherOrg, ow := newOrgHook(t, db, stranger.URL, domain.EventTypes...)
	stranger.SetSecret(ow.Secret)
	_ = otherOrg

	reg := prometheus.NewRegistry()
	runWorker(t, worker.Deps{DB: db, Address: srv.Address, Metrics: reg}, Deps{})
	for _, typ := range domain.EventTypes {
		emit(t, db, org, typ)
	}

	workertest.WaitFor(t, 60*time.Second, "six deliveries", func() bool { return len(all.Hits()) >= 6 })
	workertest.WaitFor(t, 10*time.Second, "the sprint webhook", func() bool { return len(sprints.Hits()) >= 1 })
	var types []string
	for _, h := range all.Hits() {
		if h.SigErr != nil {
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
	if h := sprints.Hits(); len(h) != 1 || h[0].Event.Type != domain.EventSprintStarted || h[0].SigErr != nil {
		t.Fatalf("sprint webhook got %d: %+v", len(h), h)
	}
	// The relay posts first attempts itself and marks a row dispatched
	// once every webhook of its event has been tried: just after the hits.
	workertest.WaitFor(t, 10*time.Second, "every outbox row dispatched", func() bool {
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
	workertest.WaitFor(t, 20*time.Second, "the rows to be relayed again", func() bool {
		n, _ := outboxdb.Pending(context.Background(), db.Q())
		return n == 0
	})
	time.Sleep(2 * time.Second)
	if n := len(all.Hits()); n != 6 {
		t.Fatalf("%d deliveries after relaying again, want 6", n)
	}
	if n := len(stranger.Hits()); n != 0 {
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
	rcv := webhooktest.NewReceiver(t, func(n int) int {
		if n == 1 {
			return 500
		}
		return 200
	})
	org, w := newOrgHook(t, db, rcv.URL, domain.EventCommentCreated)
	rcv.SetSecret(w.Secret)
	d := worker.Deps{DB: db, Address: srv.Address, TaskQueue: "restart-" + w.ID.String()[:8]}
	cfg := Deps{Schedule: []time.Duration{0, 4 * time.Second, 8 * time.Second}}

	stop := runWorker(t, d, cfg)
	emit(t, db, org, domain.EventCommentCreated)
	workertest.WaitFor(t, 60*time.Second, "the first attempt", func() bool { return len(rcv.Hits()) == 1 })
	workertest.WaitFor(t, 10*time.Second, "the first attempt's record", func() bool {
		ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
		return len(ds.Items) == 1 && ds.Items[0].FinishedAt != nil
	})
	stop() // no worker between the attempts
	time.Sleep(5 * time.Second)
	if n := len(rcv.Hits()); n != 1 {
		t.Fatalf("%d attempts with no worker running", n)
	}
	runWorker(t, d, cfg)
	workertest.WaitFor(t, 60*time.Second, "the retry", func() bool { return len(rcv.Hits()) == 2 })
	h := rcv.Hits()
	if h[0].SigErr != nil || h[1].SigErr != nil || h[0].Header.Get(webhook.HeaderDelivery) != h[1].Header.Get(webhook.HeaderDelivery) {
		t.Fatal("the retry is not the same signed delivery")
	}
	workertest.WaitFor(t, 10*time.Second, "two finished records", func() bool {
		ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
		return len(ds.Items) == 2 && ds.Items[1].FinishedAt != nil
	})
	ds, _ := webhookdb.ListDeliveries(context.Background(), db.Q(), org, w.ID, store.Page{Limit: 10})
	if *ds.Items[0].StatusCode != 500 || ds.Items[0].Attempt != 1 || *ds.Items[1].StatusCode != 200 || ds.Items[1].Attempt != 2 {
		t.Fatalf("records %+v %+v", ds.Items[0], ds.Items[1])
	}
	time.Sleep(time.Second)
	if n := len(rcv.Hits()); n != 2 {
		t.Fatalf("%d attempts after success", n)
	}
	webhookAfter, _ := webhookdb.Get(context.Background(), db.Q(), org, w.ID)
	if !webhookAfter.Active || webhookAfter.ConsecutiveFailures != 0 || webhookAfter.LastSuccessAt == nil {
		t.Fatalf("webhook books %+v", webhookAfter)
	}
}

func TestEveryDeliveryCarriesItsRetrySchedule(t *testing.T) {
	if got := newDispatcher(Deps{}).schedule; !slices.Equal(got, webhook.RetrySchedule) {
		t.Fatalf("production schedule in the input %v, want webhook.RetrySchedule %v", got, webhook.RetrySchedule)
	}
	short := []time.Duration{0, time.Second}
	if got := newDispatcher(Deps{Schedule: short}).schedule; !slices.Equal(got, short) {
		t.Fatalf("configured schedule %v", got)
	}
}

// newOrgHook makes an org and a webhook to url for types.
func newOrgHook(t *testing.T, db *store.DB, url string, types ...string) (uuid.UUID, webhookdb.Row) {
	t.Helper()
	ctx := context.Background()
	org := testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID
	now := time.Now().UTC()
	w := webhookdb.Row{ID: domain.NewID(), OrgID: org, URL: url, Secret: webhook.NewSecret(), EventTypes: types,
		Active: true, CreatedAt: now, UpdatedAt: now}
	if err := webhookdb.Insert(ctx, db.Q(), w); err != nil {
		t.Fatal(err)
	}
	return org, w
}

// emit records a change with events, as a feature's use case does.
func emit(t *testing.T, db *store.DB, org uuid.UUID, types ...string) {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(q store.Querier) error {
		return domain.Record(ctx, q, domain.Change{At: time.Now(), OrgID: org, EntityType: "ticket", EntityID: domain.NewID(),
			Action: "updated", Events: types, Data: map[string]any{"title": "T"},
			Changes: []domain.FieldChange{{Field: "title", Old: "S", New: "T"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runWorker runs worker.Run with webhook delivery registered (cfg, on
// receivers at private addresses) in the background; the returned stop
// ends it and waits for it.
func runWorker(t *testing.T, d worker.Deps, cfg Deps) (stop func()) {
	t.Helper()
	if d.Log == nil {
		level := slog.LevelError
		if os.Getenv("WORKER_TEST_LOG") != "" {
			level = slog.LevelDebug
		}
		d.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	if d.Metrics == nil {
		d.Metrics = prometheus.NewRegistry()
	}
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	if d.TaskQueue == "" {
		d.TaskQueue = "test-" + uuid.NewString()[:8]
	}
	d.PollInterval = 500 * time.Millisecond
	if d.StopTimeout == 0 {
		d.StopTimeout = 5 * time.Second
	}
	cfg.DB, cfg.AllowPrivate = d.DB, true
	cfg.Metrics = d.Metrics
	d.Registrations = append([]jobkind.Registration{Register(cfg)}, d.Registrations...)
	return workertest.Background(t, func(ctx context.Context) error { return worker.Run(ctx, d) })
}
