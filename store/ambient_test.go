package store_test

import (
	"context"
	"errors"
	"testing"

	"tracker/store"
	"tracker/store/storetest"
)

// In a request transaction the pool's statements and InTx (as savepoints)
// commit or roll back with the request; a failed InTx undoes only itself.
func TestRequestTransactionHoldsEveryWrite(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, "CREATE TABLE req_t (v int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		_ = db.Pool.QueryRow(ctx, "SELECT count(*) FROM req_t").Scan(&n)
		return n
	}
	run := func(commit bool) {
		rctx, req, err := db.BeginRequest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer req.Rollback(ctx)
		if _, err := db.Q().Exec(rctx, "INSERT INTO req_t VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		if err := db.InTx(rctx, func(q store.Querier) error {
			_, err := q.Exec(rctx, "INSERT INTO req_t VALUES (2)")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// A failing InTx (a duplicate) rolls back to its savepoint only.
		if err := db.InTx(rctx, func(q store.Querier) error {
			if _, err := q.Exec(rctx, "INSERT INTO req_t VALUES (3)"); err != nil {
				return err
			}
			_, err := q.Exec(rctx, "INSERT INTO req_t VALUES (1)")
			return err
		}); !errors.Is(store.Translate(err), store.ErrConflict) {
			t.Fatalf("duplicate in savepoint: %v", err)
		}
		// Outside the request's context nothing is visible yet.
		if n := count(); n != 0 {
			t.Fatalf("%d rows visible before commit", n)
		}
		if commit {
			if err := req.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		} else {
			req.Rollback(ctx)
		}
	}
	run(false)
	if n := count(); n != 0 {
		t.Fatalf("rollback left %d rows", n)
	}
	run(true)
	if n := count(); n != 2 {
		t.Fatalf("commit left %d rows, want 2 (the failed savepoint's undone)", n)
	}
}

// Only the pool's querier outside a request transaction runs statements
// at the same time: a transaction's (InTx's, ReadOnly's, a request's)
// connection runs one at a time.
func TestConcurrentOnlyOutsideTransactions(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	if !store.Concurrent(ctx, db.Q()) {
		t.Fatal("the pool's querier outside a transaction: not concurrent")
	}
	if err := db.InTx(ctx, func(q store.Querier) error {
		if store.Concurrent(ctx, q) {
			t.Error("InTx's querier: concurrent")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.ReadOnly(ctx, func(q store.Querier) error {
		if store.Concurrent(ctx, q) {
			t.Error("ReadOnly's querier: concurrent")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rctx, req, err := db.BeginRequest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if store.Concurrent(rctx, db.Q()) {
		t.Error("the pool's querier in a request transaction: concurrent")
	}
	req.Rollback(ctx)
	if !store.Concurrent(rctx, db.Q()) {
		t.Error("after the request ended: not concurrent")
	}
}
