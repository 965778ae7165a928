// Package cascadewf is cascade delete's durable work: the CascadeDelete
// workflow that purges a soft-deleted root's dependents step by step
// (continuing as new on long purges), the relay's dispatcher of
// domain.TopicCascadeDelete jobs, and the Registration that plugs it into
// the worker (worker.go). Its activities are in
// tracker/activities/cascade.
package cascadewf

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/cascade"
	"tracker/domain"
	"tracker/workflows"
)

// WorkflowName is the workflow's registered type name. It is the name the
// workflow had before it moved here, and it must never change: histories in
// flight name it (continue-as-new included).
const WorkflowName = "CascadeDelete"

// WorkflowID is the id of a root's purge.
func WorkflowID(job domain.CascadeJob) string {
	return fmt.Sprintf("cascade:%s:%s", job.EntityType, job.EntityID)
}

// CascadeInput is a purge; Steps and Affected carry its progress across
// continue-as-new (nil Steps: not checked yet).
type CascadeInput struct {
	Job      domain.CascadeJob
	Steps    []string
	Affected int64
	// MaxCalls is how many purge calls one run makes before it continues
	// as new (0: 500; tests lower it).
	MaxCalls int `json:",omitempty"`
}

// CascadeResult is how the purge ended.
type CascadeResult struct {
	Affected int64
	Skipped  string // why nothing was purged, if so
}

// MemoAffected is the memo key of the rows purged so far; the count rides
// in the input, so it carries on across continue-as-new.
const MemoAffected = "affected"

// maxCallsPerRun bounds one run's history; the purge continues as new.
const maxCallsPerRun = 500

var cascade *acts.Activities // activity references; never called directly

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
	ctx = workflows.OnDBQueue(ctx, CascadeStepOptions)
	if in.Steps == nil {
		var check acts.CascadeCheck
		if err := workflow.ExecuteActivity(ctx, cascade.CheckCascade, in.Job).Get(ctx, &check); err != nil {
			return CascadeResult{}, err
		}
		if !check.Proceed {
			workflows.SetStatus(ctx, "skipped", check.Reason)
			return CascadeResult{Skipped: check.Reason}, nil
		}
		in.Steps = check.Steps
	}
	calls, limit := 0, maxCallsPerRun
	if in.MaxCalls > 0 {
		limit = in.MaxCalls
	}
	for len(in.Steps) > 0 {
		step := in.Steps[0]
		for {
			if calls >= limit {
				return CascadeResult{}, workflow.NewContinueAsNewError(ctx, WorkflowName, in)
			}
			var r acts.CascadeStepResult
			err := workflow.ExecuteActivity(ctx, cascade.PurgeCascadeStep, acts.CascadeStepInput{Job: in.Job, Step: step}).Get(ctx, &r)
			if err != nil {
				return CascadeResult{Affected: in.Affected}, err
			}
			calls++
			in.Affected += r.Affected
			workflows.SetStatus(ctx, "purging", fmt.Sprintf("step %s; %d rows purged so far", step, in.Affected))
			_ = workflow.UpsertMemo(ctx, map[string]any{MemoAffected: in.Affected})
			if r.Done {
				break
			}
		}
		in.Steps = in.Steps[1:]
	}
	workflows.SetStatus(ctx, "done", fmt.Sprintf("%d rows purged", in.Affected))
	workflow.GetLogger(ctx).Info("cascade purge done", "entity_type", in.Job.EntityType,
		"entity_id", in.Job.EntityID, "affected", in.Affected)
	return CascadeResult{Affected: in.Affected}, nil
}
