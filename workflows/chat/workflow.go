// Package chatwf is the ChatNotification workflow: post one notification
// to the chat service, honouring its rate limits, and end with the outcome
// on the delivery record.
package chatwf

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/chat"
)

// WorkflowName is the registered name.
const WorkflowName = "ChatNotification"

// WorkflowID is the id of a notification's workflow.
func WorkflowID(notificationID uuid.UUID) string {
	return "chat-notification:" + notificationID.String()
}

// Input names the notification.
type Input struct {
	NotificationID uuid.UUID `json:"notification_id"`
}

// RetryPolicy of a post: transient failures back off from 2 s to 5 min over
// 10 attempts (about 20 minutes); a 429 waits Slack's Retry-After instead
// (NextRetryDelay); permanent errors are not retried.
func RetryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute,
		MaximumAttempts: 10, NonRetryableErrorTypes: []string{acts.ErrPermanent}}
}

// ChatNotification posts the notification; when its retries run out the
// record is marked failed. The workflow itself never fails on a delivery
// problem: the record says what happened.
func ChatNotification(ctx workflow.Context, in Input) (acts.PostResult, error) {
	res, _, err := post(ctx, in.NotificationID)
	return res, err
}

// post runs the post of one delivery record and, when its retries run out,
// marks it failed; reason is the last error of a failed post.
func post(ctx workflow.Context, id uuid.UUID) (res acts.PostResult, reason string, err error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: RetryPolicy()})
	err = workflow.ExecuteActivity(ctx, acts.PostNotificationName, acts.PostInput{NotificationID: id}).Get(ctx, &res)
	if err == nil {
		return res, "", nil
	}
	var ae *temporal.ApplicationError
	msg := err.Error()
	if errors.As(err, &ae) {
		msg = ae.Message()
	}
	if errors.As(err, &ae) && ae.Type() == acts.ErrPermanent {
		return acts.PostResult{Status: "failed"}, msg, nil // recorded by the activity
	}
	if ferr := workflow.ExecuteActivity(ctx, acts.MarkFailedName, acts.FailInput{NotificationID: id, Error: msg}).Get(ctx, nil); ferr != nil {
		return acts.PostResult{}, msg, ferr
	}
	return acts.PostResult{Status: "failed"}, msg, nil
}
