// Package traceparent writes and reads the W3C traceparent an outbox row
// carries from the request that wrote it to the relay that dispatches it.
// It needs only OpenTelemetry's API: with tracing off no context has a
// span, so nothing is written and nothing is read.
package traceparent

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// From is the W3C traceparent of ctx's span ("" without one, as always
// when tracing is off).
func From(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), c)
	return c["traceparent"]
}

// Arg is From as a query argument: NULL without a span.
func Arg(ctx context.Context) any {
	if s := From(ctx); s != "" {
		return s
	}
	return nil
}

// Context returns ctx with the remote span a stored traceparent names as
// its parent ("" or a malformed one: ctx unchanged).
func Context(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}
