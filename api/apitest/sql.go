package apitest

import (
	"context"
	"testing"

	"tracker/internal/secretbox"
)

// ExpectCode fails the test unless the status is want and the error
// envelope's code is code.
func ExpectCode(t testing.TB, r Resp, want int, code string) Resp {
	t.Helper()
	r.Expect(t, want)
	if got := r.ErrorCode(); got != code {
		t.Fatalf("code %q, want %q; body %s", got, code, r.Body)
	}
	return r
}

// Exec runs a statement on the env's database: for tests about SQL (a
// constraint, a trigger, what a deletion leaves behind). Rows a test merely
// needs come from domain/testfactory.
func (e *Env) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// ScanRow scans the one row a query on the env's database returns into dst.
func (e *Env) ScanRow(t testing.TB, dst any, sql string, args ...any) {
	t.Helper()
	if err := e.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(dst); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Scalar is the one value a query on the env's database returns.
func Scalar[T any](t testing.TB, e *Env, sql string, args ...any) T {
	t.Helper()
	var v T
	e.ScanRow(t, &v, sql, args...)
	return v
}

// SecretBox is a box with a fresh random key, for services that seal
// secrets (SSO client secrets, chat and code-host tokens).
func SecretBox(t testing.TB) *secretbox.Box {
	t.Helper()
	box, err := secretbox.New(secretbox.RandomKey())
	if err != nil {
		t.Fatal(err)
	}
	return box
}
