// Package webhookwf is webhook delivery's durable work: the
// WebhookDelivery workflow that makes a delivery's attempts on its retry
// schedule, the relay's dispatchers that make a delivery's first attempt
// directly and hand a failed one to the workflow, and the Registration that
// plugs it into the worker (worker.go). Its activities are in
// tracker/activities/webhook.
package webhookwf

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/webhook"
	"tracker/domain/webhook"
	"tracker/workflows"
)

// WorkflowName is the workflow's registered type name. It is the name the
// workflow had before it moved here, and it must never change: histories in
// flight (24-hour retry schedules) name it.
const WorkflowName = "WebhookDelivery"

// WorkflowID is the id of a delivery (or of its n-th redelivery).
func WorkflowID(in WebhookDeliveryInput) string {
	if in.Redelivery > 0 {
		return webhook.RedeliveryWorkflowID(in.EventID, in.WebhookID, in.Redelivery)
	}
	return webhook.WorkflowID(in.EventID, in.WebhookID)
}

// WebhookDeliveryInput is one event for one webhook.
type WebhookDeliveryInput struct {
	OrgID     uuid.UUID
	WebhookID uuid.UUID
	EventID   uuid.UUID
	EventType string
	// Redelivery is 0 for the original delivery, n for the n-th manual one.
	Redelivery int
	// Schedule holds the attempts' offsets from the workflow's start; empty
	// means webhook.RetrySchedule. It travels in the input (not read from
	// config) so a replay sees the schedule the run started with.
	Schedule []time.Duration
	// FirstAttempt is the index in Schedule of the first attempt this run
	// makes: 1 when the relay made the first attempt itself and it failed
	// (the workflow takes over the retries), 0 otherwise.
	FirstAttempt int `json:",omitempty"`
}

// WebhookDeliveryResult is how the delivery ended.
type WebhookDeliveryResult struct {
	Outcome    string // delivered, gone, skipped, exhausted
	Attempts   int
	StatusCode int
	Disabled   bool // the webhook was switched off (410 or too many failures)
}

// OutcomeExhausted is a delivery that failed every attempt.
const OutcomeExhausted = "exhausted"

var wh *acts.Activities // activity references; never called directly

// WebhookDelivery posts the event at each offset of the schedule until an
// attempt answers 2xx. Every attempt is one activity with a single Temporal
// attempt, recorded as a delivery row; an attempt that never reports back
// (worker crash, timeout) is recorded as lost and the schedule goes on. A 410
// switches the webhook off. A delivery that uses every attempt counts toward
// the webhook's auto-disable threshold.
func WebhookDelivery(ctx workflow.Context, in WebhookDeliveryInput) (WebhookDeliveryResult, error) {
	schedule := in.Schedule
	if len(schedule) == 0 {
		schedule = webhook.RetrySchedule
	}
	start := workflow.GetInfo(ctx).WorkflowStartTime
	attemptCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: webhook.AttemptTimeout + 5*time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	booksCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	ref := acts.WebhookRef{OrgID: in.OrgID, WebhookID: in.WebhookID}
	res := WebhookDeliveryResult{}
	for i, offset := range schedule {
		if i < in.FirstAttempt {
			continue
		}
		if wait := start.Add(offset).Sub(workflow.Now(ctx)); wait > 0 {
			if err := workflow.Sleep(ctx, wait); err != nil {
				return res, err
			}
		}
		attempt := acts.DeliverInput{OrgID: in.OrgID, WebhookID: in.WebhookID, EventID: in.EventID,
			EventType: in.EventType, Redelivery: in.Redelivery, Attempt: i + 1}
		res.Attempts = i + 1
		var r acts.DeliverResult
		if err := workflow.ExecuteActivity(attemptCtx, wh.DeliverWebhook, attempt).Get(ctx, &r); err != nil {
			lost := acts.LostAttemptInput{Attempt: attempt, Reason: lostReason(err)}
			if err := workflow.ExecuteActivity(booksCtx, wh.RecordLostWebhookAttempt, lost).Get(ctx, nil); err != nil {
				return res, err
			}
			workflow.GetLogger(ctx).Warn("webhook attempt lost", "attempt", i+1, "error", err)
			showRetry(ctx, start, schedule, i, lost.Reason)
			continue
		}
		res.StatusCode = r.StatusCode
		switch r.Outcome {
		case acts.OutcomeDelivered, acts.OutcomeSkipped:
			res.Outcome = r.Outcome
			workflows.SetStatus(ctx, r.Outcome, fmt.Sprintf("%s at attempt %d of %d", r.Outcome, i+1, len(schedule)))
			return res, nil
		case acts.OutcomeGone:
			res.Outcome, res.Disabled = r.Outcome, true
			workflows.SetStatus(ctx, r.Outcome, "the receiver answered 410 Gone: webhook switched off")
			in := acts.DisableInput{WebhookRef: ref, Reason: "receiver answered 410 Gone"}
			return res, workflow.ExecuteActivity(booksCtx, wh.DisableWebhook, in).Get(ctx, nil)
		}
		showRetry(ctx, start, schedule, i, r.Reason)
	}
	res.Outcome = OutcomeExhausted
	workflows.SetStatus(ctx, OutcomeExhausted, fmt.Sprintf("all %d attempts failed", len(schedule)))
	if in.Redelivery > 0 { // a manual retry does not count against the webhook
		return res, nil
	}
	var ex acts.ExhaustedResult
	if err := workflow.ExecuteActivity(booksCtx, wh.RecordWebhookExhausted, ref).Get(ctx, &ex); err != nil {
		return res, err
	}
	res.Disabled = ex.Disabled
	return res, nil
}

// showRetry marks a delivery whose attempt i failed as retrying, with when
// the next attempt is due.
func showRetry(ctx workflow.Context, start time.Time, schedule []time.Duration, i int, reason string) {
	if i+1 >= len(schedule) {
		return
	}
	workflows.SetStatus(ctx, "retrying", fmt.Sprintf("attempt %d of %d failed (%s); next at %s", i+1, len(schedule), reason,
		start.Add(schedule[i+1]).UTC().Format(time.RFC3339)))
}

// lostReason is the delivery row's error for an attempt that never came
// back.
func lostReason(err error) string {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return "attempt lost: no result in time (worker stopped or timed out)"
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return "attempt failed: " + ae.Error()
	}
	return "attempt lost: " + err.Error()
}
