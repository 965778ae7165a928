package traceparent_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"tracker/internal/traceparent"
)

// A traceparent written with a span's context reads back as that span, a
// remote parent; without a span there is none, and a malformed one is
// ignored.
func TestRoundTrip(t *testing.T) {
	if traceparent.From(context.Background()) != "" || traceparent.Arg(context.Background()) != nil {
		t.Fatal("a traceparent without a span")
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	ctx, span := tp.Tracer("t").Start(context.Background(), "s")
	defer span.End()
	s := traceparent.From(ctx)
	want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
	if s != want || traceparent.Arg(ctx) != want {
		t.Fatalf("traceparent %q, want %q", s, want)
	}
	sc := trace.SpanContextFromContext(traceparent.Context(context.Background(), s))
	if sc.SpanID() != span.SpanContext().SpanID() || sc.TraceID() != span.SpanContext().TraceID() || !sc.IsRemote() {
		t.Fatalf("read back %v", sc)
	}
	if trace.SpanContextFromContext(traceparent.Context(context.Background(), "garbage")).IsValid() {
		t.Fatal("a malformed traceparent gave a parent")
	}
}
