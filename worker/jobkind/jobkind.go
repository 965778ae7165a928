// Package jobkind is the contract between the shared worker (tracker/worker)
// and a job kind (workflows/<kind>): the Registration a kind hands the
// worker, the Env its hooks and dispatchers get, and how a dispatcher marks
// a failure no retry can fix. It is a leaf: a kind imports it and never
// the worker, and the worker knows no kind.
package jobkind

import (
	"context"
	"errors"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"tracker/store"
)

// Registration is how a job kind adds durable work to the worker; each
// kind's Register(Deps) in workflows/<kind>/worker.go returns one, listed in
// cmd/tracker/worker.go (registrations). Every field is optional.
//
//	jobkind.Registration{
//		Name: "capitalization",
//		Register: func(r sdkworker.Registry) {
//			r.RegisterWorkflow(capex.CapitalizationExport)
//			r.RegisterActivity(&capex.Activities{DB: db})
//		},
//		Start: func(ctx context.Context, env jobkind.Env) error {
//			// create the Temporal Schedule; treat "already exists" as success
//		},
//		Topics: map[string]jobkind.Dispatch{"job.capex_export": startExport},
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
	// Topics are outbox topics this kind dispatches (a durable job written
	// with domain.Enqueue in the request's transaction, or an event type it
	// also wants). A row is marked dispatched when every handler of its
	// topic returned nil; an error leaves it pending and it is offered
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

// permanentError marks a dispatch failure no retry can fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return "permanent: " + e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as a dispatch failure that no retry can fix (a payload
// that does not decode, a job naming another org): the relay parks the row
// at once (status dead, logged, counted in outbox_parked_total) instead of
// retrying it. Every kind's Dispatch classifies its errors with it; any
// other error is retried with backoff and parked only after MaxAttempts.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err, or an error it wraps, was marked with
// Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
