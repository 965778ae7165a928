package account

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/accountdb"
)

// authCache spares an authenticated request the work that does not change
// between two requests of one caller: verifying an access token's signature
// and claims (cached by the token until the token expires), and reading the
// user's standing (active, the orgs that require SSO), a database round
// trip, cached while a LISTEN connection on StandingChannel is up. The
// database notifies that channel whenever a user's active flag changes, a
// user is deleted or a membership's sso_only changes (migration 044); every
// notification, every write request this replica served (Invalidate), and
// every loss of the connection drop every cached standing at once, so a
// deactivated user is refused on the next request here and within the
// notification's delivery (milliseconds) on every other replica. Without
// the connection nothing is cached: each request reads the database.
type authCache struct {
	live atomic.Bool
	// gen numbers the invalidations: a standing is used only while gen has
	// not moved since the read that produced it began, so a read that
	// raced an invalidation is never believed.
	gen      atomic.Uint64
	standing sync.Map // uuid.UUID → cachedStanding
	tokens   sync.Map // token → cachedToken
	size     atomic.Int64
	swept    atomic.Int64
}

type cachedStanding struct {
	st  accountdb.Standing
	gen uint64
}

type cachedToken struct {
	uid, oid uuid.UUID
	email    string
	sso      bool
	expires  time.Time
}

// maxCachedTokens bounds the token cache's memory (about 200 bytes an
// entry): past it, tokens are verified each time until the sweep.
const maxCachedTokens = 100_000

// StandingChannel is the LISTEN/NOTIFY channel of standing changes.
const StandingChannel = "tracker_standing"

// Invalidate drops every cached standing: the edge calls it after every
// write request, so a change this replica made is seen by its next request
// without waiting for the notification.
func (s *Service) Invalidate() { s.cache.gen.Add(1) }

// Watching reports whether standings are cached (the LISTEN connection is up).
func (s *Service) Watching() bool { return s.cache.live.Load() }

// WatchStanding holds the LISTEN connection that lets standings be cached,
// reconnecting after failures, until ctx ends.
func (s *Service) WatchStanding(ctx context.Context, log *slog.Logger) {
	c := &s.cache
	for ctx.Err() == nil {
		err := store.Listen(ctx, s.DB, StandingChannel, func() {
			c.gen.Add(1)
			c.live.Store(true)
		}, func() { c.gen.Add(1) })
		c.live.Store(false)
		c.gen.Add(1)
		if ctx.Err() != nil || errors.Is(err, store.ErrClosed) {
			return // stopping, or the process closed its pool first: nothing to listen on
		}
		log.Warn("standing cache: LISTEN connection lost; reading the database on every request meanwhile", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// standingOf is the user's standing, from the cache when it may be.
func (s *Service) standingOf(ctx context.Context, uid uuid.UUID) (accountdb.Standing, error) {
	c := &s.cache
	gen := c.gen.Load()
	if c.live.Load() {
		if v, ok := c.standing.Load(uid); ok && v.(cachedStanding).gen == gen {
			return v.(cachedStanding).st, nil
		}
	}
	st, err := accountdb.StandingOf(ctx, s.DB.Q(), uid)
	if err == nil && c.live.Load() {
		c.standing.Store(uid, cachedStanding{st: st, gen: gen})
	}
	return st, err
}

// verifiedToken is the token's verified claims, from the cache while the
// token has not expired.
func (s *Service) verifiedToken(bearer string) (cachedToken, bool) {
	c := &s.cache
	now := time.Now() // the JWT library's clock
	if v, ok := c.tokens.Load(bearer); ok {
		if t := v.(cachedToken); now.Before(t.expires) {
			return t, true
		}
	}
	cl, err := s.Tokens.Verify(bearer)
	if err != nil || cl.ExpiresAt == nil {
		return cachedToken{}, false
	}
	uid, err1 := uuid.Parse(cl.Subject)
	oid, err2 := uuid.Parse(cl.OrgID)
	if err1 != nil || err2 != nil || (cl.BoundOrg != "" && cl.BoundOrg != cl.OrgID) {
		return cachedToken{}, false
	}
	t := cachedToken{uid: uid, oid: oid, email: cl.Email, sso: cl.BoundOrg != "", expires: cl.ExpiresAt.Time}
	c.sweepTokens(now)
	if c.size.Load() < maxCachedTokens {
		// The key is copied: the edge hands in a string that aliases its
		// request buffer, which the next request on the connection reuses.
		if _, loaded := c.tokens.LoadOrStore(strings.Clone(bearer), t); !loaded {
			c.size.Add(1)
		}
	}
	return t, true
}

// sweepTokens forgets expired tokens, at most once a minute.
func (c *authCache) sweepTokens(now time.Time) {
	last := c.swept.Load()
	if now.UnixNano()-last < int64(time.Minute) || !c.swept.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	c.tokens.Range(func(k, v any) bool {
		if !now.Before(v.(cachedToken).expires) && c.tokens.CompareAndDelete(k, v) {
			c.size.Add(-1)
		}
		return true
	})
}
