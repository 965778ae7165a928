package api_test

import (
	"sync"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/domain"
)

// frozen is a clock the test moves by hand.
type frozen struct {
	mu sync.Mutex
	t  time.Time
}

func (f *frozen) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *frozen) add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestRateLimitPerPrincipal(t *testing.T) {
	t.Parallel()
	clock := &frozen{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	env := apitest.New(t, apitest.Options{RateLimit: api.RateLimit{PerMinute: 4, Clock: clock}})
	// Each Register is one anonymous request (the client IP's bucket) and
	// one GET /auth/me as the new user (the user's bucket).
	alice := env.Register("Alice")
	bob := env.Register("Bob")

	policy := func(t *testing.T, r apitest.Resp, remaining string) {
		t.Helper()
		if got := r.Header.Get("RateLimit-Policy"); got != `"default";q=4;w=60` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		if got := r.Header.Get("RateLimit"); got != `"default";r=`+remaining {
			t.Fatalf("RateLimit %q, want r=%s", got, remaining)
		}
	}

	t.Run("every response carries the headers, until 429", func(t *testing.T) {
		policy(t, env.Do("GET", "/api/v1/auth/me", alice.Token, nil).Expect(t, 200), "2;t=30")
		policy(t, env.Do("GET", "/api/v1/orgs/"+alice.OrgID.String()+"/members", alice.Token, nil).Expect(t, 200), "1;t=45")
		// An error response spends and carries them too.
		policy(t, env.Do("GET", "/api/v1/orgs/"+bob.OrgID.String()+"/members", alice.Token, nil).Expect(t, 404), "0;t=60")
		r := env.Do("GET", "/api/v1/auth/me", alice.Token, nil).Expect(t, 429)
		policy(t, r, "0;t=60")
		if r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") != "15" {
			t.Fatalf("429: %s Retry-After %q", r.Body, r.Header.Get("Retry-After"))
		}
	})
	t.Run("other principals have their own budget", func(t *testing.T) {
		policy(t, env.Do("GET", "/api/v1/auth/me", bob.Token, nil).Expect(t, 200), "2;t=30")
		key := env.APIKey(bob, []string{"read"})
		policy(t, env.Do("GET", "/api/v1/auth/me", key, nil).Expect(t, 200), "3;t=15")
	})
	t.Run("anonymous requests share the client's budget", func(t *testing.T) {
		// Two registrations spent two; the version and a bad token two more.
		policy(t, env.Do("GET", "/api/v1/version", "", nil).Expect(t, 200), "1;t=45")
		policy(t, env.Do("GET", "/api/v1/auth/me", "not-a-token", nil).Expect(t, 401), "0;t=60")
		env.Do("GET", "/api/v1/version", "", nil).Expect(t, 429)
		// The system routes outside /api/v1 are not limited.
		r := env.Do("GET", "/health", "", nil).Expect(t, 200)
		if r.Header.Get("RateLimit") != "" {
			t.Fatalf("/health is limited: %v", r.Header)
		}
	})
	t.Run("the budget refills over the minute", func(t *testing.T) {
		clock.add(15 * time.Second)
		policy(t, env.Do("GET", "/api/v1/auth/me", alice.Token, nil).Expect(t, 200), "0;t=60")
		env.Do("GET", "/api/v1/auth/me", alice.Token, nil).Expect(t, 429)
		clock.add(time.Minute)
		policy(t, env.Do("GET", "/api/v1/auth/me", alice.Token, nil).Expect(t, 200), "3;t=15")
	})
}

func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Carol")
	for range 5 {
		r := env.Do("GET", "/api/v1/auth/me", u.Token, nil).Expect(t, 200)
		if r.Header.Get("RateLimit") != "" || r.Header.Get("RateLimit-Policy") != "" {
			t.Fatalf("limit headers with the limit off: %v", r.Header)
		}
	}
}

var _ domain.Clock = (*frozen)(nil)
