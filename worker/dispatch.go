package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

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
	return Registration{
		Name: "events",
		Register: func(r sdkworker.Registry) {
			r.RegisterWorkflow(workflows.WebhookDelivery)
			r.RegisterWorkflow(workflows.CascadeDelete)
			r.RegisterActivity(&activities.Webhooks{DB: d.DB, HTTP: activities.NewHTTPClient(d.Webhooks.AllowPrivate)})
			r.RegisterActivity(&activities.Cascade{DB: d.DB, BatchSize: d.Cascade.BatchSize, BatchPause: d.Cascade.BatchPause})
		},
		Topics: t,
	}
}

type builtins struct {
	db       *store.DB
	schedule []time.Duration
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
	return builtins{db: d.DB, schedule: schedule}
}

// event starts one WebhookDelivery per active webhook of the org subscribed
// to the event's type (the outbox topic is the event type; the outbox id is
// the event id).
func (b builtins) event(ctx context.Context, env Env, row store.OutboxRow) error {
	ids, err := webhookdb.Subscribed(ctx, b.db.Q(), row.OrgID, row.Topic)
	if err != nil {
		return err
	}
	for _, id := range ids {
		in := workflows.WebhookDeliveryInput{OrgID: row.OrgID, WebhookID: id, EventID: row.ID, EventType: row.Topic,
			Schedule: b.schedule}
		if err := workflows.StartOnce(ctx, env.Client, workflows.WebhookWorkflowID(in), env.TaskQueue,
			workflows.WebhookDelivery, in); err != nil {
			return err
		}
	}
	return nil
}

// cascade starts the purge of a soft-deleted root.
func (b builtins) cascade(ctx context.Context, env Env, row store.OutboxRow) error {
	var job domain.CascadeJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return Permanent(fmt.Errorf("cascade job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, workflows.CascadeWorkflowID(job), env.TaskQueue,
		workflows.CascadeDelete, workflows.CascadeInput{Job: job})
}

// redeliver starts a manual redelivery: one attempt, now.
func (b builtins) redeliver(ctx context.Context, env Env, row store.OutboxRow) error {
	var job webhook.RedeliverJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID || job.Redelivery < 1 {
		return Permanent(fmt.Errorf("redelivery %s does not decode or is not valid: %v", row.ID, err))
	}
	in := workflows.WebhookDeliveryInput{OrgID: job.OrgID, WebhookID: job.WebhookID, EventID: job.EventID,
		EventType: job.EventType, Redelivery: job.Redelivery, Schedule: []time.Duration{0}}
	return workflows.StartOnce(ctx, env.Client, workflows.WebhookWorkflowID(in), env.TaskQueue, workflows.WebhookDelivery, in)
}
