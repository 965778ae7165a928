package account

import (
	"slices"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"
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
