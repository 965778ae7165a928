package store_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tracker/domain"
	"tracker/store"
	"tracker/store/storetest"
)

// Values PostgreSQL refuses (a NUL byte, an untranslatable character, a
// string too long for its column, a number out of range, an impossible
// date) are the caller's input: ErrInvalidInput, which the domain maps to a
// 422, never an internal error.
func TestDataExceptionsAreInvalidInput(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE short_text (v varchar(2))`); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]struct {
		sql  string
		args []any
	}{
		"22021 NUL byte":            {`SELECT $1::text`, []any{"a\x00b"}},
		"22P05 untranslatable":      {`SELECT convert_to($1, 'LATIN1')`, []any{"€"}},
		"22001 too long":            {`INSERT INTO short_text VALUES ($1)`, []any{"abc"}},
		"22003 out of range":        {`SELECT $1::int + 1`, []any{2147483647}},
		"22008 date field overflow": {`SELECT $1::date`, []any{"2026-13-45"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := db.Pool.Exec(ctx, q.sql, q.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if !store.IsInvalidInput(err) {
				t.Fatalf("raw %v: not invalid input", err)
			}
			tr := store.Translate(err)
			if !errors.Is(tr, store.ErrInvalidInput) {
				t.Fatalf("translated %v", tr)
			}
			if k := domain.AsError(tr).Kind; k != domain.KindValidation {
				t.Fatalf("domain kind %v", k)
			}
			if k := domain.AsError(err).Kind; k != domain.KindValidation {
				t.Fatalf("untranslated: domain kind %v", k)
			}
		})
	}
}

// A pool opened WithStatementTimeout has the server cancel a statement
// that runs past it: ErrStatementTimeout (SQLSTATE 57014), which the domain
// maps to a 503 with a Retry-After, raw or translated. Zero leaves the
// server's setting.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := storetest.NewWithURL(t)
	db, err := store.Open(ctx, url, store.WithStatementTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var setting string
	if err := db.Pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&setting); err != nil || setting != "100ms" {
		t.Fatalf("statement_timeout %q, %v", setting, err)
	}
	_, err = db.Pool.Exec(ctx, `SELECT pg_sleep(10)`)
	if !store.IsStatementTimeout(err) {
		t.Fatalf("raw %v: not a statement timeout", err)
	}
	tr := store.Translate(err)
	if !errors.Is(tr, store.ErrStatementTimeout) {
		t.Fatalf("translated %v", tr)
	}
	for _, e := range []error{err, tr} {
		if de := domain.AsError(e); de.Kind != domain.KindUnavailable || de.RetryAfter != domain.StatementTimeoutRetryAfter {
			t.Fatalf("%v: domain %+v", e, de)
		}
	}
	// The pool is usable at once: the backend is free again.
	var one int
	if err := db.Pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the timeout: %d, %v", one, err)
	}

	plain, err := store.Open(ctx, url, store.WithStatementTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.Pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&setting); err != nil || setting != "0" {
		t.Fatalf("without a timeout: statement_timeout %q, %v", setting, err)
	}
}

// A database out of reach is ErrUnavailable, raw or translated, which the
// domain maps to a 503 with a Retry-After: a dial refused, and a connection
// the server ends under a statement (pg_terminate_backend sends what a fast
// shutdown sends, SQLSTATE 57P01). The pool recovers by itself: the next
// statement dials again. Not unavailable: a missing row, a unique violation.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	_, refused := pgx.Connect(ctx, "postgres://postgres@"+closed+"/tracker?sslmode=disable&connect_timeout=5")

	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var killed bool
	if err := db.Pool.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate: %v %v", killed, err)
	}
	_, terminated := conn.Exec(ctx, `SELECT 1`)
	conn.Release()

	for name, err := range map[string]error{"refused": refused, "terminated": terminated} {
		if !store.IsUnavailable(err) {
			t.Fatalf("%s: %T %v: not unavailable", name, err, err)
		}
		tr := store.Translate(err)
		if !errors.Is(tr, store.ErrUnavailable) {
			t.Fatalf("%s: translated %v", name, tr)
		}
		for _, e := range []error{err, tr} {
			if de := domain.AsError(e); de.Kind != domain.KindUnavailable || de.RetryAfter != domain.DatabaseUnavailableRetryAfter {
				t.Fatalf("%s: %v: domain %+v", name, e, de)
			}
		}
	}
	var one int
	if err := db.Pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the terminated connection: %d, %v", one, err)
	}
	for _, e := range []error{store.ErrNotFound, store.ErrConflict, &pgconn.PgError{Code: "23505"}, errors.New("other")} {
		if store.IsUnavailable(e) {
			t.Errorf("%v: unavailable", e)
		}
	}
}
