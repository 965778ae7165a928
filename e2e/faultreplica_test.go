package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/internal/stackrun"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// TestFaultAPIReplicaKilled: two API replicas; creates sent with
// Idempotency-Keys, spread over both, and api-1 killed (SIGKILL) a third of
// the way in. A create that meets the dead replica (refused, or cut off
// with its answer unread: it may have committed) is retried by the client
// with the same key on the other replica. Every create ends 201, and every
// ticket exists exactly once.
func TestFaultAPIReplicaKilled(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	ctx := context.Background()
	st, err := stackrun.Start(ctx, stackrun.Config{Binary: binary(t), DatabaseURL: url, TemporalAddress: srv.Address,
		APIs: 2, SkipMigrate: true, LogDir: t.TempDir(),
		Env: map[string]string{"SERVICE_TASK_QUEUE": "e2e-" + uuid.NewString()[:8], "SERVICE_RATE_LIMIT": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range st.Procs() {
				t.Logf("--- %s ---\n%s", p.Name, p.LogTail(40))
			}
		}
		_ = st.Close()
	})
	s := &stack{t: t, BaseURL: st.URL, DBURL: url, Temporal: srv}
	u := s.register("owner")
	project := s.createProject(db, u, "REP")

	var (
		total   = pick(60, 200)
		clients = 8
		killAt  = int64(total / 3)
	)
	f := &figures{name: "API replica killed"}
	c := newFaultClient(t, u.Token, st.APIs[0].URL, st.APIs[1].URL)
	c.failover = true
	var cr creates
	var next, done atomic.Int64
	killed := make(chan time.Time, 1)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := next.Add(1) - 1
				if n >= int64(total) {
					return
				}
				createTicketRetried(c, f, &cr, int(n%2), project, fmt.Sprintf("rep-%d", n))
				if done.Add(1) == killAt {
					st.APIs[0].Kill()
					killed <- time.Now()
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the replica was never killed")
	}
	f.recovery = time.Duration(c.outage.Load())
	checkTickets(t, url, project, "rep-", &cr, f)
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE project_id = $1`, project); n != total {
		t.Errorf("%d tickets in the project, want %d", n, total)
	}
	f.report(t)
}
