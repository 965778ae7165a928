package api

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"tracker/domain/idempotency"
	"tracker/internal/tracing"
)

// Module is a feature's route table.
type Module interface {
	Routes(r Router)
}

// Deps are what the edge itself needs; feature modules hold their own.
type Deps struct {
	Log     *slog.Logger
	Metrics *Metrics
	Auth    Authenticator
	Health  HealthChecker
	Version string
	Profile string
	// BodyLimit caps request bodies (bytes; default DefaultBodyLimit);
	// routes registered with Router.Upload set their own.
	BodyLimit int
	// TrustedProxies are the addresses and CIDR ranges of the proxies in
	// front of the service; only from them is X-Forwarded-For believed
	// (see ClientIP). Empty: the peer address is the client.
	TrustedProxies []string
	// RateLimit is the per-principal budget of /api/v1 (zero: off).
	RateLimit RateLimit
	// Idempotency keeps the responses of POSTs made with an
	// Idempotency-Key (nil: the header is ignored).
	Idempotency *idempotency.Service
	// Tracing makes a span of every request (nil: off, and the middleware
	// is not installed at all).
	Tracing *tracing.Tracing
}

// New builds the Fiber app: request id → the request's span (when tracing
// is on) → recover → access log + metrics →
// input guard (text of path and query, body size) → the /api/v1 rate limit,
// the system routes, then every module under /api/v1.
func New(d Deps, modules ...Module) *fiber.App {
	if d.BodyLimit == 0 {
		d.BodyLimit = DefaultBodyLimit
	}
	app := fiber.New(fiber.Config{
		AppName:               ServiceName,
		DisableStartupMessage: true,
		ErrorHandler:          ErrorHandler(d.Log),
		// Bodies over BodyLimit are streamed, not buffered: guardInput
		// refuses them (or an Upload route reads them after authentication).
		BodyLimit:         d.BodyLimit,
		StreamRequestBody: true,
		// c.IP() believes X-Forwarded-For only from a trusted proxy.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          d.TrustedProxies,
		ProxyHeader:             proxyHeader(d.TrustedProxies),
		ReadTimeout:             60 * time.Second,
		WriteTimeout:            5 * time.Minute,
		IdleTimeout:             2 * time.Minute,
	})
	large := bodyLimits{}
	app.Use(requestID)
	if d.Tracing.Enabled() {
		app.Use(traceRequests(d.Tracing))
	}
	app.Use(recoverer(d.Log), observe(d.Log, d.Metrics), guardInput(d.BodyLimit, large))
	if inv, ok := d.Auth.(Invalidator); ok {
		app.Use(invalidateAfterWrites(inv))
	}
	if l := newRateLimiter(d.RateLimit); l != nil {
		app.Use("/api/v1", limitRequests(l, d.Auth))
	}
	app.Use("/api/v1", notModified)
	systemRoutes(app, d)
	r := Router{group: app.Group("/api/v1"), root: app, prefix: "/api/v1", auth: authenticate(d.Auth), large: large, idem: idempotent(d.Idempotency),
		idemSvc: d.Idempotency}
	for _, m := range modules {
		m.Routes(r)
	}
	return app
}

// Invalidator is an Authenticator that caches what a write may change (a
// user's standing): told after every write request, the change is seen by
// the replica's next request.
type Invalidator interface{ Invalidate() }

func invalidateAfterWrites(inv Invalidator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		default:
			inv.Invalidate()
		}
		return err
	}
}

func proxyHeader(trusted []string) string {
	if len(trusted) == 0 {
		return ""
	}
	return fiber.HeaderXForwardedFor
}
