// Command benchsearch measures ticket search at scale (part of `make
// bench`). In a dedicated database (a fresh, migrated database on
// TEST_DATABASE_URL's server, dropped afterwards unless -keep) it registers
// an owner and creates a project and a ticket through the in-process API,
// then seeds through SQL (generate_series, set-based) the rest of one org:
// by default 1,000,000 tickets in 100 projects (sizes skewed), 1,000 labels
// and 50 users, assignees, reporters and labels drawn with a power-law
// (Zipf-like) skew, statuses and priorities skewed as in real backlogs,
// sprints, tags, attachments, comments and blocks links. It then measures,
// through the HTTP API with 8 concurrent clients, every single-field filter
// of the query grammar, the five common combinations (assignee+status,
// label+status, sprint, text, text+status), filters that match nothing, and
// a get by id, printing p50/p95/max per filter. Targets: p95 < 30 ms per
// filter, < 80 ms for full-text; the exit code is 1 when one is missed.
//
//	-tickets N   tickets to seed (1000000; e.g. 100000 for a quick run)
//	-projects N, -labels N, -users N   (100, 1000, 50)
//	-clients N   concurrent clients (8)
//	-runs N      requests per filter (400)
//	-keep        keep the database and print its URL
//	-reuse URL   measure a database a -keep run left (no seeding)
//	-explain Q   with -reuse: print EXPLAIN ANALYZE of the search SQL for Q
//	-only S      measure only the rows whose name contains S (e.g. "resolve:")
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
)

type config struct {
	Tickets, Projects, Labels, Users int
	Clients, Runs                    int
	Keep                             bool
	Reuse                            string
	Explain                          string
	Only                             string
	URL, DB                          string
}

func main() {
	var c config
	flag.IntVar(&c.Tickets, "tickets", 1_000_000, "tickets to seed")
	flag.IntVar(&c.Projects, "projects", 100, "projects")
	flag.IntVar(&c.Labels, "labels", 1000, "labels")
	flag.IntVar(&c.Users, "users", 50, "users (members of the org)")
	flag.IntVar(&c.Clients, "clients", 8, "concurrent clients")
	flag.IntVar(&c.Runs, "runs", 400, "requests per filter")
	flag.BoolVar(&c.Keep, "keep", false, "keep the database afterwards (prints its URL)")
	flag.StringVar(&c.Reuse, "reuse", "", "measure the database a -keep run left, without seeding")
	flag.StringVar(&c.Explain, "explain", "", "print EXPLAIN ANALYZE of this q instead of measuring")
	flag.StringVar(&c.Only, "only", "", "measure only the rows whose name contains this")
	flag.Parse()
	if c.Tickets < 1000 || c.Projects < 2 || c.Labels < 10 || c.Users < 5 || c.Clients < 1 || c.Runs < c.Clients {
		fmt.Fprintln(os.Stderr, "benchsearch: need tickets >= 1000, projects >= 2, labels >= 10, users >= 5, runs >= clients")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ok, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchsearch:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (bool, error) {
	stopSelf, err := startSelf(ctx, &c)
	if err != nil {
		return false, err
	}
	defer stopSelf()
	w, err := prepare(ctx, c)
	if err != nil {
		return false, err
	}
	if c.Explain != "" {
		return true, explain(ctx, c, w, c.Explain)
	}
	return measureAll(ctx, c, w)
}
