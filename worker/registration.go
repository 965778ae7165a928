package worker

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"tracker/store"
)

// Registration is how a feature adds durable work to the worker; list it in
// cmd/tracker/worker.go (registrations). Every field is optional.
//
//	worker.Registration{
//		Name: "capitalization",
//		Register: func(r sdkworker.Registry) {
//			r.RegisterWorkflow(capex.CapitalizationExport)
//			r.RegisterActivity(&capex.Activities{DB: db})
//		},
//		Start: func(ctx context.Context, env worker.Env) error {
//			// create the Temporal Schedule; treat "already exists" as success
//		},
//		Topics: map[string]worker.Dispatch{"job.capex_export": startExport},
//	}
type Registration struct {
	Name string
	// Register adds workflows and activities to the worker before it starts.
	// Activity names (struct method names) must be unique worker-wide.
	Register func(r sdkworker.Registry)
	// RegisterDB adds the DB-heavy activities (ones that hold a database
	// connection for long: import steps, purge batches) to the worker of
	// the DB queue (workflows.DBTaskQueue), whose concurrency is the
	// database pool's size; the workflow routes them there with
	// workflows.OnDBQueue. Register them in Register too: activity tasks
	// scheduled on the main queue before the routing existed still run.
	RegisterDB func(r sdkworker.Registry)
	// Start runs once the worker is up, in its own goroutine, retried with
	// backoff until it returns nil (create or update Schedules here). It
	// must be idempotent: every worker replica runs it at every start.
	Start func(ctx context.Context, env Env) error
	// Topics are outbox topics this feature dispatches (a durable job
	// written with domain.Enqueue in the request's transaction, or an event
	// type it also wants). A row is marked dispatched when every handler of
	// its topic returned nil; an error leaves it pending and it is offered
	// again, so a handler must be idempotent: start workflows with
	// workflows.StartOnce and an id derived from the row.
	Topics map[string]Dispatch
}

// Dispatch hands one outbox row to Temporal.
type Dispatch func(ctx context.Context, env Env, row store.OutboxRow) error

// Env is what hooks and dispatchers get: the connected client and the task
// queue to start workflows on.
type Env struct {
	Client    client.Client
	TaskQueue string
	Log       *slog.Logger
}

// topics merges every registration's dispatchers by topic.
func topics(regs []Registration) map[string][]Dispatch {
	out := map[string][]Dispatch{}
	for _, r := range regs {
		for t, d := range r.Topics {
			out[t] = append(out[t], d)
		}
	}
	return out
}
