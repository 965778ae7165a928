package store

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Request is a request-wide transaction (the Idempotency-Key middleware's):
// while its context is in use, every statement of DB.Q() on the same DB runs
// in it, and InTx opens a savepoint in it instead of a transaction of its
// own. The request's writes and whatever the caller adds (the stored
// response) then commit together or not at all. The statements of one
// request run one after another, as a transaction's must.
type Request struct {
	db          *DB
	tx          pgx.Tx
	mu          sync.Mutex
	wroteOutbox bool
	done        bool
}

type requestKey struct{}

// BeginRequest opens a request-wide transaction and returns the context
// that routes the DB's statements into it. End it with Commit or Rollback.
func (db *DB) BeginRequest(ctx context.Context) (context.Context, *Request, error) {
	ptx, err := db.Pool.Begin(ctx)
	if err != nil {
		return ctx, nil, translate(err)
	}
	r := &Request{db: db, tx: ptx}
	return context.WithValue(ctx, requestKey{}, r), r, nil
}

// Q is the request transaction as a Querier.
func (r *Request) Q() Querier { return &tx{Tx: r.tx, request: r} }

// Commit commits the request's writes and wakes the outbox relay if any
// of them were outbox rows.
func (r *Request) Commit(ctx context.Context) error {
	r.mu.Lock()
	r.done = true
	wrote := r.wroteOutbox
	r.mu.Unlock()
	if err := r.tx.Commit(ctx); err != nil {
		return translate(err)
	}
	if wrote {
		r.db.notify.outboxWritten()
	}
	return nil
}

// Rollback discards the request's writes; after Commit it does nothing.
func (r *Request) Rollback(ctx context.Context) {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
	_ = r.tx.Rollback(context.WithoutCancel(ctx))
}

func (r *Request) markOutbox() {
	r.mu.Lock()
	r.wroteOutbox = true
	r.mu.Unlock()
}

// requestOf is ctx's request transaction on db, if one is open.
func requestOf(ctx context.Context, db *DB) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	if r == nil || r.db != db {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	return r
}

// The pool's statements run in the request transaction when ctx has one.

func (p poolQuerier) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if r := requestOf(ctx, p.db); r != nil {
		return r.tx.Exec(ctx, sql, args...)
	}
	return p.Pool.Exec(ctx, sql, args...)
}

func (p poolQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if r := requestOf(ctx, p.db); r != nil {
		return r.tx.Query(ctx, sql, args...)
	}
	return p.Pool.Query(ctx, sql, args...)
}

func (p poolQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if r := requestOf(ctx, p.db); r != nil {
		return r.tx.QueryRow(ctx, sql, args...)
	}
	return p.Pool.QueryRow(ctx, sql, args...)
}

func (p poolQuerier) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if r := requestOf(ctx, p.db); r != nil {
		return r.tx.SendBatch(ctx, b)
	}
	return p.Pool.SendBatch(ctx, b)
}

// Concurrent tells whether q may run statements at the same time under
// ctx: a DB's own querier outside a request-wide transaction. The
// statements of one transaction run one after another.
func Concurrent(ctx context.Context, q Querier) bool {
	p, ok := q.(poolQuerier)
	return ok && requestOf(ctx, p.db) == nil
}
