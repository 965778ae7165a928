package tickets_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tracker/api/apitest"
)

// A network-style retry (the response was lost, the client sends the same
// request with the same Idempotency-Key) makes one ticket and gets the first
// response again; the same key with another body is a 422.
func TestIdempotentTicketCreate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := fmt.Sprintf("/api/v1/projects/%s/tickets", f.project)
	body := map[string]any{"title": "Retry me"}
	hdr := map[string]string{"Idempotency-Key": "create-ticket-1"}
	first := f.env.DoHeaders("POST", path, f.member.Token, body, hdr).Expect(t, 201)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first response marked replayed")
	}
	retry := f.env.DoHeaders("POST", path, f.member.Token, body, hdr).Expect(t, 201)
	if retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry not marked replayed: %v", retry.Header)
	}
	if string(retry.Body) != string(first.Body) || retry.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("replay differs:\n%s\n%s", first.Body, retry.Body)
	}
	var n, events int
	f.env.ScanRow(t, &n, "SELECT count(*) FROM tickets WHERE project_id = $1", f.project)
	f.env.ScanRow(t, &events, "SELECT count(*) FROM outbox WHERE org_id = $1 AND topic = 'ticket.created'", f.owner.OrgID)
	if n != 1 || events != 1 {
		t.Fatalf("%d tickets and %d ticket.created events after a retry, want 1 and 1", n, events)
	}

	// Same key, different body: 422, nothing created.
	other := f.env.DoHeaders("POST", path, f.member.Token, map[string]any{"title": "Something else"}, hdr).Expect(t, 422)
	if other.ErrorCode() != "VALIDATION_ERROR" {
		t.Fatalf("code %q", other.ErrorCode())
	}
	// The key is the caller's own: another principal with the same key
	// makes its own ticket.
	f.env.DoHeaders("POST", path, f.admin.Token, body, hdr).Expect(t, 201)
	// A fresh key is a new request.
	f.env.DoHeaders("POST", path, f.member.Token, body, map[string]string{"Idempotency-Key": "create-ticket-2"}).Expect(t, 201)
	f.env.ScanRow(t, &n, "SELECT count(*) FROM tickets WHERE project_id = $1", f.project)
	if n != 3 {
		t.Fatalf("%d tickets, want 3", n)
	}
	// An unusable key is refused before anything runs.
	f.env.DoHeaders("POST", path, f.member.Token, body, map[string]string{"Idempotency-Key": "bad key"}).Expect(t, 422)

	// A refused request (422 validation) is stored too: its retry gets the
	// same answer without running again.
	bad := map[string]string{"Idempotency-Key": "create-ticket-bad"}
	f.env.DoHeaders("POST", path, f.member.Token, map[string]any{"title": ""}, bad).Expect(t, 422)
	r := f.env.DoHeaders("POST", path, f.member.Token, map[string]any{"title": ""}, bad).Expect(t, 422)
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("refusal not replayed")
	}

	// Expired responses are pruned and the key is free again.
	f.env.Exec(t, "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'create-ticket-1'")
	f.env.DoHeaders("POST", path, f.member.Token, body, hdr).Expect(t, 201)
	f.env.ScanRow(t, &n, "SELECT count(*) FROM tickets WHERE project_id = $1", f.project)
	if n != 4 {
		t.Fatalf("%d tickets after the key expired, want 4", n)
	}
}

// A retry while the first request is still running is a 409; once the
// first has finished, the retry gets its response.
func TestIdempotentRetryWhileRunningIs409(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := fmt.Sprintf("/api/v1/projects/%s/tickets", f.project)
	body := map[string]any{"title": "Slow"}
	hdr := map[string]string{"Idempotency-Key": "slow-1"}

	// Hold the project row, which ticket create updates (its counter), so
	// the first request stays in flight.
	ctx := context.Background()
	hold, err := f.env.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, "SELECT 1 FROM projects WHERE id = $1 FOR UPDATE", f.project); err != nil {
		t.Fatal(err)
	}
	done := make(chan apitest.Resp, 1)
	go func() { done <- f.env.DoHeaders("POST", path, f.member.Token, body, hdr) }()
	// Wait until the first request holds its key's lock.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		f.env.ScanRow(t, &n, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("first request never took its key")
		}
		time.Sleep(20 * time.Millisecond)
	}
	busy := f.env.DoHeaders("POST", path, f.member.Token, body, hdr).Expect(t, 409)
	if busy.ErrorCode() != "CONFLICT" {
		t.Fatalf("code %q", busy.ErrorCode())
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	first := <-done
	first.Expect(t, 201)
	retry := f.env.DoHeaders("POST", path, f.member.Token, body, hdr).Expect(t, 201)
	if string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after the first finished is not its replay")
	}
	var n int
	f.env.ScanRow(t, &n, "SELECT count(*) FROM tickets WHERE project_id = $1", f.project)
	if n != 1 {
		t.Fatalf("%d tickets, want 1", n)
	}
}
