package api

import (
	"crypto/sha256"

	"github.com/gofiber/fiber/v2"

	"tracker/domain/idempotency"
)

const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
)

// replayedHeaders are the response headers kept with a stored response and
// sent again on a replay; the rest (request id, rate limit) belong to the
// retry itself.
var replayedHeaders = []string{fiber.HeaderContentType, fiber.HeaderLocation, fiber.HeaderETag}

// idempotent makes an authenticated POST with an Idempotency-Key header
// safe to retry (package domain/idempotency): the handler runs in one
// request transaction that also stores its response; a retry with the same
// method, path and body gets that response again with Idempotent-Replayed:
// true. Responses of 5xx are not stored (their writes are rolled back, so
// a retry runs again); 4xx are stored when the transaction can still
// commit. A streamed body is committed but not stored. Without the header,
// or without a service, the route runs as before.
func idempotent(s *idempotency.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := c.Get(headerIdempotencyKey)
		if key == "" || s == nil {
			return c.Next()
		}
		return runOnce(c, s, key, requestHash(c, c.Body()), c.Next)
	}
}

// localIdempotency is the fiber local under which UploadStream hands its
// handler the idempotency service (IdempotentStream).
const localIdempotency = "api.idempotency"

// IdempotentStream is idempotent for a streamed upload (UploadStream),
// whose body the middleware cannot hash: the handler reads the body, then
// runs its effect through here with what identifies the request's body
// (say, a hash of the bytes read and the form's fields). With an
// Idempotency-Key, effect runs once per key as a route's would under
// idempotent (its writes and its response in one commit; a retry gets the
// stored response; the key with another body a 422; while the first still
// runs a 409), reading the request's context from c.UserContext().
// Without one, effect simply runs.
func IdempotentStream(c *fiber.Ctx, body []byte, effect func() error) error {
	s, _ := c.Locals(localIdempotency).(*idempotency.Service)
	key := c.Get(headerIdempotencyKey)
	if key == "" || s == nil {
		return effect()
	}
	return runOnce(c, s, key, requestHash(c, body), effect)
}

// requestHash identifies a request by its method, path and query, and body.
func requestHash(c *fiber.Ctx, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(c.Method()))
	h.Write([]byte{0})
	h.Write(c.Request().URI().RequestURI())
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)
}

// runOnce runs next under key: a replay answers the stored response.
func runOnce(c *fiber.Ctx, s *idempotency.Service, key string, hash []byte, next func() error) error {
	orig := c.UserContext()
	run, stored, err := s.Begin(orig, principalKey(Principal(c)), key, hash)
	if err != nil {
		return err
	}
	if stored != nil {
		for k, v := range stored.Headers {
			c.Set(k, v)
		}
		c.Set(headerReplayed, "true")
		return c.Status(stored.Status).Send(stored.Body)
	}
	c.SetUserContext(run.Ctx)
	err = next()
	c.SetUserContext(orig)
	if err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			run.Abort(orig)
			return herr
		}
	}
	res := c.Response()
	status := res.StatusCode()
	switch {
	case status >= 500:
		run.Abort(orig)
		return nil
	case res.IsBodyStream():
		err = run.Finish(orig, nil)
	default:
		stored := &idempotency.Response{Status: status, Headers: map[string]string{}, Body: append([]byte(nil), res.Body()...)}
		for _, name := range replayedHeaders {
			if v := res.Header.Peek(name); len(v) > 0 {
				stored.Headers[name] = string(v)
			}
		}
		err = run.Finish(orig, stored)
	}
	if err != nil && status < 400 {
		// Nothing committed: the effect did not happen, so the
		// client must not see it as done.
		res.Reset()
		c.Set(headerRequestID, RequestID(c))
		return err
	}
	// A refused request whose transaction could not commit (a failed
	// statement aborts it) had no effect; its answer stands, unstored.
	return nil
}
