package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
