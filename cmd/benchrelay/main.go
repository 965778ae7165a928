// Command benchrelay measures the durable path in-process: events committed
// to the outbox → relay → Temporal → worker → webhook receivers on
// 127.0.0.1. It creates its own database and, unless -temporal-address
// names a running Temporal, its own dev server (SQLite file, WAL, as `make
// run` starts it), and an org with HOOKS subscribed webhooks (default 3).
// Then it runs three scenarios of ticket.created events, each printing the
// deliveries per second, the commit-to-delivery p50 and p99, and when the
// last delivery arrived after the first and after the last commit:
//
//   - burst: EVENTS events (default 1000) committed as fast as 8 writers go;
//   - steady 100/s: 100 events a second for -steady (default 30 s);
//   - steady 200/s: the same at 200 events a second.
//
// Every delivery id must arrive at least once and no (event, webhook) pair
// under two delivery ids.
//
// With -fail-first N the first N webhooks answer 500 to the first attempt
// of every delivery and 200 after: those deliveries go through the
// WebhookDelivery workflow's retries on Temporal (the second attempt comes
// at the schedule's second offset, 5 s, times -retry-scale).
//
//	go run ./cmd/benchrelay            (make bench runs it)
//	go run ./cmd/benchrelay -scenarios burst -temporal-address 127.0.0.1:7233 -fail-first 3
package main

import (
	"cmp"
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
	"strings"
	"sync"
	"time"
	"tracker/cmd/internal/benchenv"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/tempdb"
	"tracker/store/webhookdb"
	"tracker/worker"
	"tracker/worker/jobkind"
	"tracker/workflows"
	webhookwf "tracker/workflows/webhook"
)

var (
	temporalAddress = flag.String("temporal-address", "", "host:port of a running Temporal frontend (empty: start a dev server from bin/temporal)")
	namespace       = flag.String("namespace", "default", "the Temporal namespace (with -temporal-address; it must exist)")
	failFirst       = flag.Int("fail-first", 0, "how many of the webhooks answer 500 to each delivery's first attempt (then 200)")
	retryScale      = flag.Float64("retry-scale", 1, "the retry schedule's factor (1: production, second attempt after 5 s)")
	scenarios       = flag.String("scenarios", "burst,steady100,steady200", "which scenarios run, in order")
	steady          = flag.Duration("steady", 30*time.Second, "how long each steady scenario commits events")
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
	hooks := benchenv.Int("HOOKS", 3, 1)
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
	rec := &recorder{hooks: hooks, refused: map[string]bool{}}
	for i := 0; i < hooks; i++ {
		wid := domain.NewID()
		srv := httptest.NewServer(rec.receiver(wid, i < *failFirst))
		defer srv.Close()
		now := time.Now()
		if err := webhookdb.Insert(ctx, db.Q(), webhookdb.Row{ID: wid, OrgID: org, URL: srv.URL, Secret: webhook.NewSecret(),
			EventTypes: []string{domain.EventTicketCreated}, Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
	}
	go func() {
		_ = worker.Run(ctx, worker.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: db, Address: addr,
			Namespace: ns, TaskQueue: "bench-" + org.String(), Outbox: worker.OutboxConfig{Concurrency: benchenv.Int("CONCURRENCY", 0, 1)},
			Registrations: []jobkind.Registration{webhookwf.Register(webhookwf.Deps{DB: db, AllowPrivate: true,
				Schedule: webhook.ScaledSchedule(*retryScale)})}})
	}()
	time.Sleep(2 * time.Second) // worker up
	fmt.Printf("durable path (%s), %d webhooks, relay concurrency %s:\n", against, hooks, cmp.Or(os.Getenv("CONCURRENCY"), "default"))
	for _, sc := range strings.Split(*scenarios, ",") {
		var events, rate int
		switch sc {
		case "burst":
			events = benchenv.Int("EVENTS", 1000, 1)
		case "steady100", "steady200":
			rate = map[string]int{"steady100": 100, "steady200": 200}[sc]
			events = rate * int(steady.Seconds())
		default:
			return fmt.Errorf("unknown scenario %q (burst, steady100, steady200)", sc)
		}
		if err := rec.run(ctx, db, org, sc, events, rate); err != nil {
			return err
		}
	}
	return nil
}

// recorder is the receivers' shared books of one scenario.
type recorder struct {
	hooks     int
	mu        sync.Mutex
	latencies []time.Duration
	seen      map[string]string // delivery id → event/webhook
	committed map[string]time.Time
	last      time.Time // the last new delivery's arrival
	want      int
	done      chan struct{}
	refused   map[string]bool // delivery ids answered 500 once (-fail-first)
}

func (rec *recorder) receiver(wid uuid.UUID, failing bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev domain.Event
		_ = json.Unmarshal(b, &ev)
		key, did := ev.ID.String()+"/"+wid.String(), r.Header.Get(webhook.HeaderDelivery)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if failing && !rec.refused[did] {
			rec.refused[did] = true
			w.WriteHeader(500)
			return
		}
		if _, dup := rec.seen[did]; !dup {
			rec.seen[did] = key
			rec.last = time.Now()
			if at, ok := rec.committed[ev.ID.String()]; ok {
				rec.latencies = append(rec.latencies, rec.last.Sub(at))
			}
			if len(rec.seen) == rec.want {
				close(rec.done)
			}
		}
		w.WriteHeader(200)
	})
}

// run commits events ticket.created events, rate a second (0: as fast as
// the writers go), waits for every delivery and prints the figures.
func (rec *recorder) run(ctx context.Context, db *store.DB, org uuid.UUID, name string, events, rate int) error {
	rec.mu.Lock()
	rec.latencies, rec.seen, rec.committed = nil, map[string]string{}, map[string]time.Time{}
	rec.want, rec.done, rec.refused = events*rec.hooks, make(chan struct{}), map[string]bool{}
	rec.mu.Unlock()
	const writers = 8
	jobs := make(chan struct{})
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				audit, rows, err := domain.PrepareChange(domain.Change{At: time.Now().UTC(), OrgID: org, EntityType: "ticket",
					EntityID: domain.NewID(), Action: "created", Events: []string{domain.EventTicketCreated}, Data: map[string]any{"title": "bench"}})
				if err == nil {
					err = db.InTx(ctx, func(q store.Querier) error { return store.InsertChange(ctx, q, &audit, rows) })
				}
				if err != nil {
					errs <- err
					return
				}
				rec.mu.Lock()
				rec.committed[rows[0].ID.String()] = time.Now()
				rec.mu.Unlock()
			}
		}()
	}
	start := time.Now()
	for i := 0; i < events; i++ {
		if rate > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
		}
		select {
		case jobs <- struct{}{}:
		case err := <-errs:
			return err
		}
	}
	close(jobs)
	wg.Wait()
	created := time.Since(start)
	select {
	case err := <-errs:
		return err
	default:
	}
	lastCreate := time.Now() // an upper bound: every commit has returned
	select {
	case <-rec.done:
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("%s: only %d of %d deliveries after 10 min", name, len(rec.seen), rec.want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	pairs := map[string]bool{}
	for _, k := range rec.seen {
		if pairs[k] {
			return fmt.Errorf("event/webhook %s delivered under two delivery ids", k)
		}
		pairs[k] = true
	}
	slices.Sort(rec.latencies)
	pct := func(p float64) time.Duration {
		return rec.latencies[min(len(rec.latencies)-1, int(p*float64(len(rec.latencies))))]
	}
	took := rec.last.Sub(start)
	fmt.Printf("  %-9s %5d events (%.0f/s) × %d = %5d deliveries in %5.1f s (%4.0f/s); commit-to-delivery p50 %.3f s, p99 %.3f s; "+
		"last delivery %.2f s after the first create, %.2f s after the last\n",
		name, events, float64(events)/created.Seconds(), rec.hooks, rec.want, took.Seconds(), float64(rec.want)/took.Seconds(),
		pct(.5).Seconds(), pct(.99).Seconds(), took.Seconds(), rec.last.Sub(lastCreate).Seconds())
	if *failFirst > 0 {
		fmt.Printf("  %d of %d deliveries failed their first attempt and were retried by WebhookDelivery (second attempt at %.2f s)\n",
			len(rec.refused), rec.want, webhook.ScaledSchedule(*retryScale)[1].Seconds())
	}
	return nil
}
