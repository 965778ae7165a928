package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"tracker/activities"
	"tracker/domain"
)

// CascadeInput is a purge; Steps and Affected carry its progress across
// continue-as-new (nil Steps: not checked yet).
type CascadeInput struct {
	Job      domain.CascadeJob
	Steps    []string
	Affected int64
}

// CascadeResult is how the purge ended.
type CascadeResult struct {
	Affected int64
	Skipped  string // why nothing was purged, if so
}

// maxCallsPerRun bounds one run's history; the purge continues as new.
const maxCallsPerRun = 500

var cascade *activities.Cascade // activity references; never called directly

// CascadeStepOptions bound each purge call: 5 minutes per attempt with
// heartbeats, retried with backoff, at most 30 attempts within 2 hours.
// A call that exhausts them fails the workflow with the last error as its
// reason (shown in the Temporal UI; the root stays soft-deleted and
// invisible, and resetting the workflow in the UI resumes the purge with
// what is left).
var CascadeStepOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    5 * time.Minute,
	ScheduleToCloseTimeout: 2 * time.Hour,
	HeartbeatTimeout:       10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
		MaximumAttempts: 30},
}

// CascadeDelete purges the dependents of a soft-deleted root leaf first:
// each step is retried until done (activities are idempotent batches that
// commit as they go and heartbeat), so a crash anywhere resumes with what
// is left.
func CascadeDelete(ctx workflow.Context, in CascadeInput) (CascadeResult, error) {
	ctx = workflow.WithActivityOptions(ctx, CascadeStepOptions)
	if in.Steps == nil {
		var check activities.CascadeCheck
		if err := workflow.ExecuteActivity(ctx, cascade.CheckCascade, in.Job).Get(ctx, &check); err != nil {
			return CascadeResult{}, err
		}
		if !check.Proceed {
			return CascadeResult{Skipped: check.Reason}, nil
		}
		in.Steps = check.Steps
	}
	calls := 0
	for len(in.Steps) > 0 {
		step := in.Steps[0]
		for {
			if calls >= maxCallsPerRun {
				return CascadeResult{}, workflow.NewContinueAsNewError(ctx, CascadeDelete, in)
			}
			var r activities.CascadeStepResult
			err := workflow.ExecuteActivity(ctx, cascade.PurgeCascadeStep, activities.CascadeStepInput{Job: in.Job, Step: step}).Get(ctx, &r)
			if err != nil {
				return CascadeResult{Affected: in.Affected}, err
			}
			calls++
			in.Affected += r.Affected
			if r.Done {
				break
			}
		}
		in.Steps = in.Steps[1:]
	}
	workflow.GetLogger(ctx).Info("cascade purge done", "entity_type", in.Job.EntityType,
		"entity_id", in.Job.EntityID, "affected", in.Affected)
	return CascadeResult{Affected: in.Affected}, nil
}
