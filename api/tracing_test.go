package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/tickets"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/store"
)

// ticketModules mounts the tickets feature, the one the tracing tests
// change.
func ticketModules(e *apitest.Env) []api.Module {
	return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock))}
}

// tracedWorld is the usual world traced to memory (apitest.NewTracedWorld).
func tracedWorld(t *testing.T) (apitest.World, *tracetest.InMemoryExporter) {
	t.Helper()
	tw := apitest.NewTracedWorld(t, ticketModules)
	return tw.World, tw.Spans
}

func attr(s tracetest.SpanStub, key attribute.Key) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Emit()
		}
	}
	return ""
}

// A PATCH of a ticket is one server span named by its route pattern, a
// child of the caller's traceparent, and its SQL statements are spans
// under it in the same trace.
func TestRequestAndSQLSpans(t *testing.T) {
	t.Parallel()
	w, exp := tracedWorld(t)
	exp.Reset()
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	w.Env.DoHeaders("PATCH", "/api/v1/tickets/"+w.Ticket.ID.String(), w.Owner.Token, map[string]any{"title": "Traced"},
		map[string]string{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}).Expect(t, 200)

	spans := exp.GetSpans()
	var server []tracetest.SpanStub
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			server = append(server, s)
		}
	}
	if len(server) != 1 {
		t.Fatalf("server spans %d, want 1 (%d spans in all)", len(server), len(spans))
	}
	req := server[0]
	if req.Name != "PATCH /api/v1/tickets/:id" {
		t.Fatalf("request span named %q", req.Name)
	}
	if req.SpanContext.TraceID().String() != callerTrace || req.Parent.SpanID().String() != callerSpan || !req.Parent.IsRemote() {
		t.Fatalf("request span trace %s parent %s (remote %v): not the caller's", req.SpanContext.TraceID(),
			req.Parent.SpanID(), req.Parent.IsRemote())
	}
	if got := attr(req, "http.response.status_code"); got != "200" {
		t.Fatalf("status attribute %q", got)
	}
	if got := attr(req, "http.route"); got != "/api/v1/tickets/:id" {
		t.Fatalf("route attribute %q", got)
	}
	var update bool
	sqlSpans, direct := 0, 0
	for _, s := range spans {
		q := attr(s, "db.query.text")
		if q == "" {
			continue
		}
		sqlSpans++
		if s.Parent.SpanID() == req.SpanContext.SpanID() {
			direct++
		}
		if !descends(spans, s, req) {
			t.Errorf("SQL span %q (%.40s) does not descend from the request span", s.Name, q)
		}
		if strings.HasPrefix(strings.TrimSpace(q), "UPDATE tickets") {
			update = true
		}
	}
	if sqlSpans == 0 || direct == 0 || !update {
		t.Fatalf("SQL spans %d (%d children of the request), UPDATE tickets among them %v", sqlSpans, direct, update)
	}
	// The event's outbox row carries the request span's traceparent.
	want := "00-" + callerTrace + "-" + req.SpanContext.SpanID().String() + "-01"
	if got := lastTraceparent(t, w.Env.DB); got == nil || *got != want {
		t.Fatalf("outbox traceparent %v, want %s", got, want)
	}
}

// lastTraceparent is the traceparent of the newest ticket.updated row.
func lastTraceparent(t *testing.T, db *store.DB) *string {
	t.Helper()
	var tp *string
	if err := db.Pool.QueryRow(context.Background(),
		`SELECT traceparent FROM outbox WHERE topic = 'ticket.updated' ORDER BY id DESC LIMIT 1`).Scan(&tp); err != nil {
		t.Fatal(err)
	}
	return tp
}

// descends says whether s is in anc's trace and anc is among its parents
// (a batch's statements are children of the batch span, a prepared
// statement's of its query span).
func descends(spans []tracetest.SpanStub, s, anc tracetest.SpanStub) bool {
	if s.SpanContext.TraceID() != anc.SpanContext.TraceID() {
		return false
	}
	for range len(spans) {
		if s.Parent.SpanID() == anc.SpanContext.SpanID() {
			return true
		}
		found := false
		for _, p := range spans {
			if p.SpanContext.SpanID() == s.Parent.SpanID() {
				s, found = p, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return false
}

// A request that matches no route is a span named by its method alone:
// the raw path would make names without bound.
func TestUnmatchedRequestSpanName(t *testing.T) {
	t.Parallel()
	w, exp := tracedWorld(t)
	exp.Reset()
	w.Env.Do("GET", "/no/such/path/123", "", nil).Expect(t, 404)
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "GET" || attr(spans[0], "http.route") != "" {
		t.Fatalf("spans %+v", spans)
	}
}

// With tracing off the middleware is not in the app's stack at all, and
// nothing reaches even a provider installed as the process's global (no
// code path falls back to it).
func TestTracingOffInstallsNothing(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	off := apitest.NewWorld(t, apitest.Options{Modules: ticketModules})
	on, _ := tracedWorld(t)
	handlers := func(a *fiber.App) (n int) {
		for _, r := range a.Stack()[0] {
			n += len(r.Handlers)
		}
		return n
	}
	if got, want := handlers(off.Env.App), handlers(on.Env.App)-1; got != want {
		t.Fatalf("GET handlers with tracing off %d, want one fewer than with it on (%d)", got, want)
	}
	exp.Reset()
	off.Env.DoHeaders("PATCH", "/api/v1/tickets/"+off.Ticket.ID.String(), off.Owner.Token, map[string]any{"title": "Dark"},
		map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}).Expect(t, 200)
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans exported with tracing off", n)
	}
	if tp := lastTraceparent(t, off.Env.DB); tp != nil {
		t.Fatalf("outbox row carries traceparent %q with tracing off", *tp)
	}
}
