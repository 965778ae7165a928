package api

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/time/rate"

	"tracker/domain"
)

// RateLimit is the per-principal request budget of /api/v1: PerMinute
// requests a minute, refilled continuously (a token bucket whose burst is
// the whole minute's budget). Zero turns it off. Counters live in the
// replica's memory: N replicas behind a balancer admit up to N times the
// budget.
type RateLimit struct {
	PerMinute int
	// Clock tells the buckets' time (nil: the wall clock); tests freeze it.
	Clock domain.Clock
}

// DefaultRateLimit is SERVICE_RATE_LIMIT's default.
const DefaultRateLimit = 1200

// rateLimiter holds one token bucket per principal (API key, user) or, for
// requests without a valid credential, per client IP.
type rateLimiter struct {
	perMinute int
	clock     domain.Clock
	limit     rate.Limit
	policy    string // the RateLimit-Policy header value

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newRateLimiter(l RateLimit) *rateLimiter {
	if l.PerMinute <= 0 {
		return nil
	}
	if l.Clock == nil {
		l.Clock = domain.SystemClock{}
	}
	return &rateLimiter{
		perMinute: l.PerMinute,
		clock:     l.Clock,
		limit:     rate.Limit(float64(l.PerMinute) / 60),
		policy:    fmt.Sprintf(`"default";q=%d;w=60`, l.PerMinute),
		buckets:   map[string]*bucket{},
	}
}

// take spends one request of key's budget at now: whether it was admitted,
// the requests left, the seconds until the budget is full again, and (when
// refused) the seconds until one request is admitted.
func (l *rateLimiter) take(key string, now time.Time) (ok bool, remaining, reset, retry int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Idle buckets are full again after a minute: forget them then.
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.perMinute)}
		l.buckets[key] = b
	}
	b.seen = now
	ok = b.lim.AllowN(now, 1)
	tokens := b.lim.TokensAt(now)
	remaining = max(int(math.Floor(tokens)), 0)
	perSec := float64(l.limit)
	reset = int(math.Ceil((float64(l.perMinute) - tokens) / perSec))
	if !ok {
		retry = max(int(math.Ceil((1-tokens)/perSec)), 1)
	}
	return ok, remaining, max(reset, 0), retry
}

// localVerified is the principal limitRequests authenticated; the route's
// authentication takes it from there instead of verifying the credential twice.
const localVerified = "verified_principal"

// limitRequests is the /api/v1 rate limit: it authenticates a bearer
// credential when there is one (the principal it finds is reused by the
// route's authentication), spends one request of that principal's bucket,
// or of the client IP's when there is no valid credential, and writes the
// IETF RateLimit-Policy and RateLimit headers on every response; over the
// budget it answers 429 RATE_LIMITED with Retry-After.
func limitRequests(l *rateLimiter, a Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := "ip:" + ClientIP(c)
		if token, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer "); ok && strings.TrimSpace(token) != "" && a != nil {
			if p, err := a.Authenticate(c.UserContext(), strings.TrimSpace(token)); err == nil {
				c.Locals(localVerified, p)
				key = principalKey(p)
			}
		}
		ok, remaining, reset, retry := l.take(key, l.clock.Now())
		c.Set("RateLimit-Policy", l.policy)
		c.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, remaining, reset))
		if !ok {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retry))
			return &domain.Error{Kind: domain.KindRateLimited, Message: fmt.Sprintf("rate limit of %d requests a minute exceeded; retry after %d s", l.perMinute, retry)}
		}
		return c.Next()
	}
}

// principalKey names a principal's bucket: an API key has its own, a
// user's sessions share one.
func principalKey(p domain.Principal) string {
	if p.KeyID != nil {
		return "key:" + p.KeyID.String()
	}
	return "user:" + p.UserID.String()
}

// verified is the principal limitRequests already found, if any.
func verified(c *fiber.Ctx) (domain.Principal, bool) {
	p, ok := c.Locals(localVerified).(domain.Principal)
	return p, ok
}
