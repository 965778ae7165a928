package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/storetest"
)

func TestOutboxCommandListsAndRetriesDeadRows(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	dead, live := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	for _, id := range []uuid.UUID{dead, live} {
		if err := store.InsertOutbox(ctx, db.Q(), store.OutboxRow{ID: id, OrgID: uuid.New(), Topic: "job.import",
			Payload: []byte(`{}`), CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := outboxdb.Failed(ctx, db.Q(), dead, "import job does not decode\nat all", 0, true); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := outboxCommand(ctx, url, []string{"dead"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, dead.String()) || strings.Contains(text, live.String()) ||
		!strings.Contains(text, "import job does not decode at all") || !strings.Contains(text, "1 dead outbox row(s)") {
		t.Fatalf("outbox dead printed:\n%s", text)
	}

	out.Reset()
	if err := outboxCommand(ctx, url, []string{"retry", dead.String()}, &out); err != nil {
		t.Fatal(err)
	}
	var parked bool
	var attempts int
	_ = db.Q().QueryRow(ctx, `SELECT dead_at IS NOT NULL, attempts FROM outbox WHERE id = $1`, dead).Scan(&parked, &attempts)
	if parked || attempts != 0 {
		t.Fatalf("after retry: parked %v, attempts %d", parked, attempts)
	}
	if n, _ := outboxdb.Pending(ctx, db.Q()); n != 2 {
		t.Fatalf("%d pending after retry, want 2", n)
	}
	for _, args := range [][]string{{"retry", dead.String()}, {"retry", "nope"}, {"dead", "x"}, {"purge"}, {}} {
		if err := outboxCommand(ctx, url, args, &out); err == nil {
			t.Errorf("outbox %v succeeded", args)
		}
	}
}
