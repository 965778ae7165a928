package api_test

import (
	"context"
	"testing"
	"time"

	"tracker/api/apitest"
)

// TestStandingCacheRefusesAtOnce: while the replica caches standings
// (LISTEN on tracker_standing), a user deactivated elsewhere is refused as
// soon as the notification arrives, a change this replica's write made is
// seen by its next request without one, and without the LISTEN connection
// nothing is cached.
func TestStandingCacheRefusesAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go env.Accounts.WatchStanding(ctx, env.Log)
	waitFor(t, "the standing cache to listen", env.Accounts.Watching)
	u := env.Register("Cached")
	other := env.Register("Other")
	me := func() int { return env.Do("GET", "/api/v1/auth/me", u.Token, nil).Status }
	setActive := func(active, notify bool) {
		t.Helper()
		tx, err := env.DB.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if !notify { // as no trigger fired: only the cache can still answer 200
			if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET active = $2 WHERE id = $1`, u.ID, active); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}

	if me() != 200 || me() != 200 {
		t.Fatal("an active user is refused")
	}
	// Deactivated without a notification: the cached standing still
	// answers, which shows the cache is in use...
	setActive(false, false)
	if got := me(); got != 200 {
		t.Fatalf("the standing was not cached: %d", got)
	}
	// ...until a write request on this replica, after which the very next
	// request reads the database again.
	env.Do("POST", "/api/v1/orgs", other.Token, map[string]any{"name": "Writes", "slug": "writes-" + u.ID.String()[:8]}).Expect(t, 201)
	if got := me(); got != 401 {
		t.Fatalf("after a write on this replica: %d, want 401", got)
	}

	// Reactivated and deactivated elsewhere (the trigger notifies): refused
	// as soon as the notification is in, and from then on.
	setActive(true, true)
	waitFor(t, "the reactivation to be seen", func() bool { return me() == 200 })
	setActive(false, true)
	waitFor(t, "the deactivation to be seen", func() bool { return me() == 401 })
	for range 5 {
		if got := me(); got != 401 {
			t.Fatalf("a deactivated user answered %d", got)
		}
	}

	// The LISTEN connection lost: nothing is cached, every request reads
	// the database.
	setActive(true, true)
	waitFor(t, "the reactivation to be seen", func() bool { return me() == 200 })
	if _, err := env.DB.Pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%tracker_standing%'`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the cache to stop", func() bool { return !env.Accounts.Watching() })
	setActive(false, false)
	if got := me(); got != 401 {
		t.Fatalf("without the LISTEN connection a cached standing answered: %d", got)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
