// Package tracing is the service's OpenTelemetry tracing: the provider
// (OTLP over HTTP, W3C tracecontext) and the pieces each layer installs
// only when tracing is on (the pgx tracer, the Temporal interceptor). The
// traceparent an outbox row carries is internal/traceparent.
//
// Off is a nil *Tracing: nothing is installed, no provider is set and no
// span is made (every method works on nil).
package tracing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// ServiceName is the service.name of every span's resource.
const ServiceName = "tracker"

// Tracing is what the instrumented layers need. A nil *Tracing is off.
type Tracing struct {
	Provider   trace.TracerProvider
	Propagator propagation.TextMapPropagator
	shutdown   func(context.Context) error
}

// New wraps a provider (tests pass one with an in-memory exporter); the
// propagator is W3C tracecontext.
func New(tp trace.TracerProvider) *Tracing {
	return &Tracing{Provider: tp, Propagator: propagation.TraceContext{}}
}

// Enabled says whether spans are made.
func (t *Tracing) Enabled() bool { return t != nil && t.Provider != nil }

// Tracer is the named tracer (nil when off).
func (t *Tracing) Tracer(name string) trace.Tracer {
	if !t.Enabled() {
		return nil
	}
	return t.Provider.Tracer(name)
}

// Shutdown flushes and stops the exporter (nothing when off).
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// TracesURL turns an OTLP endpoint as OTEL_EXPORTER_OTLP_ENDPOINT gives it
// (a base URL such as http://collector:4318) into the traces URL
// (…/v1/traces). A URL already ending in /v1/traces is kept; one without a
// scheme is taken as http.
func TracesURL(endpoint string) (string, error) {
	s := strings.TrimSpace(endpoint)
	if s == "" {
		return "", errors.New("empty endpoint")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return "", fmt.Errorf("endpoint %q: the scheme must be http or https", endpoint)
	}
	s = strings.TrimRight(s, "/")
	if !strings.HasSuffix(s, "/v1/traces") {
		s += "/v1/traces"
	}
	return s, nil
}

// Start builds the OTLP/HTTP exporter for endpoint and a batching provider
// whose resource names the service and its version, and installs it and
// the W3C tracecontext propagator as the process's globals (libraries that
// look there find them). An empty endpoint is off: nil, nothing installed.
func Start(ctx context.Context, endpoint, version string) (*Tracing, error) {
	if endpoint == "" {
		return nil, nil
	}
	u, err := TracesURL(endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u))
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(ServiceName), semconv.ServiceVersion(version))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t := New(tp)
	t.shutdown = tp.Shutdown
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(t.Propagator)
	return t, nil
}

// PgxTracer is the SQL tracer for a pool's ConnConfig.Tracer: one span per
// query, batch and connect, named by the statement's operation; the
// statement's text is an attribute, its parameters never are. Nil when off.
func (t *Tracing) PgxTracer() pgx.QueryTracer {
	if !t.Enabled() {
		return nil
	}
	return otelpgx.NewTracer(otelpgx.WithTracerProvider(t.Provider), otelpgx.WithDisableConnectionDetailsInAttributes())
}

// TemporalInterceptor is the Temporal SDK's OpenTelemetry tracing
// interceptor, for client.Options.Interceptors (workers made from the
// client use it too): spans for starting a workflow, running it and each
// activity, the context carried in Temporal headers. Nil when off.
func (t *Tracing) TemporalInterceptor() (interceptor.ClientInterceptor, error) {
	if !t.Enabled() {
		return nil, nil
	}
	return temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer:            t.Provider.Tracer("temporal-sdk-go"),
		TextMapPropagator: t.Propagator,
	})
}
