package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"tracker/internal/tracing"
)

// headerCarrier reads the request's headers for the propagator (Extract
// only).
type headerCarrier struct{ c *fiber.Ctx }

func (h headerCarrier) Get(key string) string { return h.c.Get(key) }
func (h headerCarrier) Set(string, string)    {}
func (h headerCarrier) Keys() []string {
	var keys []string
	h.c.Request().Header.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

var _ propagation.TextMapCarrier = headerCarrier{}

// traceRequests makes one server span per request, a child of the caller's
// W3C traceparent when it sends one, named by the method and the matched
// route pattern ("PATCH /api/v1/tickets/:id", never the raw path), and puts
// it in the request's user context, where the handlers' SQL and outbox rows
// find it. Installed only when tracing is on (see New).
func traceRequests(t *tracing.Tracing) fiber.Handler {
	tracer := t.Tracer("tracker/api")
	prop := t.Propagator
	return func(c *fiber.Ctx) error {
		ctx := prop.Extract(c.UserContext(), headerCarrier{c})
		method := strings.Clone(c.Method())
		ctx, span := tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method), semconv.URLScheme(c.Protocol()),
				attribute.String("http.request_id", strings.Clone(RequestID(c)))))
		defer span.End()
		c.SetUserContext(ctx)
		err := c.Next()
		status := c.Response().StatusCode()
		if err != nil {
			// Only a panic gets here (observe renders every other error):
			// the app's error handler answers 500 after this returns.
			status = fiber.StatusInternalServerError
			span.RecordError(err)
		}
		route := c.Route().Path
		if status != fiber.StatusNotFound || route != "/" {
			route = strings.Clone(route)
			span.SetName(method + " " + route)
			span.SetAttributes(semconv.HTTPRoute(route))
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		return err
	}
}
