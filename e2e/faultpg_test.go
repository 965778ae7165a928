package e2e

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"tracker/domain"
	"tracker/worker/workertest"
)

// TestFaultPostgresRestart: PostgreSQL (a private cluster) restarted with a
// fast shutdown under a mixed load of reads and ticket creates (each create
// retried under its Idempotency-Key), with a webhook on ticket.created.
// During the outage every answer is a 503 with Retry-After and the envelope
// (never another 5xx, never slower than 10 s); within 5 s of PostgreSQL
// accepting connections again requests succeed, without restarting the
// API or the worker; every ticket answered 201 exists once, the outbox
// drains, and every ticket's event reaches the webhook under one id.
func TestFaultPostgresRestart(t *testing.T) {
	t.Parallel()
	pg := newPGCluster(t)
	url := pg.NewDatabase("tracker")
	srv := workertest.Start(t)
	// The rate limit is off: the load is the test's, not a client to refuse.
	s := newStack(t, url, srv, map[string]string{"SERVICE_RATE_LIMIT": "0"})
	s.run("api")
	s.run("worker")
	u := s.register("owner")
	db := openDB(t, url)
	project := s.createProject(db, u, "PGR")
	rcv := newReceiver(t, ok)
	s.createWebhook(u, rcv, domain.EventTicketCreated)
	seed, _ := s.createTicket(db, u, project, "seed")

	var (
		clients = pick(4, 8)
		before  = pick(2*time.Second, 10*time.Second)
		outage  = pick(3*time.Second, 20*time.Second)
		after   = pick(3*time.Second, 10*time.Second)
	)
	f := &figures{name: "postgres restart"}
	c := newFaultClient(t, u.Token, s.BaseURL)
	var cr creates
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				switch n % 3 {
				case 0:
					createTicketRetried(c, f, &cr, 0, project, fmt.Sprintf("pgr-%d-%d", g, n))
				case 1, 2:
					path := "/tickets/" + seed.String()
					if n%3 == 2 {
						path = "/projects/" + project.String() + "/tickets?limit=20"
					}
					f.attempted.Add(1)
					r, retries := c.call(0, "GET", path, nil, "")
					f.retried.Add(int64(retries))
					if r.Status == http.StatusOK {
						f.succeeded.Add(1)
					} else {
						t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
					}
				}
			}
		}()
	}

	time.Sleep(before)
	pg.Stop("fast")
	time.Sleep(outage)
	pg.Start()
	back := time.Now()
	probe := newFaultClient(t, u.Token, s.BaseURL)
	probe.retryCap = 50 * time.Millisecond
	if r, _ := probe.call(0, "GET", "/tickets/"+seed.String(), nil, ""); r.Status != http.StatusOK {
		t.Errorf("after the restart: %d %s", r.Status, r.Body)
	}
	f.recovery = time.Since(back)
	if f.recovery > 5*time.Second {
		t.Errorf("requests succeed again %s after PostgreSQL accepts connections, want within 5 s", f.recovery)
	}
	time.Sleep(after)
	close(stop)
	wg.Wait()
	if c.unavail.Load() == 0 {
		t.Error("no 503 during the outage: the load did not meet it")
	}

	checkTickets(t, url, project, "pgr-", &cr, f)
	waitFor(t, 60*time.Second, "the outbox drained", func() bool {
		return scalar(t, db, `SELECT count(*) FROM outbox WHERE dispatched_at IS NULL`) == 0
	})
	waitDeliveries(t, rcv, &cr, f, 6*time.Minute)
	t.Logf("%d answers were 503 during the outage of %s", c.unavail.Load(), outage)
	f.report(t)
}
