package api

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

const (
	headerRequestID = "X-Request-Id"
	localRequestID  = "request_id"
	localPrincipal  = "principal"
)

// RequestID is the id of the request being served.
func RequestID(c *fiber.Ctx) string {
	if s, ok := c.Locals(localRequestID).(string); ok {
		return s
	}
	return ""
}

// requestID takes a sane incoming X-Request-Id or makes one, and echoes it.
func requestID(c *fiber.Ctx) error {
	id := c.Get(headerRequestID)
	if id == "" || len(id) > 128 {
		id = uuid.NewString()
	}
	c.Locals(localRequestID, id)
	c.Set(headerRequestID, id)
	return c.Next()
}

// recoverer turns a panic into an internal error with the stack in the log.
func recoverer(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("panic", "request_id", RequestID(c), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return c.Next()
	}
}

// observe writes the access log line and the request metrics. The route
// label is the matched pattern (never the raw path), so ids do not explode
// the metric's cardinality. It logs no headers and no bodies.
func observe(log *slog.Logger, m *Metrics) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		if err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		status := c.Response().StatusCode()
		// Copies: c.Method() and the route are views into fasthttp's
		// buffers, which the next request on the worker overwrites; the
		// metric keeps its labels for good.
		method := strings.Clone(c.Method())
		route := strings.Clone(c.Route().Path)
		if status == fiber.StatusNotFound && route == "/" {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		m.observe(method, route, status, elapsed)
		log.Info("request", "request_id", RequestID(c), "method", method, "route", route,
			"status", status, "duration_ms", float64(elapsed.Microseconds())/1000)
		return nil
	}
}
