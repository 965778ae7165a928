// Command soak drives a fixed rate of mixed load against the replicated
// stack (`make soak` runs it inside deploy/dev/stack.sh) and watches for
// anything that grows without bound.
//
// Load, open loop at -rate requests a second: 70% reads (get a ticket, list
// a project's tickets, list a ticket's comments), 20% writes (create a
// ticket, update one, comment on one), 10% searches (the org's tickets by a
// query) and reports (the month's capitalization report). It registers
// -users accounts, each with an API key, two projects, -tickets tickets and
// a webhook to a receiver in this process, so every write also goes
// through the outbox, the workers' relay and a delivery.
//
// Every -interval (1 min) it prints p50/p99 and errors per operation kind,
// the RSS of every process of the stack (from STACK_STATE, the JSON that
// cmd/stack writes), the database's connections, the outbox's backlog and
// the age of its oldest pending row, and the receiver's delivery lag.
// At the end it fits a least-squares line through each series (after
// -settle) and fails when one keeps growing: its fitted rise over the run
// exceeds both a share of its level and a floor (see grows), when more
// than 1% of requests failed, or when an event written is not delivered.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"tracker/cmd/internal/benchenv"

	"github.com/jackc/pgx/v5"

	"tracker/cmd/internal/benchkit"
	"tracker/store/outboxdb"
)

type config struct {
	URL, DB, State   string
	Duration         time.Duration
	Interval, Settle time.Duration
	Rate             int
	Users, Tickets   int
	Concurrency      int
}

func main() {
	var c config
	flag.StringVar(&c.URL, "url", benchenv.String("STACK_URL", "http://127.0.0.1:3000"), "the stack's address")
	flag.StringVar(&c.DB, "db", benchenv.String("SERVICE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable"), "the stack's database")
	flag.StringVar(&c.State, "state", benchenv.String("STACK_STATE", ".data/stack/stack.json"), "cmd/stack's process list (for RSS)")
	flag.DurationVar(&c.Duration, "duration", 30*time.Minute, "how long to drive load")
	flag.DurationVar(&c.Interval, "interval", time.Minute, "how often to print a sample")
	flag.DurationVar(&c.Settle, "settle", 0, "samples before this much time are left out of the growth check (default: the first two intervals)")
	flag.IntVar(&c.Rate, "rate", 100, "requests a second")
	flag.IntVar(&c.Users, "users", 10, "accounts (principals) the load is spread over")
	flag.IntVar(&c.Tickets, "tickets", 100, "tickets created per account before the load")
	flag.IntVar(&c.Concurrency, "concurrency", 64, "most requests in flight; a tick finding none free is counted late")
	flag.Parse()
	if c.Settle == 0 {
		c.Settle = 2 * c.Interval
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	conn, err := pgx.Connect(ctx, c.DB)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Close(context.Background())
	rcv, err := startReceiver()
	if err != nil {
		return err
	}
	defer rcv.close()

	start := time.Now()
	fmt.Printf("soak: seeding %d accounts × %d tickets at %s\n", c.Users, c.Tickets, c.URL)
	w, err := seed(ctx, c, rcv.url)
	if err != nil {
		return err
	}
	fmt.Printf("soak: seeded in %s; %d requests/s for %s (70%% reads, 20%% writes, 10%% searches and reports), a sample every %s\n",
		time.Since(start).Round(time.Second), c.Rate, c.Duration, c.Interval)

	st := newStats()
	loadCtx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	loadDone := make(chan struct{})
	go func() { defer close(loadDone); drive(loadCtx, c, w, st) }()

	var series []sample
	t0 := time.Now()
	tick := time.NewTicker(c.Interval)
	defer tick.Stop()
	last := t0
	for running := true; running; {
		select {
		case <-tick.C:
		case <-loadDone:
			running = false
			if time.Since(last) < c.Interval/2 { // too short to be a sample
				continue
			}
		}
		last = time.Now()
		s := takeSample(ctx, conn, c.State, time.Since(t0), st.swap(), st.late.Load(), rcv.swap())
		series = append(series, s)
		s.print()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The backlog the load left must drain: the relay keeps up, or it does not.
	drained := time.Now()
	for time.Since(drained) < 2*time.Minute {
		if s, err := outboxdb.ReadStats(ctx, conn); err == nil && s.Pending == 0 {
			break
		}
		time.Sleep(time.Second)
	}
	fmt.Printf("soak: outbox drained %s after the load stopped\n", time.Since(drained).Round(100*time.Millisecond))
	return verdict(c, series, st, rcv)
}

// op is one kind of request of the mix.
type op struct {
	name   string
	weight int // per 100
	do     func(ctx context.Context, w *world, a *account) (int, error)
}

var ops = []op{
	{"read:get", 35, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "GET", "/tickets/"+a.ticket(), nil)
	}},
	{"read:list", 20, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "GET", "/projects/"+a.project()+"/tickets?limit=20", nil)
	}},
	{"read:comments", 15, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "GET", "/tickets/"+a.ticket()+"/comments?limit=20", nil)
	}},
	{"write:create", 8, func(ctx context.Context, w *world, a *account) (int, error) {
		var t struct {
			ID string `json:"id"`
		}
		code, b, err := benchkit.Send(ctx, w.api, "POST", "/projects/"+a.project()+"/tickets", a.key,
			map[string]any{"title": fmt.Sprintf("soak ticket %d", w.seq.Add(1))})
		if err == nil && json.Unmarshal(b, &t) == nil {
			a.add(t.ID)
		}
		return code, err
	}},
	{"write:update", 8, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "PATCH", "/tickets/"+a.ticket(), map[string]any{"title": fmt.Sprintf("soak ticket %d", w.seq.Add(1))})
	}},
	{"write:comment", 4, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "POST", "/tickets/"+a.ticket()+"/comments", map[string]any{"body": "soak comment"})
	}},
	{"search", 7, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "GET", "/orgs/"+a.org+"/tickets?limit=20&q=soak", nil)
	}},
	{"report", 3, func(ctx context.Context, w *world, a *account) (int, error) {
		return w.send(ctx, a, "GET", "/reports/capitalization?org_id="+a.org+"&period="+time.Now().UTC().Format("2006-01"), nil)
	}},
}

// pick maps n in [0, 100) to an operation by weight.
func pick(n int) op {
	for _, o := range ops {
		if n < o.weight {
			return o
		}
		n -= o.weight
	}
	return ops[0]
}

// drive sends c.Rate requests a second until ctx ends. It is an open loop:
// a slow answer does not slow the schedule; a tick that finds c.Concurrency
// requests in flight is counted late and skipped.
func drive(ctx context.Context, c config, w *world, st *stats) {
	sem := make(chan struct{}, c.Concurrency)
	every := time.Second / time.Duration(c.Rate)
	next := time.Now()
	var wg sync.WaitGroup
	defer wg.Wait()
	for n := uint64(0); ; n++ {
		next = next.Add(every)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
		select {
		case sem <- struct{}{}:
		default:
			st.late.Add(1)
			continue
		}
		o := pick(int(n*37) % 100) // a fixed, evenly spread sequence of kinds
		a := w.accounts[int(n)%len(w.accounts)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			t := time.Now()
			code, err := o.do(rctx, w, a)
			st.add(o.name, time.Since(t), code, err)
		}()
	}
}

// world is the seeded data the load works on.
type world struct {
	api      string // the stack's /api/v1
	accounts []*account
	seq      atomic.Int64
}

func (w *world) send(ctx context.Context, a *account, method, path string, body any) (int, error) {
	code, _, err := benchkit.Send(ctx, w.api, method, path, a.key, body)
	return code, err
}

// account is one principal: its API key, org, projects and tickets.
type account struct {
	key, org string
	projects []string
	mu       sync.Mutex
	tickets  []string
	n        atomic.Uint64
}

// maxTickets bounds the tickets an account picks from, so the soak's own
// memory stays flat.
const maxTickets = 2000

func (a *account) add(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.tickets) < maxTickets {
		a.tickets = append(a.tickets, id)
	} else {
		a.tickets[int(a.n.Add(1))%maxTickets] = id
	}
}

func (a *account) ticket() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tickets[int(a.n.Add(7919))%len(a.tickets)]
}

func (a *account) project() string { return a.projects[int(a.n.Add(1))%len(a.projects)] }

// seed registers the accounts, each with an API key, two projects, its
// tickets and a webhook to the receiver, through the stack's API.
func seed(ctx context.Context, c config, hook string) (*world, error) {
	w := &world{api: strings.TrimRight(c.URL, "/") + "/api/v1"}
	run := fmt.Sprintf("%x", time.Now().UnixNano())
	for i := 0; i < c.Users; i++ {
		var reg struct {
			AccessToken string `json:"access_token"`
		}
		if err := benchkit.Call(ctx, w.api, "POST", "/auth/register", "", map[string]any{
			"email": fmt.Sprintf("soak-%s-%d@soak.test", run, i), "password": "correct-horse-soak-1", "display_name": fmt.Sprintf("Soak %d", i),
		}, &reg); err != nil {
			return nil, err
		}
		var me struct {
			OrgID string `json:"org_id"`
		}
		if err := benchkit.Call(ctx, w.api, "GET", "/auth/me", reg.AccessToken, nil, &me); err != nil {
			return nil, err
		}
		var key struct {
			Key string `json:"key"`
		}
		if err := benchkit.Call(ctx, w.api, "POST", "/api-keys", reg.AccessToken, map[string]any{
			"name": "soak", "scopes": []string{"read", "write", "admin"}, "org_id": me.OrgID,
		}, &key); err != nil {
			return nil, err
		}
		a := &account{key: key.Key, org: me.OrgID}
		for _, k := range []string{"SKA", "SKB"} {
			var p struct {
				ID string `json:"id"`
			}
			if err := benchkit.Call(ctx, w.api, "POST", "/projects", a.key, map[string]any{"org_id": a.org, "key": k, "name": "Soak " + k}, &p); err != nil {
				return nil, err
			}
			a.projects = append(a.projects, p.ID)
		}
		if err := benchkit.Call(ctx, w.api, "POST", "/orgs/"+a.org+"/webhooks", a.key, map[string]any{
			"url": hook, "event_types": []string{"ticket.created", "ticket.updated", "comment.created"},
		}, nil); err != nil {
			return nil, err
		}
		for j := 0; j < c.Tickets; j++ {
			var t struct {
				ID string `json:"id"`
			}
			if err := benchkit.Call(ctx, w.api, "POST", "/projects/"+a.projects[j%2]+"/tickets", a.key,
				map[string]any{"title": fmt.Sprintf("soak ticket seed %d", j)}, &t); err != nil {
				return nil, err
			}
			a.add(t.ID)
		}
		w.accounts = append(w.accounts, a)
	}
	return w, nil
}

// stats gathers each operation kind's latencies and failures for one
// interval, and totals for the run.
type stats struct {
	mu     sync.Mutex
	window map[string]*kindStats
	total  map[string]*kindStats
	late   atomic.Int64
}

type kindStats struct {
	lat     []time.Duration // the successful requests' latencies (the window's only)
	ok      int
	errors  int
	codes   map[int]int // the failures' status codes (0: no answer)
	lastErr string
}

func newStats() *stats {
	return &stats{window: map[string]*kindStats{}, total: map[string]*kindStats{}}
}

func (s *stats) add(kind string, d time.Duration, code int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range []map[string]*kindStats{s.window, s.total} {
		k := m[kind]
		if k == nil {
			k = &kindStats{codes: map[int]int{}}
			m[kind] = k
		}
		if err != nil {
			k.errors++
			k.codes[code]++
			k.lastErr = err.Error()
		} else {
			k.ok++
		}
	}
	if err == nil {
		s.window[kind].lat = append(s.window[kind].lat, d)
	}
}

// swap hands over the interval's figures and starts a new interval.
func (s *stats) swap() map[string]*kindStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.window
	s.window = map[string]*kindStats{}
	for _, k := range w {
		sort.Slice(k.lat, func(i, j int) bool { return k.lat[i] < k.lat[j] })
	}
	return w
}
