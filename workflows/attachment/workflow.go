// Package attachmentwf holds the attachment workflows: the removal of the
// objects of deleted attachments (started by the outbox relay for a delete
// or a cascade purge), the verification of an attachment confirmed before
// its object arrived, and the hourly cleanup of uploads never confirmed.
package attachmentwf

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/attachment"
	"tracker/domain/attachment"
)

// Registered workflow types.
const (
	DeleteWorkflowName = "AttachmentObjectsDelete"
	SweepWorkflowName  = "AttachmentUploadsSweep"
	VerifyWorkflowName = "AttachmentVerify"
)

// The verification looks for the object after VerifyFirstWait, then
// doubling waits up to VerifyMaxWait: an upload right after its confirm is
// seen within seconds, and a day of waiting is a few hundred looks.
const (
	VerifyFirstWait = time.Second
	VerifyMaxWait   = 10 * time.Minute
)

// SweepPageSize is the objects one activity call lists; SweepPagesPerRun
// bounds one run's history before it continues as new.
const (
	SweepPageSize    = 1000
	SweepPagesPerRun = 100
)

// DeleteObjects removes the objects of a DeleteJob. The storage may be down
// for a while: the activity is retried with backoff for up to a week.
func DeleteObjects(ctx workflow.Context, job attachment.DeleteJob) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    5 * time.Minute,
		HeartbeatTimeout:       time.Minute,
		ScheduleToCloseTimeout: 7 * 24 * time.Hour,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute},
	})
	return workflow.ExecuteActivity(ctx, acts.DeleteObjectsName, job).Get(ctx, nil)
}

// SweepInput carries a sweep's progress across continue-as-new; a run the
// Schedule starts is empty.
type SweepInput struct {
	After   string    `json:"after"`
	Cutoff  time.Time `json:"cutoff"`
	Deleted int       `json:"deleted"`
}

// SweepResult counts what the sweep removed.
type SweepResult struct {
	Deleted int `json:"deleted"`
}

// Sweep removes objects under the attachments prefix older than
// attachment.UnconfirmedTTL that no attachment row records.
func Sweep(ctx workflow.Context, in SweepInput) (SweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 10},
	})
	if in.Cutoff.IsZero() {
		in.Cutoff = workflow.Now(ctx).Add(-attachment.UnconfirmedTTL)
	}
	for range SweepPagesPerRun {
		var page attachment.SweepPage
		err := workflow.ExecuteActivity(ctx, acts.SweepPageName, acts.SweepInput{After: in.After, Cutoff: in.Cutoff, Limit: SweepPageSize}).Get(ctx, &page)
		if err != nil {
			return SweepResult{Deleted: in.Deleted}, err
		}
		in.Deleted += page.Deleted
		if page.Next == "" {
			workflow.GetLogger(ctx).Info("unconfirmed uploads swept", "deleted", in.Deleted)
			return SweepResult{Deleted: in.Deleted}, nil
		}
		in.After = page.Next
	}
	return SweepResult{Deleted: in.Deleted}, workflow.NewContinueAsNewError(ctx, SweepWorkflowName, in)
}

// Verify waits for a pending attachment's object: it looks at once, then
// with backoff until the job's deadline, and a last time at the deadline,
// when a still missing object removes the attachment. The result is the
// last look's.
func Verify(ctx workflow.Context, job attachment.VerifyJob) (attachment.Verification, error) {
	// A storage or database that does not answer is retried (with backoff,
	// for up to a week): the outcome must come from an answer.
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    time.Minute,
		ScheduleToCloseTimeout: 7 * 24 * time.Hour,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute},
	})
	wait := VerifyFirstWait
	for {
		final := !workflow.Now(ctx).Before(job.Deadline)
		var v attachment.Verification
		if err := workflow.ExecuteActivity(ctx, acts.VerifyName, acts.VerifyInput{Job: job, Final: final}).Get(ctx, &v); err != nil {
			return v, err
		}
		if v.Outcome != attachment.OutcomePending {
			return v, nil
		}
		if left := job.Deadline.Sub(workflow.Now(ctx)); left < wait {
			wait = max(left, 0)
		}
		if err := workflow.Sleep(ctx, wait); err != nil {
			return v, err
		}
		wait = min(2*wait, VerifyMaxWait)
	}
}
