package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/outboxdb"
)

// Relay moves outbox rows to Temporal: it claims pending rows with FOR
// UPDATE SKIP LOCKED (so replicas share the work), starts their workflows
// with deterministic ids (a repeated start is a no-op), and marks them
// dispatched in the claiming transaction. While Temporal is unreachable the
// rows stay pending and are retried with backoff; nothing is lost.
type Relay struct {
	DB     *store.DB
	Log    *slog.Logger
	Env    Env
	Topics map[string][]Dispatch
	Poll   time.Duration // backstop poll (default 2 s)
	Batch  int           // rows per transaction (default 100)
	// Retention is how long dispatched rows are kept (default 30 days):
	// redelivering a webhook event reads the event from its row.
	Retention time.Duration
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
	if r.Batch <= 0 {
		r.Batch = 100
	}
	go r.pruneLoop(ctx)
	wake := make(chan struct{}, 1)
	go r.listen(ctx, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	backoff := time.Second
	for {
		wait := r.Poll
		if err := r.Drain(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("outbox relay: dispatch failed; rows stay pending", "error", err, "retry_in", backoff.String())
			wait, backoff = backoff, min(backoff*2, 10*time.Second)
		} else {
			backoff = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
			if wait > r.Poll { // failing: wait out the backoff, not every insert
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
		case <-time.After(wait):
		}
	}
}

// listen keeps a LISTEN connection open, reconnecting after failures.
func (r *Relay) listen(ctx context.Context, wake func()) {
	for ctx.Err() == nil {
		err := outboxdb.Listen(ctx, r.DB, wake)
		if ctx.Err() != nil {
			return
		}
		r.Log.Warn("outbox relay: LISTEN connection lost; polling meanwhile", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// Drain dispatches batches until the outbox is empty or a dispatch fails.
func (r *Relay) Drain(ctx context.Context) error {
	for {
		n, err := r.batch(ctx)
		if err != nil || n < r.Batch {
			return err
		}
	}
}

// batch claims and dispatches one batch, returning how many rows it claimed.
// Rows dispatched before a failure are still marked; the failed row and the
// ones after it stay pending for the next round.
func (r *Relay) batch(ctx context.Context) (int, error) {
	var claimed int
	var failure error
	err := r.DB.InTx(ctx, func(q store.Querier) error {
		failure = nil
		rows, err := outboxdb.Claim(ctx, q, r.Batch)
		if err != nil {
			return err
		}
		claimed = len(rows)
		done := make([]uuid.UUID, 0, len(rows))
		for _, row := range rows {
			if err := r.dispatch(ctx, row); err != nil {
				if !errors.Is(err, errPermanent) {
					failure = err
					break
				}
				r.Log.Error("outbox relay: dropping a row that cannot be dispatched", "outbox_id", row.ID,
					"topic", row.Topic, "org_id", row.OrgID, "error", err)
			}
			done = append(done, row.ID)
		}
		return outboxdb.MarkDispatched(ctx, q, done)
	})
	if err != nil {
		return claimed, err
	}
	if failure != nil {
		return claimed, failure
	}
	return claimed, nil
}

// dispatch offers a row to every handler of its topic.
func (r *Relay) dispatch(ctx context.Context, row store.OutboxRow) error {
	handlers := r.Topics[row.Topic]
	if len(handlers) == 0 {
		r.Log.Warn("outbox relay: no handler for topic; marking dispatched", "topic", row.Topic, "outbox_id", row.ID)
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, h := range handlers {
		if err := h(dctx, r.Env, row); err != nil {
			return err
		}
	}
	r.Log.Debug("outbox row dispatched", "outbox_id", row.ID, "topic", row.Topic, "org_id", row.OrgID)
	return nil
}
