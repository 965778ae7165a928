package worker

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"tracker/internal/traceparent"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/worker/jobkind"
)

// Relay moves outbox rows to Temporal. It claims due rows in short
// statements that lease them (FOR UPDATE SKIP LOCKED, so replicas share the
// work), as dispatch slots free, and dispatches them concurrently, at most
// Concurrency at a time, outside any transaction, marking each row as it
// succeeds (the marks of rows finishing together share one statement). Workflow ids
// are derived from the row, so a repeated start is a no-op.
//
// A row never holds up the others: one whose dispatch fails is retried with
// exponential backoff (next_attempt_at) while later rows flow past it, and
// after MaxAttempts failures, or at once for a Permanent error, it is parked
// as dead: logged, counted (outbox_parked_total) and listed by `tracker
// outbox dead` until an operator retries it. While Temporal is unreachable
// rows are only postponed (no attempt counted) and the relay backs off:
// nothing is lost and nothing is parked by an outage.
type Relay struct {
	DB     *store.DB
	Log    *slog.Logger
	Env    jobkind.Env
	Topics map[string][]jobkind.Dispatch
	Poll   time.Duration // backstop poll (default 2 s)
	Batch  int           // rows per claim (default 200)
	// Concurrency is how many rows are dispatched at once (default
	// DefaultConcurrency).
	Concurrency int
	// MaxAttempts is how many failed dispatches park a row (default 20).
	MaxAttempts int
	// Lease is how long a claimed row is hidden from other relays while it
	// is dispatched (default 1 min; a dispatch times out after 15 s).
	Lease time.Duration
	// Retention is how long dispatched rows are kept (default 30 days):
	// redelivering a webhook event reads the event from its row.
	Retention time.Duration
	// Metrics is where the relay's gauges and counters go (nil: nowhere).
	Metrics prometheus.Registerer
	// Tracing makes a span of each dispatch, a child of the span of the
	// request that wrote the row (its stored traceparent); nil: none.
	Tracing *tracing.Tracing

	metricsOnce sync.Once
	m           *relayMetrics
	marks       groupCommit[uuid.UUID]
}

// DefaultMaxAttempts is how many failed dispatches park an outbox row.
const DefaultMaxAttempts = 20

const (
	dispatchTimeout = 15 * time.Second
	maxRowBackoff   = 10 * time.Minute
)

// RowBackoff is the wait before a row's next attempt after its n-th failure:
// 1 s doubling to at most 10 min (20 attempts span about two hours).
func RowBackoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 20 {
		return maxRowBackoff
	}
	return min(time.Second<<(n-1), maxRowBackoff)
}

func (r *Relay) metrics() *relayMetrics {
	r.metricsOnce.Do(func() { r.m = newRelayMetrics(r.Metrics) })
	return r.m
}

// DefaultRetention keeps dispatched outbox rows for 30 days.
const DefaultRetention = 30 * 24 * time.Hour

const (
	pruneEvery = time.Hour
	pruneBatch = 1000
)

// Prune deletes dispatched rows older than the retention, in batches so no
// transaction grows large; replicas pruning at once only split the work.
func (r *Relay) Prune(ctx context.Context) (int64, error) {
	retention := r.Retention
	if retention <= 0 {
		retention = DefaultRetention
	}
	cutoff := time.Now().Add(-retention)
	var total int64
	for {
		n, err := outboxdb.PruneDispatched(ctx, r.DB.Q(), cutoff, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}

func (r *Relay) pruneLoop(ctx context.Context) {
	for {
		if n, err := r.Prune(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("outbox relay: pruning dispatched rows failed", "error", err)
		} else if n > 0 {
			r.Log.Info("outbox relay: pruned dispatched rows", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pruneEvery):
		}
	}
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) {
	if r.Poll <= 0 {
		r.Poll = 2 * time.Second
	}
	go r.pruneLoop(ctx)
	go r.statsLoop(ctx)
	wake := make(chan struct{}, 1)
	go r.listen(ctx, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	backoff := time.Second
	for ctx.Err() == nil {
		began := time.Now()
		err := r.pump(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute { // a new failure, not the same one again
			backoff = time.Second
		}
		r.Log.Warn("outbox relay: dispatch failed; rows stay pending", "error", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// listen keeps a LISTEN connection open, reconnecting after failures.
func (r *Relay) listen(ctx context.Context, wake func()) {
	for ctx.Err() == nil {
		err := outboxdb.Listen(ctx, r.DB, wake)
		if ctx.Err() != nil || errors.Is(err, store.ErrClosed) {
			return // stopping, or the process closed its pool first: nothing to listen on
		}
		r.Log.Warn("outbox relay: LISTEN connection lost; polling meanwhile", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// DefaultConcurrency is how many outbox rows a relay dispatches at once.
const DefaultConcurrency = 128

// Drain dispatches every due row until none is left and none is in flight.
// A row that fails is rescheduled (or parked) and the others carry on; the
// error returned is Temporal being unreachable (the caller backs off), or
// the database failing.
func (r *Relay) Drain(ctx context.Context) error { return r.pump(ctx, nil) }

// pump keeps up to Concurrency rows in flight, claiming due rows as slots
// free rather than in rounds that wait for their slowest row: a slow
// receiver holds one slot, not the rows claimed beside it. After a claim
// that came back short nothing more is due until wake (a NOTIFY) or the
// backstop poll says otherwise. With wake nil it returns once nothing is due
// or in flight; otherwise only on an error (after its rows in flight have
// settled) or when ctx ends.
func (r *Relay) pump(ctx context.Context, wake <-chan struct{}) error {
	conc, batch, lease := r.Concurrency, r.Batch, r.Lease
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	if batch <= 0 {
		batch = 200
	}
	if lease <= 0 {
		lease = time.Minute
	}
	// A saturated relay claims once an eighth of its slots are free: one
	// claim per finished row would cost a statement per row.
	lowWater := max(1, min(conc/8, batch))
	done := make(chan error, conc)
	inFlight, due := 0, true
	var firstErr error
	poll := time.NewTicker(cmp.Or(max(r.Poll, 0), 2*time.Second))
	defer poll.Stop()
	stop := ctx.Done()
	for {
		if firstErr == nil && due && ctx.Err() == nil && (conc-inFlight >= lowWater || inFlight == 0) {
			n := min(conc-inFlight, batch)
			rows, err := outboxdb.Claim(ctx, r.DB.Q(), n, lease)
			if err != nil {
				firstErr = err
				continue
			}
			for _, row := range rows {
				inFlight++
				go func() { done <- r.settle(ctx, row, r.dispatch(ctx, row.OutboxRow)) }()
			}
			if due = len(rows) == n; due {
				continue
			}
		}
		if inFlight == 0 && (firstErr != nil || wake == nil && !due) {
			return firstErr
		}
		var pollC <-chan time.Time
		if wake != nil {
			pollC = poll.C
		}
		select {
		case err := <-done:
			inFlight--
			if err != nil && firstErr == nil {
				firstErr = err
			}
		case <-wake:
			due = true
		case <-pollC:
			due = true
		case <-stop: // the rows in flight settle (handed back), then it returns
			stop = nil
			if firstErr == nil {
				firstErr = ctx.Err()
			}
		}
	}
}

// settle records a dispatch's outcome on its row: dispatched, postponed
// (Temporal unreachable or the relay stopping), retried later, or parked.
// It returns an error only for the first two, which say the relay should
// back off, and for a database failure.
func (r *Relay) settle(ctx context.Context, row outboxdb.Claimed, derr error) error {
	// The outcome is written even while ctx ends, so a stopping relay hands
	// its rows back at once instead of leaving them leased.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	m := r.metrics()
	log := r.Log.With("outbox_id", row.ID, "topic", row.Topic, "org_id", row.OrgID)
	switch {
	case derr == nil:
		m.dispatched.WithLabelValues(row.Topic).Inc()
		return r.marks.do(wctx, row.ID, func(ctx context.Context, ids []uuid.UUID) error {
			return outboxdb.MarkDispatched(ctx, r.DB.Q(), ids...)
		})
	case ctx.Err() != nil || unavailable(derr):
		if err := outboxdb.Postpone(wctx, r.DB.Q(), row.ID, derr.Error(), 0); err != nil {
			return err
		}
		return derr
	}
	m.failures.WithLabelValues(row.Topic).Inc()
	attempts := row.Attempts + 1
	maxAttempts := r.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	if park := jobkind.IsPermanent(derr) || attempts >= maxAttempts; park {
		m.parked.WithLabelValues(row.Topic).Inc()
		log.Error("outbox relay: row parked as dead; `tracker outbox retry ID` offers it again once fixed",
			"attempts", attempts, "permanent", jobkind.IsPermanent(derr), "error", derr)
		return outboxdb.Failed(wctx, r.DB.Q(), row.ID, derr.Error(), 0, true)
	}
	next := RowBackoff(attempts)
	log.Warn("outbox relay: dispatch failed; retrying the row later", "attempts", attempts,
		"retry_in", next.String(), "error", derr)
	return outboxdb.Failed(wctx, r.DB.Q(), row.ID, derr.Error(), next, false)
}

// dispatch offers a row to every handler of its topic.
func (r *Relay) dispatch(ctx context.Context, row store.OutboxRow) error {
	handlers := r.Topics[row.Topic]
	if len(handlers) == 0 {
		r.Log.Warn("outbox relay: no handler for topic; marking dispatched", "topic", row.Topic, "outbox_id", row.ID)
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, dispatchTimeout)
	defer cancel()
	if r.Tracing.Enabled() {
		if row.Traceparent != nil {
			dctx = traceparent.Context(dctx, *row.Traceparent)
		}
		var span trace.Span
		dctx, span = r.Tracing.Tracer("tracker/worker").Start(dctx, "outbox dispatch "+row.Topic,
			trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(attribute.String("outbox.id", row.ID.String()), attribute.String("outbox.topic", row.Topic),
				attribute.String("tracker.org_id", row.OrgID.String())))
		defer span.End()
	}
	for _, h := range handlers {
		if err := h(dctx, r.Env, row); err != nil {
			if span := trace.SpanFromContext(dctx); span.IsRecording() {
				span.RecordError(err)
				span.SetStatus(codes.Error, "")
			}
			return err
		}
	}
	r.Log.Debug("outbox row dispatched", "outbox_id", row.ID, "topic", row.Topic, "org_id", row.OrgID)
	return nil
}
