// Package worker wires Temporal: the client (slog logger, Prometheus
// metrics), one worker on the task queue with every feature's workflows and
// activities, the features' start-up hooks (Schedules), and the outbox relay.
//
// Other features plug in with a Registration (see registration.go); nothing
// here needs to change for them.
package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"tracker/store"
)

// Deps configure the worker.
type Deps struct {
	Log       *slog.Logger
	DB        *store.DB
	Metrics   prometheus.Registerer // the service's one registry
	Address   string                // SERVICE_TEMPORAL_ADDRESS
	Namespace string                // SERVICE_TEMPORAL_NAMESPACE
	TaskQueue string                // SERVICE_TASK_QUEUE

	Webhooks WebhookConfig
	Cascade  CascadeConfig
	Outbox   OutboxConfig
	// StopTimeout is how long a stopping worker lets in-flight activities
	// finish (default 45 s, under the pod's 60 s grace period), so a deploy
	// completes webhook attempts and import batches instead of burning an
	// attempt on each.
	StopTimeout time.Duration
	// PollInterval is the relay's backstop poll (default 2 s); LISTEN/NOTIFY
	// wakes it sooner.
	PollInterval time.Duration

	// Registrations are the other features' workflows, activities, start-up
	// hooks and outbox topics.
	Registrations []Registration
}

// WebhookConfig tunes delivery.
type WebhookConfig struct {
	AllowPrivate bool            // SERVICE_WEBHOOK_ALLOW_PRIVATE
	Schedule     []time.Duration // nil: webhook.RetrySchedule (tests pass a shorter one)
}

// OutboxConfig tunes the relay (zero values: its defaults).
type OutboxConfig struct {
	MaxAttempts int // SERVICE_OUTBOX_MAX_ATTEMPTS: failed dispatches that park a row (default 20)
	Concurrency int // SERVICE_OUTBOX_CONCURRENCY: rows dispatched at once (default 16)
}

// CascadeConfig tunes purges (zero values: the activity's defaults).
type CascadeConfig struct {
	BatchSize  int
	BatchPause time.Duration
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
	c, err := dial(ctx, log, opts)
	if err != nil {
		return nil // ctx ended while Temporal was unreachable
	}
	defer c.Close()

	regs := append([]Registration{builtin(d)}, d.Registrations...)
	var w sdkworker.Worker
	err = retry(ctx, log, "start worker", func() error {
		// A fresh worker per try: one that failed to start is not reused.
		w = sdkworker.New(c, d.TaskQueue, workerOptions(d))
		for _, r := range regs {
			if r.Register != nil {
				r.Register(w)
			}
		}
		return w.Start()
	})
	if err != nil {
		return nil
	}
	defer w.Stop()
	log.Info("worker started", "address", d.Address, "namespace", d.Namespace)

	env := Env{Client: c, TaskQueue: d.TaskQueue, Log: log}
	for _, r := range regs {
		if r.Start == nil {
			continue
		}
		go func() {
			_ = retry(ctx, log.With("registration", r.Name), "start hook", func() error { return r.Start(ctx, env) })
		}()
	}
	relay := &Relay{DB: d.DB, Log: log.With("component", "relay"), Env: env, Topics: topics(regs), Poll: d.PollInterval,
		MaxAttempts: d.Outbox.MaxAttempts, Concurrency: d.Outbox.Concurrency, Metrics: d.Metrics}
	relay.Run(ctx)
	log.Info("worker stopping")
	return nil
}

// DefaultStopTimeout is the worker's default StopTimeout.
const DefaultStopTimeout = 45 * time.Second

// workerOptions bound the worker: a graceful stop, and no more activities
// at once than the database pool has connections (each DB-heavy activity
// holds one; more would only queue inside the pool past their timeouts).
func workerOptions(d Deps) sdkworker.Options {
	o := sdkworker.Options{WorkerStopTimeout: d.StopTimeout}
	if o.WorkerStopTimeout <= 0 {
		o.WorkerStopTimeout = DefaultStopTimeout
	}
	if d.DB != nil && d.DB.Pool != nil {
		o.MaxConcurrentActivityExecutionSize = max(int(d.DB.Pool.Config().MaxConns), 4)
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
