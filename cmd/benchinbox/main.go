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
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/google/uuid"

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
