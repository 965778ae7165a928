package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"tracker/internal/tracing"
)

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":            "http://collector:4318/v1/traces",
		"http://collector:4318/":           "http://collector:4318/v1/traces",
		"collector:4318":                   "http://collector:4318/v1/traces",
		"https://otel.example/v1/traces":   "https://otel.example/v1/traces",
		"https://otel.example/prefix/":     "https://otel.example/prefix/v1/traces",
		"http://127.0.0.1:4318/v1/traces/": "http://127.0.0.1:4318/v1/traces",
	} {
		if got, err := tracing.TracesURL(in); err != nil || got != want {
			t.Errorf("TracesURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x:21"} {
		if _, err := tracing.TracesURL(bad); err == nil {
			t.Errorf("TracesURL(%q) accepted", bad)
		}
	}
}

// Off (no endpoint) is nil: no provider, no SQL tracer, no interceptor, and
// the process's globals untouched.
func TestOffInstallsNothing(t *testing.T) {
	before := otel.GetTracerProvider()
	tr, err := tracing.Start(context.Background(), "", "test")
	if err != nil || tr != nil {
		t.Fatalf("Start without endpoint = %v, %v", tr, err)
	}
	if tr.Enabled() || tr.PgxTracer() != nil || tr.Tracer("x") != nil {
		t.Fatal("an off tracing hands out instruments")
	}
	if ti, err := tr.TemporalInterceptor(); ti != nil || err != nil {
		t.Fatalf("interceptor %v, %v", ti, err)
	}
	if otel.GetTracerProvider() != before {
		t.Fatal("the global provider changed")
	}
	if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
		t.Fatal("an SDK provider is installed globally")
	}
}

// On, spans reach a real OTLP/HTTP receiver at <endpoint>/v1/traces with
// the service's name on their resource.
func TestStartExportsOverOTLPHTTP(t *testing.T) {
	var mu sync.Mutex
	var got []*collectortrace.ExportTraceServiceRequest
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		got, paths = append(got, req), append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	tr, err := tracing.Start(context.Background(), srv.URL, "9.9.9")
	if err != nil || !tr.Enabled() {
		t.Fatalf("Start: %v", err)
	}
	if _, ok := otel.GetTextMapPropagator().(propagation.TraceContext); !ok {
		t.Fatalf("global propagator %T", otel.GetTextMapPropagator())
	}
	_, span := tr.Tracer("test").Start(context.Background(), "work")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || paths[0] != "/v1/traces" {
		t.Fatalf("exports %d at %v", len(got), paths)
	}
	rs := got[0].ResourceSpans
	if len(rs) != 1 || len(rs[0].ScopeSpans) != 1 || rs[0].ScopeSpans[0].Spans[0].Name != "work" {
		t.Fatalf("exported %v", got[0])
	}
	var name, version string
	for _, a := range rs[0].Resource.Attributes {
		switch a.Key {
		case "service.name":
			name = a.Value.GetStringValue()
		case "service.version":
			version = a.Value.GetStringValue()
		}
	}
	if name != "tracker" || version != "9.9.9" {
		t.Fatalf("resource service %q version %q", name, version)
	}
}
