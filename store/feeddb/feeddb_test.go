package feeddb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/feeddb"
	"tracker/store/storetest"
)

// event writes one event row of org in q, as domain.Record does (id made
// before the insert, so ids do not follow commit order).
func event(t testing.TB, q store.Querier, org, id uuid.UUID) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"id": id, "type": "ticket.created", "data": map[string]any{}})
	if err := store.InsertOutbox(context.Background(), q, store.OutboxRow{ID: id, OrgID: org, Topic: "ticket.created",
		Payload: b, CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
}

// reader reads org's feed from pos, as an integrator polling does.
type reader struct {
	org  uuid.UUID
	pos  feeddb.Position
	seen []uuid.UUID
}

// until polls until the reader has read n events in all: the feed holds
// back events while any older transaction of the cluster is in flight
// (other tests' included), so a reader sees them a moment later.
func (r *reader) until(t testing.TB, db *store.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.poll(t, db); len(r.seen) < n; r.poll(t, db) {
		if time.Now().After(deadline) {
			t.Fatalf("read %d events in 10 s, want %d", len(r.seen), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *reader) poll(t testing.TB, db *store.DB) int {
	t.Helper()
	n := 0
	for {
		rows, err := feeddb.Page(context.Background(), db.Q(), feeddb.Query{OrgID: r.org, After: r.pos, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			r.seen = append(r.seen, row.ID)
			if r.pos, err = row.Position(); err != nil {
				t.Fatal(err)
			}
		}
		n += len(rows)
		if len(rows) < 50 {
			return n
		}
	}
}

// TestLateCommitIsNotSkipped: a transaction that made its event (id and
// created_at) first but commits last is neither skipped by a reader that
// already read a later event, nor read twice: the later event waits until
// the earlier transaction has ended.
func TestLateCommitIsNotSkipped(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org := uuid.New()
	early, _ := uuid.NewV7()
	late, _ := uuid.NewV7()

	slow, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = slow.Rollback(ctx) }()
	event(t, slow, org, early) // in flight: its transaction holds the xmin
	event(t, db.Q(), org, late)

	r := &reader{org: org}
	if n := r.poll(t, db); n != 0 {
		t.Fatalf("read %d events while an earlier transaction is in flight, want 0", n)
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r.until(t, db, 2)
	if fmt.Sprint(r.seen) != fmt.Sprint([]uuid.UUID{early, late}) {
		t.Fatalf("read %v, want early then late", r.seen)
	}

	// The other way round: the transaction that started later (a later
	// transaction id) writes the event with the earlier id and commits
	// last; the reader has passed the other event already and still gets it.
	first, _ := uuid.NewV7()
	second, _ := uuid.NewV7()
	a, _ := db.Pool.Begin(ctx)
	defer func() { _ = a.Rollback(ctx) }()
	if _, err := a.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil { // a takes its id now
		t.Fatal(err)
	}
	b, _ := db.Pool.Begin(ctx)
	defer func() { _ = b.Rollback(ctx) }()
	event(t, b, org, first)
	event(t, a, org, second)
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r.until(t, db, 3) // second is read: a ended, b's id is above it
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r.until(t, db, 4)
	if fmt.Sprint(r.seen[2:]) != fmt.Sprint([]uuid.UUID{second, first}) {
		t.Fatalf("read %v after early, late; want second then first (commit order)", r.seen[2:])
	}
}

// TestConcurrentWritersLoseNothing: writers commit events in random order
// (each holds its transaction open a while) while a reader polls; the
// reader ends with every committed event exactly once, none of the rolled
// back ones.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org := uuid.New()
	const writers, each = 8, 25
	var mu sync.Mutex
	committed := map[uuid.UUID]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, _ := uuid.NewV7()
				rollback := (w+i)%7 == 0
				err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
					event(t, tx, org, id)
					time.Sleep(time.Duration((w*7+i*13)%11) * time.Millisecond)
					if rollback {
						return fmt.Errorf("rolled back")
					}
					return nil
				})
				if err == nil {
					mu.Lock()
					committed[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	r := &reader{org: org}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			r.poll(t, db)
		}
	}
	r.until(t, db, len(committed))
	r.poll(t, db)
	seen := map[uuid.UUID]bool{}
	for _, id := range r.seen {
		if seen[id] {
			t.Errorf("event %s read twice", id)
		}
		seen[id] = true
		if !committed[id] {
			t.Errorf("event %s read but never committed", id)
		}
	}
	if len(seen) != len(committed) {
		t.Errorf("read %d events, %d committed", len(seen), len(committed))
	}
}

// TestFeedQueryIsIndexServed: the feed's query of one org walks the feed
// index in order (no sort, no scan of other orgs' rows), for every filter.
func TestFeedQueryIsIndexServed(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	// Many orgs' rows (and job rows); org 7 has a quarter of them, so
	// reading its feed in order must not sort them.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO outbox (id, org_id, topic, payload)
		SELECT gen_random_uuid(), ('00000000-0000-0000-0000-' || lpad((CASE WHEN g % 4 = 0 THEN 7 ELSE g % 200 END)::text, 12, '0'))::uuid,
		       CASE WHEN g % 3 = 0 THEN 'job.cascade_delete' ELSE 'ticket.created' END, '{"data":{}}'
		FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "ANALYZE outbox"); err != nil {
		t.Fatal(err)
	}
	org := uuid.MustParse("00000000-0000-0000-0000-000000000007")
	for _, q := range []feeddb.Query{
		{OrgID: org, Limit: 20},
		{OrgID: org, Limit: 20, Types: []string{"ticket.created", "comment.created"}},
		{OrgID: org, Limit: 20, Projects: []uuid.UUID{uuid.New()}},
		{OrgID: org, Limit: 20, After: feeddb.Position{Txid: 12345, ID: uuid.New()}},
	} {
		sql, args := feeddb.Statement(q)
		plan := storetest.Explain(t, db.Pool, "", sql, args...)
		ordered := strings.Contains(plan, "Index Scan using outbox_feed_idx") && !strings.Contains(plan, "Sort")
		if len(q.Projects) > 0 {
			// A project-restricted key's filter is an expression the planner
			// guesses selective: it may take the org's rows after the
			// position from the same index and sort the few that match.
			ordered = strings.Contains(plan, "outbox_feed_idx")
		}
		if !ordered || strings.Contains(plan, "Seq Scan on outbox") {
			t.Errorf("plan for %+v:\n%s", q, plan)
		}
	}
}
