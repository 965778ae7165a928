package webhookwf

// The trace of one ticket change, from the request through the outbox to
// the receiver, with the tracing of cmd/tracker (request middleware, pgx
// tracer, Temporal interceptor, POST spans) exporting to memory.

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/tickets"
	"tracker/domain"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/domain/webhook"
	"tracker/store/webhookdb"
	"tracker/worker"
	"tracker/worker/workertest"
	"tracker/workflows/webhook/webhooktest"
)

// spanSet finds spans by name and walks parents.
type spanSet []tracetest.SpanStub

func (s spanSet) named(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, sp := range s {
		if sp.Name == name {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1 (spans: %v)", len(found), name, s.names())
	}
	return found[0]
}

func (s spanSet) names() []string {
	var n []string
	for _, sp := range s {
		n = append(n, sp.Name)
	}
	return n
}

func (s spanSet) byID(id trace.SpanID) (tracetest.SpanStub, bool) {
	for _, sp := range s {
		if sp.SpanContext.SpanID() == id {
			return sp, true
		}
	}
	return tracetest.SpanStub{}, false
}

// descends says whether anc is among sp's parents, in one trace.
func (s spanSet) descends(sp, anc tracetest.SpanStub) bool {
	if sp.SpanContext.TraceID() != anc.SpanContext.TraceID() {
		return false
	}
	for range len(s) {
		if sp.Parent.SpanID() == anc.SpanContext.SpanID() {
			return true
		}
		p, ok := s.byID(sp.Parent.SpanID())
		if !ok {
			return false
		}
		sp = p
	}
	return false
}

// One trace shows PATCH ticket → its SQL → the outbox dispatch → the
// relay's first POST to the receiver (refused) → the WebhookDelivery
// workflow it starts → the activity's POST (accepted), each span a child of
// the one before, and the receiver sees each POST's span as traceparent.
func TestOneTraceFromRequestToReceiver(t *testing.T) {
	t.Parallel()
	tw := apitest.NewTracedWorld(t, func(e *apitest.Env) []api.Module {
		return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock))}
	})
	w, exp, db, tr := tw.World, tw.Spans, tw.DB, tw.Tracing
	rcv := webhooktest.NewReceiver(t, func(n int) int {
		if n == 1 {
			return 503
		}
		return 200
	})
	now := time.Now().UTC()
	hook := webhookdb.Row{ID: domain.NewID(), OrgID: w.Owner.OrgID, URL: rcv.URL + "/hook", Secret: webhook.NewSecret(),
		EventTypes: []string{domain.EventTicketUpdated}, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := webhookdb.Insert(context.Background(), db.Q(), hook); err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(hook.Secret)
	srv := workertest.Start(t)
	exp.Reset()

	w.Env.Do("PATCH", "/api/v1/tickets/"+w.Ticket.ID.String(), w.Owner.Token, map[string]any{"title": "Traced"}).Expect(t, 200)
	runWorker(t, worker.Deps{DB: db, Address: srv.Address, Tracing: tr},
		Deps{Schedule: []time.Duration{0, 200 * time.Millisecond}, Tracing: tr})
	workertest.WaitFor(t, 60*time.Second, "the retry's delivery", func() bool { return len(rcv.Hits()) >= 2 })
	workertest.WaitFor(t, 30*time.Second, "the workflow's span", func() bool {
		for _, s := range exp.GetSpans() {
			if s.Name == "RunWorkflow:WebhookDelivery" {
				return true
			}
		}
		return false
	})

	spans := spanSet(exp.GetSpans())
	req := spans.named(t, "PATCH /api/v1/tickets/:id")
	if req.Parent.IsValid() {
		t.Fatalf("the request span has a parent %v", req.Parent)
	}
	// The request's SQL, the outbox row's insert among it.
	var outboxInsert bool
	for _, s := range spans {
		if q := s.Attributes; len(q) > 0 && s.SpanContext.TraceID() == req.SpanContext.TraceID() {
			for _, a := range q {
				if a.Key == "db.query.text" && strings.Contains(a.Value.AsString(), "INSERT INTO outbox") {
					outboxInsert = outboxInsert || spans.descends(s, req)
				}
			}
		}
	}
	if !outboxInsert {
		t.Fatal("no SQL span of the outbox insert under the request span")
	}
	dispatch := spans.named(t, "outbox dispatch "+domain.EventTicketUpdated)
	if dispatch.Parent.SpanID() != req.SpanContext.SpanID() || dispatch.SpanContext.TraceID() != req.SpanContext.TraceID() {
		t.Fatalf("dispatch span's parent %v, want the request span %v", dispatch.Parent, req.SpanContext)
	}
	var posts []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "POST" && s.SpanKind == trace.SpanKindClient {
			posts = append(posts, s)
		}
	}
	if len(posts) != 2 {
		t.Fatalf("%d POST spans, want 2 (spans: %v)", len(posts), spans.names())
	}
	start := spans.named(t, "StartWorkflow:WebhookDelivery")
	run := spans.named(t, "RunWorkflow:WebhookDelivery")
	act := spans.named(t, "RunActivity:DeliverWebhook")
	for _, c := range []struct {
		name       string
		span, from tracetest.SpanStub
	}{
		{"the workflow's start under the dispatch", start, dispatch},
		{"the workflow's run under its start", run, start},
		{"the activity under the workflow", act, run},
	} {
		if !spans.descends(c.span, c.from) {
			t.Errorf("%s: %s (parent %s) is not under %s", c.name, c.span.Name, c.span.Parent.SpanID(), c.from.Name)
		}
	}
	var first, retry int
	hits := rcv.Hits()
	for _, p := range posts {
		switch {
		case p.Parent.SpanID() == dispatch.SpanContext.SpanID():
			first++
		case p.Parent.SpanID() == act.SpanContext.SpanID():
			retry++
		default:
			t.Errorf("POST span %s under %s", p.SpanContext.SpanID(), p.Parent.SpanID())
		}
		want := "00-" + p.SpanContext.TraceID().String() + "-" + p.SpanContext.SpanID().String() + "-01"
		seen := false
		for _, h := range hits {
			seen = seen || h.Header.Get("traceparent") == want
		}
		if !seen {
			t.Errorf("no delivery carried traceparent %s", want)
		}
	}
	// What the receiver got: every POST's traceparent names the request's
	// trace (the trace id the PATCH's server span has).
	if len(hits) < 2 {
		t.Fatalf("the receiver got %d POSTs, want 2", len(hits))
	}
	for i, h := range hits {
		f := strings.Split(h.Header.Get("traceparent"), "-")
		if len(f) != 4 || f[1] != req.SpanContext.TraceID().String() {
			t.Errorf("POST %d to the receiver carried traceparent %q, not in the request's trace %s", i+1,
				h.Header.Get("traceparent"), req.SpanContext.TraceID())
		}
	}
	if first != 1 || retry != 1 {
		t.Fatalf("POST spans under the dispatch %d, under the activity %d; want 1 and 1", first, retry)
	}
	for _, s := range spans {
		if s.Name == "POST" || strings.HasSuffix(s.Name, ":WebhookDelivery") || s.Name == "RunActivity:DeliverWebhook" {
			if s.SpanContext.TraceID() != req.SpanContext.TraceID() {
				t.Errorf("%s in trace %s, not the request's %s", s.Name, s.SpanContext.TraceID(), req.SpanContext.TraceID())
			}
		}
	}
}
