package account

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
	"tracker/internal/syncbuf"
	"tracker/store/storetest"
)

// TestTokenCacheKeepsItsOwnKey: the edge hands Authenticate a bearer that
// aliases its request buffer, and the next request on the connection
// overwrites that buffer. A cache that kept the caller's string as its key
// would hold the first caller's claims under the second caller's token
// (and find them there once the map moves the entry, which rehashes it).
func TestTokenCacheKeepsItsOwnKey(t *testing.T) {
	s := &Service{Tokens: Tokens{Secret: []byte("cache-test-secret"), AccessTTL: time.Hour}}
	org := uuid.New()
	alice, bob := uuid.New(), uuid.New()
	a, err := s.Tokens.Issue(alice, org, "alice@example.test", "Owner", false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Tokens.Issue(bob, org, "bobby@example.test", "Owner", false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("the tokens differ in length (%d, %d): the overwrite below needs equal lengths", len(a), len(b))
	}
	buf := []byte(a)
	if got, ok := s.verifiedToken(unsafe.String(&buf[0], len(buf))); !ok || got.uid != alice {
		t.Fatalf("alice's token: %+v %v", got, ok)
	}
	copy(buf, b) // the buffer's next request
	s.cache.tokens.Range(func(k, v any) bool {
		if k.(string) == b && v.(cachedToken).uid != bob {
			t.Errorf("bob's token is cached with the claims of %v", v.(cachedToken).uid)
		}
		return true
	})
	if got, ok := s.verifiedToken(a); !ok || got.uid != alice {
		t.Fatalf("alice's token answered as %v (ok %v), want alice %v", got.uid, ok, alice)
	}
}

// TestSweepTokens: a sweep forgets the tokens expired at its time (expiry
// included) and counts them out, and runs at most once a minute.
func TestSweepTokens(t *testing.T) {
	var c authCache
	base := time.Unix(1_000_000, 0)
	put := func(k string, expires time.Time) {
		c.tokens.Store(k, cachedToken{expires: expires})
		c.size.Add(1)
	}
	keys := func() []string {
		var out []string
		c.tokens.Range(func(k, _ any) bool { out = append(out, k.(string)); return true })
		sort.Strings(out)
		return out
	}
	put("expired", base)
	put("live", base.Add(time.Second))
	c.swept.Store(base.Add(-time.Minute).UnixNano())
	c.sweepTokens(base)
	if got := keys(); !slices.Equal(got, []string{"live"}) || c.size.Load() != 1 || c.swept.Load() != base.UnixNano() {
		t.Fatalf("after the sweep: %v, size %d, swept %d", got, c.size.Load(), c.swept.Load())
	}
	put("later", base.Add(time.Minute+time.Second))
	c.sweepTokens(base.Add(time.Minute - 1)) // within the minute: no sweep
	if got := keys(); len(got) != 2 || c.size.Load() != 2 {
		t.Fatalf("a sweep within the minute removed tokens: %v, size %d", got, c.size.Load())
	}
	c.sweepTokens(base.Add(time.Minute))
	if got := keys(); !slices.Equal(got, []string{"later"}) || c.size.Load() != 1 {
		t.Fatalf("after a minute: %v, size %d", got, c.size.Load())
	}
}

// TestInvalidate: Invalidate moves the generation a cached standing is
// checked against; Watching reports the LISTEN connection's state.
func TestInvalidate(t *testing.T) {
	var s Service
	g := s.cache.gen.Load()
	s.Invalidate()
	if s.cache.gen.Load() != g+1 {
		t.Fatalf("gen %d, want %d", s.cache.gen.Load(), g+1)
	}
	if s.Watching() {
		t.Fatal("watching without a connection")
	}
	s.cache.live.Store(true)
	if !s.Watching() {
		t.Fatal("not watching with a connection")
	}
}

// TestStandingCache: while the LISTEN connection is up a standing read once
// is served from the cache until an invalidation; without it every read
// goes to the database.
func TestStandingCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	s := &Service{DB: db}
	u := testfactory.User(t, db, testfactory.UserOpts{}).ID
	deactivate := func(active bool) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `UPDATE users SET active = $2 WHERE id = $1`, u, active); err != nil {
			t.Fatal(err)
		}
	}
	active := func() bool {
		t.Helper()
		st, err := s.standingOf(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		return st.Active
	}
	if !active() {
		t.Fatal("a new user is not active")
	}
	deactivate(false)
	if active() {
		t.Fatal("not watching, yet the standing came from a cache")
	}
	deactivate(true)
	s.cache.live.Store(true)
	if !active() {
		t.Fatal("watching: the first read is not the database's")
	}
	deactivate(false)
	if !active() {
		t.Fatal("watching: the second read is not the cached standing")
	}
	s.Invalidate()
	if active() {
		t.Fatal("after an invalidation the cached standing is still served")
	}
}

// TestTokenCacheBound: a verified token is cached while fewer than
// maxCachedTokens are.
func TestTokenCacheBound(t *testing.T) {
	s := &Service{Tokens: Tokens{Secret: []byte("cache-test-secret"), AccessTTL: time.Hour}}
	issue := func() string {
		tok, err := s.Tokens.Issue(uuid.New(), uuid.New(), "a@example.test", "Owner", false, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	cached := func(tok string) bool { _, ok := s.cache.tokens.Load(tok); return ok }
	s.cache.swept.Store(time.Now().UnixNano()) // no sweep during the test
	s.cache.size.Store(maxCachedTokens - 1)
	a := issue()
	if _, ok := s.verifiedToken(a); !ok || !cached(a) || s.cache.size.Load() != maxCachedTokens {
		t.Fatalf("below the bound: cached %v, size %d", cached(a), s.cache.size.Load())
	}
	b := issue()
	if _, ok := s.verifiedToken(b); !ok || cached(b) || s.cache.size.Load() != maxCachedTokens {
		t.Fatalf("at the bound: cached %v, size %d", cached(b), s.cache.size.Load())
	}
}

// TestWatchStandingEndsQuietlyWhenThePoolCloses: a process (a test's
// cleanup) that closes its pool before cancelling the watch ends it, with
// nothing logged and nothing cached.
func TestWatchStandingEndsQuietlyWhenThePoolCloses(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	s := &Service{DB: db}
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	done := make(chan struct{})
	go func() {
		s.WatchStanding(context.Background(), log)
		close(done)
	}()
	for deadline := time.Now().Add(10 * time.Second); !s.Watching(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never watching")
		}
	}
	db.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WatchStanding still running after its pool closed")
	}
	if s.Watching() {
		t.Error("still caching standings without the LISTEN connection")
	}
	if s := logs.String(); s != "" {
		t.Errorf("logged after the pool closed:\n%s", s)
	}
}
