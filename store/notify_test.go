package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/storetest"
)

func listen(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(context.Background(), "LISTEN "+store.OutboxChannel); err != nil {
		t.Fatal(err)
	}
	return conn
}

func notified(conn *pgx.Conn, within time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	_, err := conn.WaitForNotification(ctx)
	return err == nil
}

func outboxRow(org uuid.UUID) store.OutboxRow {
	return store.OutboxRow{ID: uuid.Must(uuid.NewV7()), OrgID: org, Topic: "test", Payload: []byte(`{}`), CreatedAt: time.Now()}
}

func TestOutboxWakesTheRelayAfterCommitOnly(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	conn := listen(t, url)
	ctx := context.Background()
	org := uuid.New()

	// Rolled back: the rows never existed, nobody is woken.
	errBoom := errors.New("boom")
	err := db.InTx(ctx, func(q store.Querier) error {
		if err := store.InsertOutbox(ctx, q, outboxRow(org)); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatal(err)
	}
	if notified(conn, 300*time.Millisecond) {
		t.Fatal("woken by a rolled-back transaction")
	}

	// Committed with an audit row: one round trip, then one wake-up.
	err = db.InTx(ctx, func(q store.Querier) error {
		a := store.AuditRow{ID: uuid.Must(uuid.NewV7()), OrgID: org, EntityType: "ticket", EntityID: uuid.New(),
			Action: "created", Changes: []byte(`[]`), CreatedAt: time.Now()}
		return store.InsertChange(ctx, q, &a, []store.OutboxRow{outboxRow(org), outboxRow(org)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !notified(conn, 5*time.Second) {
		t.Fatal("not woken after commit")
	}
	var audits, rows int
	_ = db.Pool.QueryRow(ctx, "SELECT count(*) FROM audit_log WHERE org_id = $1", org).Scan(&audits)
	_ = db.Pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE org_id = $1", org).Scan(&rows)
	if audits != 1 || rows != 2 {
		t.Fatalf("audit %d outbox %d", audits, rows)
	}

	// Outside a transaction the row commits at once and wakes the relay too.
	if err := store.InsertOutbox(ctx, db.Q(), outboxRow(org)); err != nil {
		t.Fatal(err)
	}
	if !notified(conn, 5*time.Second) {
		t.Fatal("not woken after an autocommit insert")
	}
}

func TestInsertChangeTranslatesErrors(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	r := outboxRow(uuid.New())
	ctx := context.Background()
	if err := store.InsertOutbox(ctx, db.Q(), r); err != nil {
		t.Fatal(err)
	}
	if err := store.InsertOutbox(ctx, db.Q(), r); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate id: %v", err)
	}
}

// listeners counts the sessions of the database at url that wait on LISTEN.
func listeners(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
	    WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestListenEndsWithErrClosedWhenTheDBCloses(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	listening := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- store.Listen(context.Background(), db, store.OutboxChannel, func() { close(listening) }, func() {})
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("never listening")
	}
	if n := listeners(t, url); n != 1 {
		t.Fatalf("%d sessions on LISTEN, want 1", n)
	}
	db.Close()
	select {
	case err := <-done:
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("Listen after Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Listen still waiting after the DB closed")
	}
	if !db.Closed() {
		t.Error("Closed() false after Close")
	}
	// Its hijacked connection is closed with it, not left to the server.
	deadline := time.Now().Add(5 * time.Second)
	for listeners(t, url) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the LISTEN session outlives the DB")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Listening again on the closed DB says so at once.
	if err := store.Listen(context.Background(), db, store.OutboxChannel, func() {}, func() {}); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Listen on a closed DB: %v, want ErrClosed", err)
	}
}
