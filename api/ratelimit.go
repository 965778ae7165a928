package api

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

// RateLimit is the per-principal request budget of /api/v1: PerMinute
// requests a minute, refilled continuously (a bucket whose burst is the
// whole minute's budget). Zero turns it off. Counters live in the
// replica's memory: N replicas behind a balancer admit up to N times the
// budget.
type RateLimit struct {
	PerMinute int
	// Clock tells the buckets' time (nil: the wall clock); tests freeze it.
	Clock domain.Clock
}

// DefaultRateLimit is SERVICE_RATE_LIMIT's default.
const DefaultRateLimit = 1200

// rateLimiter holds one bucket per principal (API key, user) or, for
// requests without a valid credential, per client IP. A bucket is the
// generic cell rate algorithm: one atomic theoretical arrival time per key,
// advanced by compare-and-swap, in a sync.Map whose reads take no lock, so
// concurrent requests (of one principal or of many) never queue on a mutex.
type rateLimiter struct {
	perMinute int
	clock     domain.Clock
	interval  int64  // nanoseconds between two requests at the sustained rate
	window    int64  // interval × perMinute: how far ahead the arrival time may run
	policy    string // the RateLimit-Policy header value

	cells sync.Map // key → *atomic.Int64, the key's theoretical arrival time (Unix ns)
	swept atomic.Int64
}

func newRateLimiter(l RateLimit) *rateLimiter {
	if l.PerMinute <= 0 {
		return nil
	}
	if l.Clock == nil {
		l.Clock = domain.SystemClock{}
	}
	interval := int64(time.Minute) / int64(l.PerMinute)
	return &rateLimiter{
		perMinute: l.PerMinute,
		clock:     l.Clock,
		interval:  interval,
		window:    interval * int64(l.PerMinute),
		policy:    fmt.Sprintf(`"default";q=%d;w=60`, l.PerMinute),
	}
}

// take spends one request of key's budget at now: whether it was admitted,
// the requests left, the seconds until the budget is full again, and (when
// refused) the seconds until one request is admitted.
func (l *rateLimiter) take(key string, now time.Time) (ok bool, remaining, reset, retry int) {
	t := now.UnixNano()
	l.sweep(t)
	v, found := l.cells.Load(key)
	if !found {
		v, _ = l.cells.LoadOrStore(key, new(atomic.Int64))
	}
	cell := v.(*atomic.Int64)
	var ahead int64 // how far the arrival time runs ahead of now after this request
	for {
		tat := cell.Load()
		next := max(tat, t) + l.interval
		if next-t > l.window {
			ahead = tat - t
			retry = max(ceilSeconds(next-t-l.window), 1)
			break
		}
		if cell.CompareAndSwap(tat, next) {
			ok, ahead = true, next-t
			break
		}
	}
	remaining = max(int((l.window-ahead)/l.interval), 0)
	return ok, remaining, max(ceilSeconds(ahead), 0), retry
}

func ceilSeconds(ns int64) int {
	return int((ns + int64(time.Second) - 1) / int64(time.Second))
}

// sweep forgets, at most once a minute, the buckets that are full again
// (their arrival time is past): a key seen again starts full, as it would.
func (l *rateLimiter) sweep(now int64) {
	last := l.swept.Load()
	if now-last < int64(time.Minute) || !l.swept.CompareAndSwap(last, now) {
		return
	}
	l.cells.Range(func(k, v any) bool {
		if v.(*atomic.Int64).Load() <= now {
			l.cells.CompareAndDelete(k, v)
		}
		return true
	})
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
