// Package worker wires Temporal: the client (slog logger, Prometheus
// metrics), one worker on the task queue with every feature's workflows and
// activities, the features' start-up hooks (Schedules), and the outbox relay.
//
// It knows no feature: every feature's durable work (webhook delivery,
// cascade delete, imports, exports, chat, attachments) plugs in with a
// jobkind.Registration (worker/jobkind), returned by the kind's Register in
// workflows/<kind>/worker.go and listed in cmd/tracker/worker.go;
// nothing here changes for a new one. imports_test.go keeps it so.
package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"tracker/internal/tracing"
	"tracker/store"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps configure the worker.
type Deps struct {
	Log       *slog.Logger
	DB        *store.DB
	Metrics   prometheus.Registerer // the service's one registry
	Address   string                // SERVICE_TEMPORAL_ADDRESS
	Namespace string                // SERVICE_TEMPORAL_NAMESPACE
	TaskQueue string                // SERVICE_TASK_QUEUE
	// Tracing adds the Temporal tracing interceptor to the client (and so
	// to its workers) and a span to each outbox dispatch, the parent of
	// what the row's dispatchers do (nil: off). Features trace their own
	// calls through their config (webhookwf.Deps.Tracing).
	Tracing *tracing.Tracing

	Outbox OutboxConfig
	// StopTimeout is how long a stopping worker lets in-flight activities
	// finish (default 45 s, under the pod's 60 s grace period), so a deploy
	// completes webhook attempts and import batches instead of burning an
	// attempt on each.
	StopTimeout time.Duration
	// HTTPConcurrency is how many outbound HTTP activities run at once
	// (default DefaultHTTPConcurrency); DB-heavy ones are bounded by the
	// database pool instead (see dbWorkerOptions).
	HTTPConcurrency int
	// PollInterval is the relay's backstop poll (default 2 s); LISTEN/NOTIFY
	// wakes it sooner.
	PollInterval time.Duration

	// Registrations are the features' workflows, activities, start-up
	// hooks and outbox topics (webhook delivery, cascade delete, imports,
	// ...): the worker itself knows none of them.
	Registrations []jobkind.Registration
}

// OutboxConfig tunes the relay (zero values: its defaults).
type OutboxConfig struct {
	MaxAttempts int // SERVICE_OUTBOX_MAX_ATTEMPTS: failed dispatches that park a row (default 20)
	Concurrency int // SERVICE_OUTBOX_CONCURRENCY: rows dispatched at once (default DefaultConcurrency, 128)
}

// Run connects to Temporal (retrying with backoff for as long as it is
// unreachable: the API of `tracker dev` keeps serving and the outbox keeps
// filling), then runs the worker and the relay until ctx ends. It returns
// nil when ctx ends; only a broken configuration is an error.
func Run(ctx context.Context, d Deps) error {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	log := d.Log.With("component", "worker", "task_queue", d.TaskQueue)
	opts := client.Options{
		HostPort:  d.Address,
		Namespace: d.Namespace,
		Logger:    tlog.NewStructuredLogger(d.Log.With("component", "temporal")),
	}
	if d.Metrics != nil {
		opts.MetricsHandler = NewMetricsHandler(d.Metrics)
	}
	if d.Tracing.Enabled() {
		ti, err := d.Tracing.TemporalInterceptor()
		if err != nil {
			return err
		}
		opts.Interceptors = append(opts.Interceptors, ti)
	}
	c, err := dial(ctx, log, opts)
	if err != nil {
		return nil // ctx ended while Temporal was unreachable
	}
	defer c.Close()
	ns := d.Namespace
	if ns == "" {
		ns = client.DefaultNamespace
	}
	// The relay starts workflows with the custom search attributes: they
	// must exist first. A namespace whose operator API is closed to the
	// worker (a hosted Temporal) has them registered by its operator.
	err = retry(ctx, log, "register search attributes", func() error {
		err := EnsureSearchAttributes(ctx, c, ns)
		var denied *serviceerror.PermissionDenied
		if errors.As(err, &denied) {
			log.Warn("may not register search attributes; register them with the operator CLI", "error", err)
			return nil
		}
		return err
	})
	if err != nil {
		return nil
	}

	regs := d.Registrations
	// Two workers: workflows and outbound HTTP activities on the task
	// queue, DB-heavy activities on the DB queue beside it, each with its
	// own limit of activities at once.
	for _, q := range []struct {
		name     string
		opts     sdkworker.Options
		register func(jobkind.Registration) func(sdkworker.Registry)
	}{
		{d.TaskQueue, workerOptions(d), func(r jobkind.Registration) func(sdkworker.Registry) { return r.Register }},
		{workflows.DBTaskQueue(d.TaskQueue), dbWorkerOptions(d), func(r jobkind.Registration) func(sdkworker.Registry) { return r.RegisterDB }},
	} {
		var w sdkworker.Worker
		err = retry(ctx, log, "start worker", func() error {
			// A fresh worker per try: one that failed to start is not reused.
			w = sdkworker.New(c, q.name, q.opts)
			for _, r := range regs {
				if reg := q.register(r); reg != nil {
					reg(w)
				}
			}
			return w.Start()
		})
		if err != nil {
			return nil
		}
		defer w.Stop()
	}
	log.Info("worker started", "address", d.Address, "namespace", d.Namespace)

	env := jobkind.Env{Client: c, TaskQueue: d.TaskQueue, Log: log}
	for _, r := range regs {
		if r.Start == nil {
			continue
		}
		go func() {
			_ = retry(ctx, log.With("registration", r.Name), "start hook", func() error { return r.Start(ctx, env) })
		}()
	}
	relay := &Relay{DB: d.DB, Log: log.With("component", "relay"), Env: env, Topics: topics(regs), Poll: d.PollInterval,
		MaxAttempts: d.Outbox.MaxAttempts, Concurrency: d.Outbox.Concurrency, Metrics: d.Metrics, Tracing: d.Tracing}
	relay.Run(ctx)
	log.Info("worker stopping")
	return nil
}

// DefaultStopTimeout is the worker's default StopTimeout.
const DefaultStopTimeout = 45 * time.Second

// DefaultHTTPConcurrency is how many outbound HTTP activities (webhook
// attempts, chat posts) a worker runs at once: they wait on receivers, not
// on the database, so many more than the pool's connections.
const DefaultHTTPConcurrency = 64

// workerOptions bound the main worker (workflows, outbound HTTP): a
// graceful stop, and HTTPConcurrency activities at once.
func workerOptions(d Deps) sdkworker.Options {
	o := sdkworker.Options{WorkerStopTimeout: d.StopTimeout, MaxConcurrentActivityExecutionSize: d.HTTPConcurrency}
	if o.WorkerStopTimeout <= 0 {
		o.WorkerStopTimeout = DefaultStopTimeout
	}
	if o.MaxConcurrentActivityExecutionSize <= 0 {
		o.MaxConcurrentActivityExecutionSize = DefaultHTTPConcurrency
	}
	return o
}

// dbWorkerOptions bound the DB queue's worker: no more activities at once
// than the database pool has connections (each DB-heavy activity holds
// one; more would only queue inside the pool past their timeouts), less a
// quarter left to the relay and the short bookkeeping activities.
func dbWorkerOptions(d Deps) sdkworker.Options {
	o := workerOptions(d)
	o.MaxConcurrentActivityExecutionSize = 4
	if d.DB != nil && d.DB.Pool != nil {
		o.MaxConcurrentActivityExecutionSize = max(int(d.DB.Pool.Config().MaxConns)*3/4, 2)
	}
	return o
}

// dial connects, retrying until it works or ctx ends.
func dial(ctx context.Context, log *slog.Logger, opts client.Options) (client.Client, error) {
	var c client.Client
	err := retry(ctx, log, "connect to Temporal", func() error {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var err error
		c, err = client.DialContext(dctx, opts)
		return err
	})
	return c, err
}

// retry runs fn until it returns nil, backing off from 1 s to 10 s and
// logging each failure; it gives up only when ctx ends.
func retry(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := time.Second
	for {
		err := fn()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Warn(what+" failed; retrying", "error", err, "retry_in", wait.String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 10*time.Second)
	}
}
