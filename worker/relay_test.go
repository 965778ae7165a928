package worker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.temporal.io/api/serviceerror"

	"tracker/internal/syncbuf"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/storetest"
	"tracker/worker/jobkind"
)

// insertRows writes n outbox rows of topic, created age ago, in id order.
func insertRows(t *testing.T, db *store.DB, topic string, n int, age time.Duration) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	for i := 0; i < n; i++ {
		r := store.OutboxRow{ID: uuid.Must(uuid.NewV7()), OrgID: uuid.New(), Topic: topic, Payload: []byte(`{}`),
			CreatedAt: time.Now().Add(-age)}
		if err := store.InsertOutbox(context.Background(), db.Q(), r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// rowState is what the relay recorded on one row.
type rowState struct {
	Dispatched, Dead, Due bool
	Attempts              int
	LastError             string
}

func stateOf(t *testing.T, db *store.DB, id uuid.UUID) rowState {
	t.Helper()
	var s rowState
	var lastErr *string
	err := db.Q().QueryRow(context.Background(), `SELECT dispatched_at IS NOT NULL, dead_at IS NOT NULL,
		(next_attempt_at IS NULL OR next_attempt_at <= now()), attempts, last_error FROM outbox WHERE id = $1`, id).
		Scan(&s.Dispatched, &s.Dead, &s.Due, &s.Attempts, &lastErr)
	if err != nil {
		t.Fatal(err)
	}
	if lastErr != nil {
		s.LastError = *lastErr
	}
	return s
}

// makeDue ends every backoff, as time passing would.
func makeDue(t *testing.T, db *store.DB) {
	t.Helper()
	if _, err := db.Q().Exec(context.Background(), `UPDATE outbox SET next_attempt_at = now() - interval '1 second'
		WHERE next_attempt_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
}

func testRelay(db *store.DB, topics map[string][]jobkind.Dispatch) *Relay {
	return &Relay{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Topics: topics,
		Metrics: prometheus.NewRegistry(), Batch: 3}
}

func TestAFailingRowDoesNotHoldUpTheOthers(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	bad := insertRows(t, db, "test.bad", 1, time.Minute)[0] // oldest: heads every claim
	good := insertRows(t, db, "test.good", 7, 0)
	var delivered atomic.Int32
	r := testRelay(db, map[string][]jobkind.Dispatch{
		"test.bad":  {func(context.Context, jobkind.Env, store.OutboxRow) error { return errors.New("no such thing") }},
		"test.good": {func(context.Context, jobkind.Env, store.OutboxRow) error { delivered.Add(1); return nil }},
	})
	if err := r.Drain(ctx); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if delivered.Load() != 7 {
		t.Fatalf("%d good rows dispatched behind the failing one, want 7", delivered.Load())
	}
	for _, id := range good {
		if !stateOf(t, db, id).Dispatched {
			t.Fatalf("good row %s not marked dispatched", id)
		}
	}
	s := stateOf(t, db, bad)
	if s.Dispatched || s.Dead || s.Due || s.Attempts != 1 || !strings.Contains(s.LastError, "no such thing") {
		t.Fatalf("failing row %+v, want pending, backing off, 1 attempt and its error", s)
	}
	if got := value(r.metrics().failures.WithLabelValues("test.bad")); got != 1 {
		t.Fatalf("outbox_dispatch_failures_total %v", got)
	}
	// New rows keep flowing while the bad one backs off.
	more := insertRows(t, db, "test.good", 2, 0)
	if err := r.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if !stateOf(t, db, more[1]).Dispatched || stateOf(t, db, bad).Attempts != 1 {
		t.Fatal("a later row waited for the backing-off one, or it was retried before its time")
	}
}

func TestASlowRowHoldsOneSlotNotItsClaim(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	slow := insertRows(t, db, "test.slow", 1, time.Minute)[0] // oldest: claimed first
	fast := insertRows(t, db, "test.fast", 9, 0)
	release := make(chan struct{})
	var delivered atomic.Int32
	r := testRelay(db, map[string][]jobkind.Dispatch{
		"test.slow": {func(context.Context, jobkind.Env, store.OutboxRow) error { <-release; return nil }},
		"test.fast": {func(context.Context, jobkind.Env, store.OutboxRow) error { delivered.Add(1); return nil }},
	})
	r.Batch, r.Concurrency = 2, 2
	drained := make(chan error, 1)
	go func() { drained <- r.Drain(context.Background()) }()
	// The slow row shares its first claim with a fast one; every fast row
	// must get through the other slot while it is still in flight.
	deadline := time.Now().Add(20 * time.Second)
	for delivered.Load() < 9 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := delivered.Load()
	close(release)
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Fatalf("%d of 9 rows dispatched while a slow one held a slot, want all", n)
	}
	for _, id := range append(fast, slow) {
		if !stateOf(t, db, id).Dispatched {
			t.Fatalf("row %s not marked dispatched", id)
		}
	}
}

func TestARowIsParkedAfterMaxAttemptsAndRetriedByAnOperator(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	id := insertRows(t, db, "test.flaky", 1, 0)[0]
	var broken atomic.Bool
	broken.Store(true)
	calls := 0
	r := testRelay(db, map[string][]jobkind.Dispatch{"test.flaky": {func(context.Context, jobkind.Env, store.OutboxRow) error {
		calls++
		if broken.Load() {
			return errors.New("handler broken")
		}
		return nil
	}}})
	r.MaxAttempts = 3
	for i := 1; i <= 5; i++ {
		if err := r.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		makeDue(t, db)
	}
	if calls != 3 {
		t.Fatalf("%d attempts, want 3 then parked", calls)
	}
	s := stateOf(t, db, id)
	if !s.Dead || s.Dispatched || s.Attempts != 3 || s.LastError != "handler broken" {
		t.Fatalf("row %+v, want parked after 3 attempts", s)
	}
	if got := value(r.metrics().parked.WithLabelValues("test.flaky")); got != 1 {
		t.Fatalf("outbox_parked_total %v, want 1", got)
	}
	if n, _ := outboxdb.Pending(ctx, db.Q()); n != 0 {
		t.Fatalf("a parked row counts as pending (%d)", n)
	}
	dead, err := outboxdb.Dead(ctx, db.Q(), 10)
	if err != nil || len(dead) != 1 || dead[0].ID != id || dead[0].Attempts != 3 {
		t.Fatalf("dead rows %+v (%v)", dead, err)
	}
	if err := r.RefreshGauges(ctx); err != nil {
		t.Fatal(err)
	}
	if got := value(r.metrics().dead); got != 1 {
		t.Fatalf("outbox_dead_rows %v", got)
	}

	// Fixed: the operator offers it again and it goes through.
	broken.Store(false)
	if err := outboxdb.Retry(ctx, db.Q(), uuid.New()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("retrying an unknown id: %v", err)
	}
	if err := outboxdb.Retry(ctx, db.Q(), id); err != nil {
		t.Fatal(err)
	}
	if err := r.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if s := stateOf(t, db, id); !s.Dispatched || s.Dead {
		t.Fatalf("retried row %+v, want dispatched", s)
	}
}

func TestAPermanentErrorParksAtOnce(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	id := insertRows(t, db, "test.undecodable", 1, 0)[0]
	r := testRelay(db, map[string][]jobkind.Dispatch{"test.undecodable": {func(context.Context, jobkind.Env, store.OutboxRow) error {
		return jobkind.Permanent(errors.New("payload does not decode"))
	}}})
	if err := r.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := stateOf(t, db, id); !s.Dead || s.Attempts != 1 || !strings.Contains(s.LastError, "payload does not decode") {
		t.Fatalf("row %+v, want parked at the first attempt", s)
	}
	if !jobkind.IsPermanent(jobkind.Permanent(errors.New("x"))) || jobkind.IsPermanent(errors.New("x")) || jobkind.Permanent(nil) != nil {
		t.Fatal("Permanent/IsPermanent")
	}
}

func TestTemporalUnreachableCostsNoAttempt(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	id := insertRows(t, db, "test.start", 1, 0)[0]
	r := testRelay(db, map[string][]jobkind.Dispatch{"test.start": {func(context.Context, jobkind.Env, store.OutboxRow) error {
		return serviceerror.NewUnavailable("connection refused")
	}}})
	r.MaxAttempts = 1
	for i := 0; i < 3; i++ {
		if err := r.Drain(context.Background()); err == nil {
			t.Fatal("Drain hid Temporal being unreachable; the relay would not back off")
		}
	}
	if s := stateOf(t, db, id); s.Dead || s.Dispatched || s.Attempts != 0 || !s.Due {
		t.Fatalf("row %+v, want pending, due, no attempt counted", s)
	}
}

func TestRelayDispatchesConcurrentlyAndGaugesTheBacklog(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	insertRows(t, db, "test.slow", 12, 90*time.Second)
	reg := prometheus.NewRegistry()
	r := testRelay(db, nil)
	r.Metrics = reg
	if err := r.RefreshGauges(ctx); err != nil {
		t.Fatal(err)
	}
	if p := value(r.metrics().pending); p != 12 {
		t.Fatalf("outbox_pending_rows %v, want 12", p)
	}
	if age := value(r.metrics().oldest); age < 89 || age > 200 {
		t.Fatalf("outbox_oldest_pending_age_seconds %v, want about 90", age)
	}
	var mu sync.Mutex
	inFlight, peak := 0, 0
	r.Topics = map[string][]jobkind.Dispatch{"test.slow": {func(context.Context, jobkind.Env, store.OutboxRow) error {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return nil
	}}}
	r.Batch, r.Concurrency = 6, 4
	if err := r.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if peak < 2 || peak > 4 {
		t.Fatalf("peak %d dispatches in flight, want 2..4 (Concurrency 4)", peak)
	}
	if err := r.RefreshGauges(ctx); err != nil {
		t.Fatal(err)
	}
	if p, age := value(r.metrics().pending), value(r.metrics().oldest); p != 0 || age != 0 {
		t.Fatalf("after draining: pending %v, oldest age %v", p, age)
	}
	if got := value(r.metrics().dispatched.WithLabelValues("test.slow")); got != 12 {
		t.Fatalf("outbox_dispatched_total %v", got)
	}
	names := map[string]bool{}
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	for _, n := range []string{"outbox_pending_rows", "outbox_oldest_pending_age_seconds", "outbox_dead_rows"} {
		if !names[n] {
			t.Errorf("%s not on the registry", n)
		}
	}
}

// value reads a gauge's or counter's current value.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		panic(err)
	}
	if d.Gauge != nil {
		return d.Gauge.GetValue()
	}
	return d.Counter.GetValue()
}

func TestWorkerOptionsStopGracefullyAndFitThePool(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := workerOptions(Deps{DB: db})
	if o.WorkerStopTimeout != 45*time.Second {
		t.Fatalf("WorkerStopTimeout %s", o.WorkerStopTimeout)
	}
	if o.MaxConcurrentActivityExecutionSize != DefaultHTTPConcurrency {
		t.Fatalf("main queue (outbound HTTP): MaxConcurrentActivityExecutionSize %d", o.MaxConcurrentActivityExecutionSize)
	}
	if o := workerOptions(Deps{DB: db, HTTPConcurrency: 8}); o.MaxConcurrentActivityExecutionSize != 8 {
		t.Fatalf("configured HTTP concurrency: %d", o.MaxConcurrentActivityExecutionSize)
	}
	dbo := dbWorkerOptions(Deps{DB: db})
	if pool := int(db.Pool.Config().MaxConns); dbo.MaxConcurrentActivityExecutionSize != max(pool*3/4, 2) ||
		dbo.MaxConcurrentActivityExecutionSize >= pool {
		t.Fatalf("DB queue: MaxConcurrentActivityExecutionSize %d, pool %d", dbo.MaxConcurrentActivityExecutionSize, pool)
	}
	if dbo.WorkerStopTimeout != 45*time.Second {
		t.Fatalf("DB queue WorkerStopTimeout %s", dbo.WorkerStopTimeout)
	}
}

// TestRelayListenEndsQuietlyWhenThePoolCloses: a process that closes its
// pool before stopping the relay (a test's cleanup) ends the LISTEN loop
// with nothing logged.
func TestRelayListenEndsQuietlyWhenThePoolCloses(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	var logs syncbuf.Buffer
	r := &Relay{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	listening := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		r.listen(context.Background(), func() {
			select {
			case listening <- struct{}{}:
			default:
			}
		})
		close(done)
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("never listening")
	}
	db.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the relay's LISTEN loop still runs after its pool closed")
	}
	if s := logs.String(); s != "" {
		t.Errorf("logged after the pool closed:\n%s", s)
	}
}
