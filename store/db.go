// Package store holds all SQL of the service: the pool, transactions, query
// builders, keyset pagination and the translation of driver errors.
package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is satisfied by both the pool and a transaction, so every query
// function works inside or outside InTx.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// DB is the service's connection pool.
type DB struct {
	Pool   *pgxpool.Pool
	notify *notifier
}

// Option tunes Open.
type Option func(*pgxpool.Config)

// WithTracer installs a query tracer on every connection of the pool (the
// SQL spans when tracing is on; nil: none, as without the option).
func WithTracer(t pgx.QueryTracer) Option {
	return func(c *pgxpool.Config) {
		if t != nil {
			c.ConnConfig.Tracer = t
		}
	}
}

// WithStatementTimeout has the server cancel any statement of the pool that
// runs longer than d (PostgreSQL's statement_timeout, set on every
// connection); the statement fails with ErrStatementTimeout. Zero leaves
// the server's setting (PostgreSQL's default is none).
func WithStatementTimeout(d time.Duration) Option {
	return func(c *pgxpool.Config) {
		if d > 0 {
			c.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(max(1, d.Milliseconds()), 10)
		}
	}
}

// DefaultConnectTimeout bounds one dial of the pool unless the URL sets
// connect_timeout.
const DefaultConnectTimeout = 5 * time.Second

// Open connects a pool to url and checks that the server answers.
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	for _, o := range opts {
		o(cfg)
	}
	// A dial nobody answers (a host failed over, a network cut) fails after
	// this instead of the kernel's TCP timeout: the request meets a 503,
	// not a hang. The URL's connect_timeout overrides it.
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxConns < 16 && !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		RegisterUUID(conn.TypeMap())
		if after != nil {
			return after(ctx, conn)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	db := &DB{Pool: pool}
	db.startNotifier()
	return db, nil
}

// Close stops the notifier and releases the pool.
func (db *DB) Close() {
	db.notify.stop()
	db.Pool.Close()
}

// Q returns the pool as a Querier for work outside a transaction.
func (db *DB) Q() Querier { return poolQuerier{Pool: db.Pool, db: db} }

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.Pool.Ping(ctx) }

const maxTxAttempts = 3

// InTx runs fn in one transaction: its writes commit together or not at all.
// Serialization failures and deadlocks are retried, so fn must not have side
// effects outside the transaction.
func (db *DB) InTx(ctx context.Context, fn func(q Querier) error) error {
	if r := requestOf(ctx, db); r != nil {
		return r.savepoint(ctx, fn)
	}
	var err error
	for attempt := 0; attempt < maxTxAttempts; attempt++ {
		err = db.inTxOnce(ctx, fn)
		if !retryable(err) {
			return err
		}
	}
	return err
}

func (db *DB) inTxOnce(ctx context.Context, fn func(q Querier) error) error {
	ptx, err := db.Pool.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = ptx.Rollback(ctx) }()
	t := &tx{Tx: ptx}
	if err := fn(t); err != nil {
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		return translate(err)
	}
	if t.wroteOutbox {
		db.notify.outboxWritten()
	}
	return nil
}

// ReadOnly runs fn in one read-only transaction, never retried (fn may
// stream what it reads): for reads that need a transaction, such as a
// cursor.
func (db *DB) ReadOnly(ctx context.Context, fn func(q Querier) error) error {
	ptx, err := db.Pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return translate(err)
	}
	defer func() { _ = ptx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(&tx{Tx: ptx}); err != nil {
		return err
	}
	return translate(ptx.Commit(ctx))
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40001" || pgErr.Code == "40P01"
	}
	return false
}

// savepoint runs fn in a savepoint of the request transaction: fn's writes
// are undone when it fails and commit with the request otherwise. A
// serialization failure cannot be retried here (the request transaction
// would have to start over); it fails the request.
func (r *Request) savepoint(ctx context.Context, fn func(q Querier) error) error {
	sp, err := r.tx.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = sp.Rollback(ctx) }()
	if err := fn(&tx{Tx: sp, request: r}); err != nil {
		return err
	}
	return translate(sp.Commit(ctx))
}
