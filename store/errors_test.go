package store_test

import (
	"context"
	"errors"
	"testing"

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
