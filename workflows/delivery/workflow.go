// Package deliverywf holds the durable delivery of personal notifications:
// one email digest workflow per user (signal-with-start), the relay's
// dispatcher of notification.created rows (email and chat), and the
// hourly due-soon sweep.
package deliverywf

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/delivery"
)

// Registered names of the workflows and the digest's signal.
const (
	DigestWorkflowName = "NotificationEmailDigest"
	SweepWorkflowName  = "NotificationDueSoonSweep"
	// SignalName carries one notification id to a user's digest.
	SignalName = "notification"
)

// DigestWorkflowID is a user's one digest workflow.
func DigestWorkflowID(userID uuid.UUID) string { return "notify-email:" + userID.String() }

// DigestInput starts (or continues as new) a user's digest: the
// notifications already collected and not yet sent.
type DigestInput struct {
	UserID  uuid.UUID   `json:"user_id"`
	Pending []uuid.UUID `json:"pending,omitempty"`
	// Minute is how long one of the user's digest_minutes lasts (0: a
	// minute). Only tests shrink it (TRACKER_TEST_DIGEST_MINUTE); it
	// travels in the input, so a replay waits as the run did.
	Minute time.Duration `json:"minute,omitempty"`
	// MaxWindows is how many digests a run sends before it continues as
	// new (0: MaxWindows). Only tests lower it.
	MaxWindows int `json:"max_windows,omitempty"`
}

// minute is the length of one digest minute of in.
func (in DigestInput) minute() time.Duration {
	if in.Minute > 0 {
		return in.Minute
	}
	return time.Minute
}

// maxWindows is the windows a run of in sends before it continues as new.
func (in DigestInput) maxWindows() int {
	if in.MaxWindows > 0 {
		return in.MaxWindows
	}
	return MaxWindows
}

// MaxWindows is how many digests a run sends before it continues as new,
// so a busy user's history stays short.
const MaxWindows = 50

// sendRetry is the policy of a digest's send: SMTP 4xx and 5xx answers
// other than a refused address are retried with backoff for about a day.
var sendRetry = &temporal.RetryPolicy{InitialInterval: 30 * time.Second, BackoffCoefficient: 2,
	MaximumInterval: 2 * time.Hour, MaximumAttempts: 20}

// EmailDigest collects a user's notifications (signals) and sends one email
// per window: the window opens with the first notification after a send
// and lasts the user's digest_minutes, read when it opens (0: at once).
// The run ends when nothing is pending (the next notification starts a new
// one) and continues as new after MaxWindows (in.MaxWindows) or when
// Temporal suggests it, carrying the pending notifications and its input's
// settings.
// A digest whose retries run out is dropped from email; the inbox keeps it.
func EmailDigest(ctx workflow.Context, in DigestInput) error {
	ch := workflow.GetSignalChannel(ctx, SignalName)
	pending := in.Pending
	drain := func() {
		var id uuid.UUID
		for ch.ReceiveAsync(&id) {
			pending = append(pending, id)
		}
	}
	dbCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 15}})
	sendCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: sendRetry})
	log := workflow.GetLogger(ctx)
	for windows := 0; ; windows++ {
		drain()
		if len(pending) == 0 {
			return nil
		}
		if windows >= in.maxWindows() || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			next := in
			next.Pending = pending
			return workflow.NewContinueAsNewError(ctx, DigestWorkflowName, next)
		}
		var minutes int
		if err := workflow.ExecuteActivity(dbCtx, acts.DigestMinutesName, acts.UserInput{UserID: in.UserID}).Get(ctx, &minutes); err != nil {
			return err
		}
		if minutes > 0 {
			fired := false
			sel := workflow.NewSelector(ctx)
			sel.AddFuture(workflow.NewTimer(ctx, time.Duration(minutes)*in.minute()), func(workflow.Future) { fired = true })
			sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) {
				var id uuid.UUID
				c.Receive(ctx, &id)
				pending = append(pending, id)
			})
			for !fired {
				sel.Select(ctx)
			}
		}
		drain()
		batch := pending
		pending = nil
		var res acts.SendResult
		err := workflow.ExecuteActivity(sendCtx, acts.SendDigestName, acts.SendInput{UserID: in.UserID, IDs: batch}).Get(ctx, &res)
		if err != nil {
			log.Error("email digest not sent; its notifications stay in the inbox only", "notifications", len(batch), "error", err)
		}
	}
}

// DueSoonSweep runs the due-soon sweep once (the hourly Schedule's action).
func DueSoonSweep(ctx workflow.Context) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute,
			MaximumAttempts: 10}})
	var n int
	err := workflow.ExecuteActivity(ctx, acts.SweepDueSoonName).Get(ctx, &n)
	return n, err
}
