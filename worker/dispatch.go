package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	sdkworker "go.temporal.io/sdk/worker"

	"tracker/activities"
	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/webhookdb"
	"tracker/workflows"
)

// builtin is the events feature's own registration: webhook delivery and
// cascade purges.
func builtin(d Deps) Registration {
	b := newBuiltins(d)
	t := map[string]Dispatch{
		domain.TopicCascadeDelete: b.cascade,
		webhook.TopicRedeliver:    b.redeliver,
	}
	for _, et := range domain.EventTypes {
		t[et] = b.event
	}
	hooks := b.hooks
	cascade := &activities.Cascade{DB: d.DB, BatchSize: d.Cascade.BatchSize, BatchPause: d.Cascade.BatchPause,
		Budget: d.Cascade.Budget}
	return Registration{
		Name: "events",
		Register: func(r sdkworker.Registry) {
			r.RegisterWorkflow(workflows.WebhookDelivery)
			r.RegisterWorkflow(workflows.CascadeDelete)
			r.RegisterActivity(hooks)
			r.RegisterActivity(cascade)
		},
		RegisterDB: func(r sdkworker.Registry) { r.RegisterActivity(cascade) },
		Topics:     t,
	}
}

type builtins struct {
	db       *store.DB
	hooks    *activities.Webhooks
	schedule []time.Duration
	// cascadeCalls is CascadeConfig.MaxCalls.
	cascadeCalls int
}

// newBuiltins fixes the retry schedule every delivery carries in its input:
// the configured one, else webhook.RetrySchedule as it is now. An in-flight
// run thus replays against the schedule it started with, whatever the
// constant later becomes.
func newBuiltins(d Deps) builtins {
	schedule := slices.Clone(d.Webhooks.Schedule)
	if len(schedule) == 0 {
		schedule = slices.Clone(webhook.RetrySchedule)
	}
	return builtins{db: d.DB, schedule: schedule, cascadeCalls: d.Cascade.MaxCalls,
		hooks: &activities.Webhooks{DB: d.DB, HTTP: activities.NewHTTPClient(d.Webhooks.AllowPrivate),
			Attempts: activities.NewAttemptsCounter(d.Metrics)}}
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
func (b builtins) event(ctx context.Context, env Env, row store.OutboxRow) error {
	ids, err := webhookdb.Subscribed(ctx, b.db.Q(), row.OrgID, row.Topic)
	if err != nil {
		return err
	}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.deliver(ctx, env, row, id)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// deliver makes the first attempt of one delivery and hands a failed one
// to Temporal.
func (b builtins) deliver(ctx context.Context, env Env, row store.OutboxRow, webhookID uuid.UUID) error {
	in := workflows.WebhookDeliveryInput{OrgID: row.OrgID, WebhookID: webhookID, EventID: row.ID, EventType: row.Topic,
		Schedule: b.schedule}
	first := activities.DeliverInput{OrgID: row.OrgID, WebhookID: webhookID, EventID: row.ID, EventType: row.Topic, Attempt: 1}
	res, err := b.hooks.Attempt(ctx, first)
	switch {
	case err != nil:
		// The books could not be read or written: the workflow makes every
		// attempt, the first one included (recorded once, by its key).
		env.Log.Warn("webhook first attempt not made here; Temporal makes it", "webhook_id", webhookID,
			"event_id", row.ID, "error", err)
	case res.Outcome == activities.OutcomeDelivered || res.Outcome == activities.OutcomeSkipped:
		return nil
	case res.Outcome == activities.OutcomeGone:
		return webhookdb.Disable(ctx, b.db.Q(), row.OrgID, webhookID, "receiver answered 410 Gone", time.Now().UTC())
	default:
		in.FirstAttempt = 1
	}
	if len(in.Schedule) <= in.FirstAttempt { // a schedule of one attempt: it was made
		return nil
	}
	job := workflows.Job{OrgID: row.OrgID, Kind: workflows.KindWebhook,
		Summary: fmt.Sprintf("Delivery of %s %s to webhook %s", row.Topic, row.ID, webhookID)}
	return workflows.StartJob(ctx, env.Client, workflows.WebhookWorkflowID(in), env.TaskQueue, job, workflows.WebhookDelivery, in)
}

// cascade starts the purge of a soft-deleted root.
func (b builtins) cascade(ctx context.Context, env Env, row store.OutboxRow) error {
	var job domain.CascadeJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return Permanent(fmt.Errorf("cascade job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartJob(ctx, env.Client, workflows.CascadeWorkflowID(job), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindCascade,
			Summary: fmt.Sprintf("Purge of %s %s and everything under it", job.EntityType, job.EntityID)},
		workflows.CascadeDelete, workflows.CascadeInput{Job: job, MaxCalls: b.cascadeCalls})
}

// redeliver starts a manual redelivery: one attempt, now.
func (b builtins) redeliver(ctx context.Context, env Env, row store.OutboxRow) error {
	var job webhook.RedeliverJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID || job.Redelivery < 1 {
		return Permanent(fmt.Errorf("redelivery %s does not decode or is not valid: %v", row.ID, err))
	}
	in := workflows.WebhookDeliveryInput{OrgID: job.OrgID, WebhookID: job.WebhookID, EventID: job.EventID,
		EventType: job.EventType, Redelivery: job.Redelivery, Schedule: []time.Duration{0}}
	return workflows.StartJob(ctx, env.Client, workflows.WebhookWorkflowID(in), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindWebhook,
			Summary: fmt.Sprintf("Redelivery #%d of %s %s to webhook %s", job.Redelivery, job.EventType, job.EventID, job.WebhookID)},
		workflows.WebhookDelivery, in)
}
