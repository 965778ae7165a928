package worker

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/store/storetest"
)

func TestPruneKeepsPendingAndRecentRows(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org := uuid.New()
	now := time.Now()
	rows := map[string]*time.Time{ // name → dispatched_at
		"old dispatched":   ptr(now.Add(-31 * 24 * time.Hour)),
		"older dispatched": ptr(now.Add(-90 * 24 * time.Hour)),
		"recent":           ptr(now.Add(-24 * time.Hour)),
		"old pending":      nil,
	}
	ids := map[string]uuid.UUID{}
	for name, at := range rows {
		id := uuid.Must(uuid.NewV7())
		ids[name] = id
		if _, err := db.Pool.Exec(ctx, `INSERT INTO outbox (id, org_id, topic, payload, created_at, dispatched_at)
			VALUES ($1, $2, 'ticket.created', '{}', $3, $4)`, id, org, now.Add(-100*24*time.Hour), at); err != nil {
			t.Fatal(err)
		}
	}
	r := &Relay{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	n, err := r.Prune(ctx)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (%v), want 2", n, err)
	}
	for name, want := range map[string]bool{"old dispatched": false, "older dispatched": false, "recent": true, "old pending": true} {
		var exists bool
		_ = db.Pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM outbox WHERE id = $1)", ids[name]).Scan(&exists)
		if exists != want {
			t.Errorf("%s: exists %v, want %v", name, exists, want)
		}
	}
	// A shorter retention takes the recent row too, never the pending one.
	r.Retention = time.Hour
	if n, err := r.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("second prune %d (%v)", n, err)
	}
	var left int
	_ = db.Pool.QueryRow(ctx, "SELECT count(*) FROM outbox WHERE org_id = $1", org).Scan(&left)
	if left != 1 {
		t.Fatalf("%d rows left, want the pending one", left)
	}
}

func ptr[T any](v T) *T { return &v }
