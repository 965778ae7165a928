// Command benchrelay measures the durable path in-process: events committed
// to the outbox → relay → Temporal → worker → webhook receivers on
// 127.0.0.1. It creates its own database and, unless -temporal-address
// names a running Temporal, its own dev server (SQLite file, WAL, as `make
// run` starts it); it commits EVENTS ticket.created events (default 1000)
// to an org with HOOKS subscribed webhooks (default 3), and prints the
// deliveries per second and the commit-to-delivery percentiles. Every
// delivery id must arrive at least once and no (event, webhook) pair under
// two delivery ids.
//
// With -fail-first N the first N webhooks answer 500 to the first attempt
// of every delivery and 200 after: those deliveries go through the
// WebhookDelivery workflow's retries on Temporal (the second attempt comes
// at the schedule's second offset, 5 s, times -retry-scale).
//
//	go run ./cmd/benchrelay            (make bench runs it)
//	go run ./cmd/benchrelay -temporal-address 127.0.0.1:7233 -fail-first 3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/tempdb"
	"tracker/store/webhookdb"
	"tracker/worker"
	"tracker/workflows"
	"tracker/workflows/webhookwf"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

var (
	temporalAddress = flag.String("temporal-address", "", "host:port of a running Temporal frontend (empty: start a dev server from bin/temporal)")
	namespace       = flag.String("namespace", "default", "the Temporal namespace (with -temporal-address; it must exist)")
	failFirst       = flag.Int("fail-first", 0, "how many of the webhooks answer 500 to each delivery's first attempt (then 200)")
	retryScale      = flag.Float64("retry-scale", 1, "the retry schedule's factor (1: production, second attempt after 5 s)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchrelay:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, hooks := envInt("EVENTS", 1000), envInt("HOOKS", 3)
	url, drop, err := tempdb.NewDatabase(ctx)
	if err != nil {
		return err
	}
	defer drop()
	db, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()

	dir, err := os.MkdirTemp("", "benchrelay")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	addr, ns, against := *temporalAddress, *namespace, "Temporal at "+*temporalAddress
	if addr == "" {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr, ns, against = l.Addr().String(), "default", "dev server (SQLite file, WAL)"
		l.Close()
		quiet := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
		cli, _ := filepath.Abs("bin/temporal")
		dev, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ExistingPath: cli,
			ClientOptions: &client.Options{HostPort: addr, Namespace: ns, Logger: quiet},
			DBFilename:    filepath.Join(dir, "temporal.db"), LogLevel: "error", SearchAttributes: workflows.DevServerSearchAttributes(),
			ExtraArgs: []string{"--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal"}})
		if err != nil {
			return fmt.Errorf("dev server (make temporal first): %w", err)
		}
		defer dev.Stop()
	}

	org := domain.NewID()
	if _, err := db.Q().Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'bench', $2)`, org, org.String()); err != nil {
		return err
	}
	var mu sync.Mutex
	latencies := []time.Duration{}
	seen := map[string]string{} // delivery id → event/webhook
	committed := map[string]time.Time{}
	total := events * hooks
	done := make(chan struct{})
	refused := map[string]bool{} // delivery ids answered 500 once (-fail-first)
	for i := 0; i < hooks; i++ {
		wid, failing := domain.NewID(), i < *failFirst
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var ev domain.Event
			_ = json.Unmarshal(b, &ev)
			key := ev.ID.String() + "/" + wid.String()
			mu.Lock()
			if did := r.Header.Get(webhook.HeaderDelivery); failing && !refused[did] {
				refused[did] = true
				mu.Unlock()
				w.WriteHeader(500)
				return
			}
			if _, dup := seen[r.Header.Get(webhook.HeaderDelivery)]; !dup {
				seen[r.Header.Get(webhook.HeaderDelivery)] = key
				if at, ok := committed[ev.ID.String()]; ok {
					latencies = append(latencies, time.Since(at))
				}
				if len(seen) == total {
					close(done)
				}
			}
			mu.Unlock()
			w.WriteHeader(200)
		}))
		defer srv.Close()
		now := time.Now()
		if err := webhookdb.Insert(ctx, db.Q(), webhookdb.Row{ID: wid, OrgID: org, URL: srv.URL, Secret: webhook.NewSecret(),
			EventTypes: []string{domain.EventTicketCreated}, Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
	}
	go func() {
		_ = worker.Run(ctx, worker.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: db, Address: addr,
			Namespace: ns, TaskQueue: "bench-" + org.String(), Outbox: worker.OutboxConfig{Concurrency: envInt("CONCURRENCY", 0)},
			Registrations: []worker.Registration{webhookwf.WorkerRegistration(db, webhookwf.Config{AllowPrivate: true,
				Schedule: webhook.ScaledSchedule(*retryScale)})}})
	}()
	time.Sleep(2 * time.Second) // worker up
	start := time.Now()
	for i := 0; i < events; i++ {
		id := domain.NewID()
		err := db.InTx(ctx, func(q store.Querier) error {
			return domain.Record(ctx, q, domain.Change{At: time.Now().UTC(), OrgID: org, EntityType: "ticket", EntityID: id, Action: "created",
				Events: []string{domain.EventTicketCreated}, Data: map[string]any{"title": "bench"}})
		})
		if err != nil {
			return err
		}
		var ev string
		if err := db.Q().QueryRow(ctx, `SELECT id::text FROM outbox WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, org).Scan(&ev); err != nil {
			return err
		}
		mu.Lock()
		committed[ev] = time.Now()
		mu.Unlock()
	}
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("only %d of %d deliveries after 10 min", len(seen), total)
	}
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	pairs := map[string]bool{}
	for _, k := range seen {
		if pairs[k] {
			return fmt.Errorf("event/webhook %s delivered under two delivery ids", k)
		}
		pairs[k] = true
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	fmt.Printf("durable path (%s): %d events × %d webhooks = %d deliveries in %.1f s (%.1f deliveries/s); commit-to-delivery p50 %.2f s, p99 %.2f s\n",
		against, events, hooks, total, elapsed.Seconds(), float64(total)/elapsed.Seconds(), pct(.5).Seconds(), pct(.99).Seconds())
	if *failFirst > 0 {
		fmt.Printf("  %d of %d deliveries failed their first attempt and were retried by WebhookDelivery (second attempt at %.2f s)\n",
			len(refused), total, webhook.ScaledSchedule(*retryScale)[1].Seconds())
	}
	return nil
}
