package api

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
	"tracker/domain/idempotency"
)

// Authenticator turns a bearer credential into a principal.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (domain.Principal, error)
}

// Principal is the authenticated caller; handlers behind Router.Auth always
// have one.
func Principal(c *fiber.Ctx) domain.Principal {
	p, _ := c.Locals(localPrincipal).(domain.Principal)
	return p
}

// authenticate requires a bearer credential and applies the API key's scope
// gate by HTTP method.
func authenticate(a Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, ok := verified(c)
		if !ok {
			h := c.Get(fiber.HeaderAuthorization)
			token, ok := strings.CutPrefix(h, "Bearer ")
			if !ok || strings.TrimSpace(token) == "" {
				return domain.Unauthorized("missing or invalid credentials")
			}
			var err error
			if p, err = a.Authenticate(c.UserContext(), strings.TrimSpace(token)); err != nil {
				return err
			}
		}
		if !p.AllowsMethod(c.Method()) {
			return domain.Forbidden("this API key's read scope allows only GET requests")
		}
		c.Locals(localPrincipal, p)
		return c.Next()
	}
}

// Router registers routes under /api/v1. Get, Post, Put, Patch and Delete
// require authentication; Public routes do not. Keeping the rule in the
// registration means a route cannot be exposed by forgetting a middleware.
type Router struct {
	group  fiber.Router
	root   fiber.Router
	prefix string
	auth   fiber.Handler
	large  bodyLimits
	// idem makes POSTs with an Idempotency-Key safe to retry; idemSvc is
	// its service, for the streamed uploads (IdempotentStream).
	idem    fiber.Handler
	idemSvc *idempotency.Service
}

func (r Router) with(h []fiber.Handler) []fiber.Handler {
	return append([]fiber.Handler{r.auth}, h...)
}

// Get registers an authenticated GET route.
func (r Router) Get(path string, h ...fiber.Handler) { r.group.Get(path, r.with(h)...) }

// Post registers an authenticated POST route.
// A request with an Idempotency-Key header is run once per key (see
// idempotent).
func (r Router) Post(path string, h ...fiber.Handler) {
	r.group.Post(path, r.with(append([]fiber.Handler{r.idem}, h...))...)
}

// Put registers an authenticated PUT route.
func (r Router) Put(path string, h ...fiber.Handler) { r.group.Put(path, r.with(h)...) }

// Patch registers an authenticated PATCH route.
func (r Router) Patch(path string, h ...fiber.Handler) { r.group.Patch(path, r.with(h)...) }

// Delete registers an authenticated DELETE route.
func (r Router) Delete(path string, h ...fiber.Handler) { r.group.Delete(path, r.with(h)...) }

// Upload registers an authenticated POST route whose body may be up to
// limit bytes; it is read only after authentication, so an anonymous
// client cannot make the server hold a large body.
func (r Router) Upload(path string, limit int, h ...fiber.Handler) {
	r.large[routeKey(fiber.MethodPost, r.prefix+path)] = limit
	r.group.Post(path, r.with(append([]fiber.Handler{ReadBody(limit), r.idem}, h...))...)
}

// UploadStream registers an authenticated POST route whose body (up to
// limit bytes) the handler reads as a stream (BodyStream), never whole in
// memory: a file upload. The middleware cannot hash such a body for an
// Idempotency-Key: a handler that honours the key reads the body, then
// runs its effect through IdempotentStream; any other must be safe to
// repeat.
func (r Router) UploadStream(path string, limit int, h ...fiber.Handler) {
	r.large[routeKey(fiber.MethodPost, r.prefix+path)] = limit
	svc := func(c *fiber.Ctx) error {
		if r.idemSvc != nil {
			c.Locals(localIdempotency, r.idemSvc)
		}
		return c.Next()
	}
	r.group.Post(path, r.with(append([]fiber.Handler{StreamBody(limit), svc}, h...))...)
}

// Public is the /api/v1 group without authentication, for the spec's public
// and signature-verified endpoints.
func (r Router) Public() fiber.Router { return r.group }

// Root is the app itself, without authentication, for routes outside
// /api/v1 that verify their own signatures (the local object store's
// presigned URLs under /storage/).
func (r Router) Root() fiber.Router { return r.root }

// RootUpload registers h for method on every path under prefix outside
// /api/v1, taking bodies of up to limit bytes instead of the default (the
// local object store's presigned uploads). The handler verifies its own
// signature; the body is read, bounded, before it runs.
func (r Router) RootUpload(method, prefix string, limit int, h fiber.Handler) {
	r.large[prefixKey(method, prefix)] = limit
	r.root.Add(method, prefix+"*", h)
}
