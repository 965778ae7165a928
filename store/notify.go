package store

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OutboxChannel is the LISTEN/NOTIFY channel that wakes the outbox relay.
const OutboxChannel = "outbox"

// notifyInterval bounds how often one process sends NOTIFY. PostgreSQL
// serializes every committing transaction that issued NOTIFY on one
// cluster-wide lock held through the commit's WAL flush; notifying from each
// writing transaction would serialize all writes. Instead a transaction that
// wrote outbox rows pokes this notifier after it commits, and pokes arriving
// within one interval share one NOTIFY. The relay also polls as a backstop.
const notifyInterval = 20 * time.Millisecond

type notifier struct {
	poke chan struct{}
	done chan struct{}
	once sync.Once
}

func (db *DB) startNotifier() {
	n := &notifier{poke: make(chan struct{}, 1), done: make(chan struct{})}
	db.notify = n
	go func() {
		for {
			select {
			case <-n.done:
				return
			case <-n.poke:
			}
			// Not a request's work: it outlives the transaction that poked it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = db.Pool.Exec(ctx, "SELECT pg_notify($1, '')", OutboxChannel)
			cancel()
			select {
			case <-n.done:
				return
			case <-time.After(notifyInterval):
			}
		}
	}()
}

// outboxWritten wakes the relay soon; it never blocks.
func (n *notifier) outboxWritten() {
	select {
	case n.poke <- struct{}{}:
	default:
	}
}

func (n *notifier) stop() { n.once.Do(func() { close(n.done) }) }

// closed says whether Close was called.
func (db *DB) closed() bool {
	select {
	case <-db.notify.done:
		return true
	default:
		return false
	}
}

// Closed says whether Close was called: work that fails after it should
// stop rather than retry.
func (db *DB) Closed() bool { return db.closed() }

// tx is the Querier InTx hands out: it remembers whether outbox rows were
// written, so the relay is woken once the transaction has committed.
type tx struct {
	pgx.Tx
	wroteOutbox bool
	// request is the request transaction this is (or is a savepoint of).
	request *Request
}

func (t *tx) outboxWritten() {
	if t.request != nil {
		t.request.markOutbox()
		return
	}
	t.wroteOutbox = true
}

// poolQuerier is DB.Q(): a statement outside a transaction commits at once.
type poolQuerier struct {
	*pgxpool.Pool
	db *DB
}

func (p poolQuerier) outboxWritten() { p.db.notify.outboxWritten() }

// MarkOutbox records that q wrote outbox rows, so the relay is woken once
// they are committed. A Querier this package did not hand out (a raw pool or
// transaction) notifies in its own transaction.
func MarkOutbox(ctx context.Context, q Querier) error {
	if p, ok := q.(poolQuerier); ok {
		if r := requestOf(ctx, p.db); r != nil {
			r.markOutbox()
			return nil
		}
	}
	if m, ok := q.(interface{ outboxWritten() }); ok {
		m.outboxWritten()
		return nil
	}
	_, err := q.Exec(ctx, "SELECT pg_notify($1, '')", OutboxChannel)
	return translate(err)
}

// Listen holds one connection of db on LISTEN channel: it calls listening
// once the connection listens (so the caller can catch up on what happened
// while nobody listened), then notified for every notification, until ctx
// ends or the connection fails (the caller listens again). The connection
// is taken out of the pool for good, so it never returns to other users
// still subscribed. When db is closed, Listen closes its connection too
// and returns ErrClosed: there is nothing to listen on again.
func Listen(ctx context.Context, db *DB, channel string, listening, notified func()) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-db.notify.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	defer func() {
		if err != nil && db.closed() {
			err = ErrClosed
		}
	}()
	pc, err := db.Pool.Acquire(ctx)
	if err != nil {
		return Translate(err)
	}
	conn := pc.Hijack()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return Translate(err)
	}
	listening()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		notified()
	}
}
