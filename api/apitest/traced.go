package apitest

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"tracker/api"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/store/storetest"
)

// Traced is a World traced as cmd/tracker traces the service: the app with
// the request middleware, on a pool with the SQL (pgx) tracer, both
// exporting to Spans in memory. DB is that pool and Tracing the tracing,
// for a worker under test to share.
type Traced struct {
	World
	Spans   *tracetest.InMemoryExporter
	DB      *store.DB
	Tracing *tracing.Tracing
}

// NewTracedWorld builds the traced app with modules (its feature modules,
// as Options.Modules) and the world in it.
func NewTracedWorld(t testing.TB, modules func(e *Env) []api.Module) Traced {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tr := tracing.New(tp)
	_, url := storetest.NewWithURL(t)
	db, err := store.Open(context.Background(), url, store.WithTracer(tr.PgxTracer()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	w := NewWorld(t, Options{DB: db, DBURL: url, Tracing: tr, Modules: modules})
	return Traced{World: w, Spans: exp, DB: db, Tracing: tr}
}
