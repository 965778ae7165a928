package webhookwf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/webhook"
	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/internal/safehttp"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/store/webhookdb"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what webhook delivery needs from the process; every field but DB
// has a production zero value.
type Deps struct {
	DB           *store.DB
	AllowPrivate bool            // SERVICE_WEBHOOK_ALLOW_PRIVATE: receivers on private addresses (dev, tests)
	Schedule     []time.Duration // nil: webhook.RetrySchedule (tests pass a shorter one)
	// Metrics is where webhook_attempts_total{outcome, by} goes (nil:
	// counted, not exported).
	Metrics prometheus.Registerer
	// Tracing makes a client span of every POST to a receiver (the relay's
	// first attempt and the activity's retries) and sends its traceparent
	// header (nil: off).
	Tracing *tracing.Tracing
}

// Register is webhook delivery's part of the worker: the WebhookDelivery
// workflow and its activities, and the relay's dispatchers of every event
// type (the first attempt, made directly) and of manual redeliveries.
func Register(d Deps) jobkind.Registration {
	disp := newDispatcher(d)
	t := map[string]jobkind.Dispatch{webhook.TopicRedeliver: disp.redeliver}
	for _, et := range domain.EventTypes {
		t[et] = disp.event
	}
	return jobkind.Registration{
		Name:     "webhooks",
		Register: func(r sdkworker.Registry) { RegisterOn(r, disp.hooks) },
		Topics:   t,
	}
}

// RegisterOn puts the workflow, under its registered name, and its
// activities on a worker (or a test environment).
func RegisterOn(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(WebhookDelivery, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivity(a)
}

// dispatcher hands events and redeliveries from the outbox to receivers
// and to Temporal.
type dispatcher struct {
	hooks    *acts.Activities
	relay    acts.Relay
	schedule []time.Duration
}

// newDispatcher fixes the retry schedule every delivery carries in its
// input: the configured one, else webhook.RetrySchedule as it is now. An
// in-flight run thus replays against the schedule it started with, whatever
// the constant later becomes.
func newDispatcher(d Deps) dispatcher {
	schedule := slices.Clone(d.Schedule)
	if len(schedule) == 0 {
		schedule = slices.Clone(webhook.RetrySchedule)
	}
	hooks := &acts.Activities{DB: d.DB, HTTP: safehttp.NewClient(d.AllowPrivate, webhook.AttemptTimeout),
		Attempts: acts.NewAttemptsCounter(d.Metrics), Tracing: d.Tracing}
	return dispatcher{schedule: schedule, hooks: hooks, relay: acts.Relay{Activities: hooks}}
}

// event delivers the event to every active webhook of the org subscribed
// to its type (the outbox topic is the event type; the outbox id is the
// event id), all at once. The first attempt is made here, directly: most
// receivers answer 2xx and the delivery is then done with no workflow at
// all. Only a delivery whose first attempt failed starts a WebhookDelivery
// workflow, which makes the rest of the retry schedule (FirstAttempt 1).
//
// At least once, under one delivery id: every attempt is recorded by
// (event, webhook, attempt) before it is posted and finished after, so a
// row offered again (this process died, or starting the workflow failed)
// reports a finished first attempt instead of posting it again, and posts
// again only one whose process died mid-request.
func (d dispatcher) event(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	hooks, err := d.relay.Subscribed(ctx, row.OrgID, row.Topic)
	if err != nil {
		return err
	}
	errs := make([]error, len(hooks))
	var wg sync.WaitGroup
	for i, w := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.deliver(ctx, env, row, w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// deliver makes the first attempt of one delivery and hands a failed one
// to Temporal.
func (d dispatcher) deliver(ctx context.Context, env jobkind.Env, row store.OutboxRow, w webhookdb.Row) error {
	webhookID := w.ID
	in := WebhookDeliveryInput{OrgID: row.OrgID, WebhookID: webhookID, EventID: row.ID, EventType: row.Topic,
		Schedule: d.schedule}
	first := acts.DeliverInput{OrgID: row.OrgID, WebhookID: webhookID, EventID: row.ID, EventType: row.Topic, Attempt: 1}
	res, err := d.hooks.Attempt(ctx, first, w, row.Payload)
	switch {
	case err != nil:
		// The books could not be read or written: the workflow makes every
		// attempt, the first one included (recorded once, by its key).
		env.Log.Warn("webhook first attempt not made here; Temporal makes it", "webhook_id", webhookID,
			"event_id", row.ID, "error", err)
	case res.Outcome == acts.OutcomeDelivered || res.Outcome == acts.OutcomeSkipped:
		return nil
	case res.Outcome == acts.OutcomeGone:
		return d.relay.Disable(ctx, row.OrgID, webhookID, "receiver answered 410 Gone")
	default:
		in.FirstAttempt = 1
	}
	if len(in.Schedule) <= in.FirstAttempt { // a schedule of one attempt: it was made
		return nil
	}
	job := workflows.Job{OrgID: row.OrgID, Kind: workflows.KindWebhook,
		Summary: fmt.Sprintf("Delivery of %s %s to webhook %s", row.Topic, row.ID, webhookID)}
	return workflows.StartJob(ctx, env.Client, WorkflowID(in), env.TaskQueue, job, WorkflowName, in)
}

// redeliver starts a manual redelivery: one attempt, now.
func (d dispatcher) redeliver(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job webhook.RedeliverJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID || job.Redelivery < 1 {
		return jobkind.Permanent(fmt.Errorf("redelivery %s does not decode or is not valid: %v", row.ID, err))
	}
	in := WebhookDeliveryInput{OrgID: job.OrgID, WebhookID: job.WebhookID, EventID: job.EventID,
		EventType: job.EventType, Redelivery: job.Redelivery, Schedule: []time.Duration{0}}
	return workflows.StartJob(ctx, env.Client, WorkflowID(in), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindWebhook,
			Summary: fmt.Sprintf("Redelivery #%d of %s %s to webhook %s", job.Redelivery, job.EventType, job.EventID, job.WebhookID)},
		WorkflowName, in)
}
