// Command benchinbox measures how soon a change reaches the people it
// concerns (part of `make bench`). In a dedicated database it serves the
// API in process (projects, tickets, comments, notifications and the
// notification hub, as the binary wires them), registers an actor and
// -users people who join the actor's org as Members, creates -tickets
// tickets (the actor reports them) and gives each 5 watchers besides the
// actor. Every person, the actor included, holds the live stream open (GET
// /api/v1/notifications/stream). Then the actor changes -rate tickets a
// second for -duration, round-robin over the tickets, each ticket in turn a
// status change (Backlog ↔ Todo: its 5 watchers are told), a comment (its 5
// watchers) and an assignment to the next of its watchers (that watcher).
//
// For each notification it prints the time from the change's answer (the
// commit is before it) to its arrival on the recipient's stream, p50, p95,
// p99 and max, and the notifications expected, received, lost, duplicated
// and sent to the actor. Every 10th change it also reads one recipient's
// inbox (GET /api/v1/notifications) right after the answer and counts
// whether the notification is already there; at the end each person's
// unread count must equal what they were told. The exit code is 1 when the
// stream p99 is over -target (2 s), or a notification is lost, duplicated,
// sent to the actor or missing from an inbox.
//
//	go run ./cmd/benchinbox                       (make bench runs it)
//	go run ./cmd/benchinbox -rate 200 -duration 2m -users 200 -tickets 1000
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/api"
	"tracker/api/comments"
	"tracker/api/notifications"
	"tracker/api/projects"
	"tracker/api/tickets"
	"tracker/cmd/internal/benchkit"
	"tracker/domain"
	"tracker/domain/comment"
	"tracker/domain/notification"
	"tracker/domain/project"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/notificationdb"
)

const watchersPerTicket = 5

type config struct {
	Users, Tickets, Rate, Clients int
	Duration, Target              time.Duration
	Explain                       bool
}

func main() {
	var c config
	flag.IntVar(&c.Users, "users", 100, "people besides the actor (each holds a stream open)")
	flag.IntVar(&c.Tickets, "tickets", 500, "tickets, each watched by 5 of the people")
	flag.IntVar(&c.Rate, "rate", 100, "ticket changes a second")
	flag.IntVar(&c.Clients, "clients", 32, "concurrent requests at most")
	flag.DurationVar(&c.Duration, "duration", 20*time.Second, "how long the changes go on")
	flag.DurationVar(&c.Target, "target", 2*time.Second, "the stream p99 above which the run fails")
	flag.BoolVar(&c.Explain, "explain", false, "print EXPLAIN ANALYZE of the hub's query (every person, every row of the load) after the load")
	flag.Parse()
	if c.Users < watchersPerTicket || c.Tickets < 1 || c.Rate < 1 || c.Clients < 1 {
		fmt.Fprintln(os.Stderr, "benchinbox: need users >= 5, tickets, rate and clients >= 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ok, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchinbox:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

type person struct {
	id    uuid.UUID
	token string
}

// arrival is one notification as a stream delivered it.
type arrival struct {
	id, ticket uuid.UUID
	typ        string
	at         time.Time
}

// change is one change the actor made and whom it should tell.
type change struct {
	ticket   uuid.UUID
	typ      string
	to       []uuid.UUID
	answered time.Time
	n        int // the ticket's how manieth change
}

type bench struct {
	c       config
	url     string
	actor   person
	people  []person
	mu      sync.Mutex
	arrived map[uuid.UUID][]arrival // by recipient
	dups    int
	// missedInbox counts the inbox reads right after a change that did not
	// list its notification.
	missedInbox int
}

func run(ctx context.Context, c config) (bool, error) {
	var hub *notification.Hub
	s, err := benchkit.Serve(ctx, "", false, func(db *store.DB, clock domain.Clock) []api.Module {
		hub = notification.NewHub(db, clock, slog.Default())
		return []api.Module{
			projects.New(project.New(db, clock)),
			tickets.New(ticket.New(db, clock), search.New(db, clock)),
			comments.New(comment.New(db, clock)),
			notifications.New(notification.New(db, clock), hub, api.DefaultStreamOptions),
		}
	})
	if err != nil {
		return false, err
	}
	defer s.Stop()
	defer hub.Close() // before the pool closes
	b := &bench{c: c, url: s.URL, arrived: map[uuid.UUID][]arrival{}}
	tix, watchers, err := b.seed(ctx, s.DBURL)
	if err != nil {
		return false, fmt.Errorf("seed: %w", err)
	}
	sctx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	var ready sync.WaitGroup
	streamErrs := make(chan error, len(b.people)+1)
	for _, p := range append([]person{b.actor}, b.people...) {
		ready.Add(1)
		go func() { streamErrs <- b.stream(sctx, p, &ready) }()
	}
	ready.Wait()

	changes, apiLat, err := b.load(ctx, tix, watchers)
	if err != nil {
		return false, err
	}
	want := 0
	for _, ch := range changes {
		want += len(ch.to)
	}
	// Wait for the streams to catch up (or for what is lost to stay lost).
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && b.received() < want {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // late duplicates or strays
	stopStreams()
	select {
	case err := <-streamErrs:
		if err != nil && !errors.Is(err, context.Canceled) {
			return false, fmt.Errorf("stream: %w", err)
		}
	default:
	}
	ok, err := b.report(ctx, c, changes, apiLat, want)
	if err == nil && c.Explain {
		err = b.explain(ctx, s.DBURL)
	}
	return ok, err
}

// explain prints the plan of the one query the hub runs per wake for all
// its subscribers, as it runs it: every person, from a horizon the load's
// rows are all above (the widest window a look could have).
func (b *bench) explain(ctx context.Context, dbURL string) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	users := make([]uuid.UUID, 0, len(b.people)+1)
	for _, p := range append([]person{b.actor}, b.people...) {
		users = append(users, p.id)
	}
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+notificationdb.EndedSQL, users, "1")
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Println("the hub's query, every person, every row of the load:")
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if len(line) > 160 { // the Filter line lists every user id
			line = line[:160] + "…"
		}
		fmt.Println("  " + line)
	}
	return rows.Err()
}

// seed makes the org, its people and tickets, and the watchers.
func (b *bench) seed(ctx context.Context, dbURL string) ([]uuid.UUID, map[uuid.UUID][]uuid.UUID, error) {
	tag := uuid.NewString()[:8]
	register := func(name string) (person, error) {
		var auth struct {
			AccessToken string    `json:"access_token"`
			UserID      uuid.UUID `json:"user_id"`
		}
		err := benchkit.Call(ctx, b.url, "POST", "/api/v1/auth/register", "", map[string]any{
			"email": name + "-" + tag + "@bench.test", "password": "benchmark-password", "display_name": name}, &auth)
		return person{id: auth.UserID, token: auth.AccessToken}, err
	}
	var err error
	if b.actor, err = register("actor"); err != nil {
		return nil, nil, err
	}
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/auth/me", b.actor.token, nil, &me); err != nil {
		return nil, nil, err
	}
	var proj struct {
		ID uuid.UUID `json:"id"`
	}
	if err := benchkit.Call(ctx, b.url, "POST", "/api/v1/projects", b.actor.token,
		map[string]any{"org_id": me.OrgID, "key": "INB", "name": "Inbox bench"}, &proj); err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, nil, err
	}
	defer pool.Close()
	b.people = make([]person, b.c.Users)
	if err := parallel(b.c.Users, 8, func(i int) error {
		p, err := register(fmt.Sprintf("user%d", i))
		if err != nil {
			return err
		}
		b.people[i] = p
		_, err = pool.Exec(ctx, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member')`, me.OrgID, p.id)
		return err
	}); err != nil {
		return nil, nil, err
	}
	tix := make([]uuid.UUID, b.c.Tickets)
	watchers := map[uuid.UUID][]uuid.UUID{}
	var wmu sync.Mutex
	err = parallel(b.c.Tickets, 8, func(i int) error {
		var t struct {
			ID uuid.UUID `json:"id"`
		}
		if err := benchkit.Call(ctx, b.url, "POST", "/api/v1/projects/"+proj.ID.String()+"/tickets", b.actor.token,
			map[string]any{"title": fmt.Sprintf("Inbox bench ticket %d", i)}, &t); err != nil {
			return err
		}
		tix[i] = t.ID
		// 5 distinct people, spread evenly: ticket i is watched by people
		// 5i … 5i+4 (mod users).
		ws := make([]uuid.UUID, watchersPerTicket)
		for k := range ws {
			ws[k] = b.people[(i*watchersPerTicket+k)%b.c.Users].id
			if err := benchkit.Call(ctx, b.url, "PUT", "/api/v1/tickets/"+t.ID.String()+"/watchers/"+ws[k].String(), b.actor.token, nil, nil); err != nil {
				return err
			}
		}
		wmu.Lock()
		watchers[t.ID] = ws
		wmu.Unlock()
		return nil
	})
	fmt.Printf("org of 1 actor and %d people, %d tickets watched by %d people each besides the actor\n", b.c.Users, b.c.Tickets, watchersPerTicket)
	return tix, watchers, err
}

// parallel runs f(0..n-1) on workers goroutines; the first error wins.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					errs <- nil
					return
				}
				if err := f(i); err != nil {
					next.Store(int64(n))
					errs <- err
					return
				}
			}
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// streamClient has no timeout: a stream stays open.
var streamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

// stream holds p's live stream open until ctx ends, reconnecting with
// Last-Event-ID when the server ends it, and records every notification.
func (b *bench) stream(ctx context.Context, p person, ready *sync.WaitGroup) error {
	last, first := "", true
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "GET", b.url+"/api/v1/notifications/stream", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+p.token)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		res, err := streamClient.Do(req)
		if err != nil {
			if first {
				ready.Done()
			}
			return err
		}
		if res.StatusCode != 200 {
			res.Body.Close()
			if first {
				ready.Done()
			}
			return fmt.Errorf("stream: %d", res.StatusCode)
		}
		if first {
			ready.Done()
			first = false
		}
		sc := bufio.NewScanner(res.Body)
		var id, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			case line == "" && data != "":
				b.record(p.id, data, time.Now())
				last, data, id = id, "", ""
			}
		}
		res.Body.Close()
	}
	return ctx.Err()
}

func (b *bench) record(user uuid.UUID, data string, at time.Time) {
	var n struct {
		ID     uuid.UUID `json:"id"`
		Type   string    `json:"type"`
		Ticket *struct {
			ID uuid.UUID `json:"id"`
		} `json:"ticket"`
	}
	if json.Unmarshal([]byte(data), &n) != nil || n.Ticket == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.arrived[user] {
		if a.id == n.ID {
			b.dups++
			return
		}
	}
	b.arrived[user] = append(b.arrived[user], arrival{id: n.ID, ticket: n.Ticket.ID, typ: n.Type, at: at})
}

func (b *bench) received() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, as := range b.arrived {
		n += len(as)
	}
	return n
}

// inboxCheck is one read of a recipient's inbox right after a change.
type inboxCheck struct {
	found bool
	took  time.Duration // from the change's answer to the read's
}

// load makes rate changes a second for the duration; changes of one ticket
// never overlap (each waits for the previous one's answer).
func (b *bench) load(ctx context.Context, tix []uuid.UUID, watchers map[uuid.UUID][]uuid.UUID) ([]change, []time.Duration, error) {
	type state struct {
		mu       sync.Mutex
		n        int // changes so far
		status   string
		assignee int // index into the watchers
	}
	states := make([]*state, len(tix))
	for i := range states {
		states[i] = &state{status: "Backlog", assignee: -1}
	}
	total := b.c.Rate * int(b.c.Duration.Seconds())
	var (
		mu      sync.Mutex
		changes = make([]change, 0, total)
		apiLat  = make([]time.Duration, 0, total)
		checks  []inboxCheck
		seq     atomic.Int64
	)
	jobs := make(chan int)
	errs := make(chan error, b.c.Clients)
	var wg sync.WaitGroup
	for range b.c.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				t := tix[i%len(tix)]
				st := states[i%len(tix)]
				st.mu.Lock()
				ch := change{ticket: t}
				var method, path string
				var body map[string]any
				ws := watchers[t]
				switch st.n % 3 {
				case 0:
					next := map[string]string{"Backlog": "Todo", "Todo": "Backlog"}[st.status]
					method, path, body = "PATCH", "/api/v1/tickets/"+t.String(), map[string]any{"status": next}
					ch.typ, ch.to = notification.TypeStatusChanged, ws
					st.status = next
				case 1:
					method, path = "POST", "/api/v1/tickets/"+t.String()+"/comments"
					body = map[string]any{"body": fmt.Sprintf("bench comment %d", seq.Add(1))}
					ch.typ, ch.to = notification.TypeCommented, ws
				default:
					st.assignee = (st.assignee + 1) % len(ws)
					method, path = "PATCH", "/api/v1/tickets/"+t.String()
					body = map[string]any{"assignee_id": ws[st.assignee]}
					ch.typ, ch.to = notification.TypeAssigned, ws[st.assignee:st.assignee+1]
				}
				sent := time.Now()
				_, _, err := benchkit.Send(ctx, b.url, method, path, b.actor.token, body)
				ch.answered, ch.n = time.Now(), st.n
				st.n++
				st.mu.Unlock()
				if err != nil {
					errs <- err
					return
				}
				var check *inboxCheck
				if i%10 == 0 {
					found, err := b.inboxHas(ctx, b.person(ch.to[0]), t, ch.typ, sent)
					if err != nil {
						errs <- err
						return
					}
					check = &inboxCheck{found: found, took: time.Since(ch.answered)}
				}
				mu.Lock()
				changes = append(changes, ch)
				apiLat = append(apiLat, ch.answered.Sub(sent))
				if check != nil {
					checks = append(checks, *check)
				}
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	var err error
loop:
	for i := range total {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(b.c.Rate))))
		select {
		case jobs <- i:
		case err = <-errs:
			break loop
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
	}
	close(jobs)
	wg.Wait()
	took := time.Since(start)
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	if err != nil {
		return nil, nil, err
	}
	found := 0
	for _, c := range checks {
		if c.found {
			found++
		}
	}
	reads := make([]time.Duration, len(checks))
	for i, c := range checks {
		reads[i] = c.took
	}
	slices.Sort(reads)
	fmt.Printf("%d changes in %.1f s (%.0f/s; status, comment, assignment in turn), %d clients at most\n",
		len(changes), took.Seconds(), float64(len(changes))/took.Seconds(), b.c.Clients)
	if len(reads) > 0 {
		fmt.Printf("inbox: %d of %d reads right after a change's answer already listed its notification (read p50 %.1f ms, p99 %.1f ms)\n",
			found, len(checks), benchkit.Ms(benchkit.Pct(reads, 50)), benchkit.Ms(benchkit.Pct(reads, 99)))
	}
	if found != len(checks) {
		b.missedInbox = len(checks) - found
	}
	return changes, apiLat, nil
}

func (b *bench) person(id uuid.UUID) person {
	for _, p := range b.people {
		if p.id == id {
			return p
		}
	}
	return person{}
}

// inboxHas reads p's newest notifications and says whether one of ticket
// of type typ written since (the request's start; one clock in process) is
// among them.
func (b *bench) inboxHas(ctx context.Context, p person, ticket uuid.UUID, typ string, since time.Time) (bool, error) {
	var out struct {
		Items []struct {
			Type      string    `json:"type"`
			CreatedAt time.Time `json:"created_at"`
			Ticket    *struct {
				ID uuid.UUID `json:"id"`
			} `json:"ticket"`
		} `json:"items"`
	}
	if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/notifications?limit=50", p.token, nil, &out); err != nil {
		return false, err
	}
	for _, n := range out.Items {
		if n.Type == typ && n.Ticket != nil && n.Ticket.ID == ticket && !n.CreatedAt.Before(since) {
			return true, nil
		}
	}
	return false, nil
}

// report matches what each stream received to the changes, in order per
// recipient and ticket (a ticket's changes never overlap, and notification
// ids grow with them), prints the figures and says whether the run passed.
func (b *bench) report(ctx context.Context, c config, changes []change, apiLat []time.Duration, want int) (bool, error) {
	type key struct{ user, ticket uuid.UUID }
	expect := map[key][]change{}
	perUser := map[uuid.UUID]int{}
	for _, ch := range changes {
		for _, u := range ch.to {
			expect[key{u, ch.ticket}] = append(expect[key{u, ch.ticket}], ch)
			perUser[u]++
		}
	}
	b.mu.Lock()
	got := map[key][]arrival{}
	toActor, received := len(b.arrived[b.actor.id]), 0
	for u, as := range b.arrived {
		if u == b.actor.id {
			continue
		}
		for _, a := range as {
			got[key{u, a.ticket}] = append(got[key{u, a.ticket}], a)
			received++
		}
	}
	dups := b.dups
	b.mu.Unlock()
	var lat []time.Duration
	lost, stray, wrongType, early := 0, 0, 0, 0
	for k, chs := range expect {
		slices.SortFunc(chs, func(x, y change) int { return x.n - y.n })
		as := got[k]
		slices.SortFunc(as, func(x, y arrival) int { return strings.Compare(x.id.String(), y.id.String()) })
		for i, ch := range chs {
			if i >= len(as) {
				lost += len(chs) - i
				break
			}
			if as[i].typ != ch.typ {
				wrongType++
			}
			d := as[i].at.Sub(ch.answered)
			if d < 0 {
				early++
				d = 0
			}
			lat = append(lat, d)
		}
		if len(as) > len(chs) {
			stray += len(as) - len(chs)
		}
		delete(got, k)
	}
	for _, as := range got {
		stray += len(as)
	}
	unreadWrong := 0
	for _, p := range b.people {
		var out struct {
			Count int `json:"count"`
		}
		if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/notifications/unread-count", p.token, nil, &out); err != nil {
			return false, err
		}
		if out.Count != perUser[p.id] {
			unreadWrong++
		}
	}
	slices.Sort(apiLat)
	slices.Sort(lat)
	fmt.Printf("change requests: p50 %.1f ms, p99 %.1f ms\n", benchkit.Ms(benchkit.Pct(apiLat, 50)), benchkit.Ms(benchkit.Pct(apiLat, 99)))
	fmt.Printf("notifications: %d expected, %d received on the streams (%d lost, %d duplicated, %d of another type, %d stray, %d to the actor)\n",
		want, received, lost, dups, wrongType, stray, toActor)
	if len(lat) > 0 {
		fmt.Printf("answer-to-stream latency: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d arrived before the client had the answer)\n",
			benchkit.Ms(benchkit.Pct(lat, 50)), benchkit.Ms(benchkit.Pct(lat, 95)), benchkit.Ms(benchkit.Pct(lat, 99)), benchkit.Ms(lat[len(lat)-1]), early)
	}
	fmt.Printf("unread counts: %d of %d people differ from what they were told\n", unreadWrong, len(b.people))
	ok := len(lat) > 0 && benchkit.Pct(lat, 99) <= c.Target && lost == 0 && dups == 0 && wrongType == 0 && stray == 0 &&
		toActor == 0 && unreadWrong == 0 && b.missedInbox == 0
	if !ok {
		fmt.Printf("FAILED: the target is stream p99 <= %s with nothing lost, duplicated, stray or to the actor, and every inbox current\n", c.Target)
	}
	return ok, nil
}
