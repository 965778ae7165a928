// Package cascadeact holds the activities of cascade delete: the purge's
// check and its steps, idempotent batches that commit as they go and
// heartbeat. The workflow that orders them is tracker/workflows/cascade.
// Activity names (the method names) must not change: histories in flight
// name them.
package cascadeact

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/store"
	"tracker/store/cascadedb"
)

// Activities purge the dependents of soft-deleted roots.
type Activities struct {
	DB *store.DB
	// BatchSize is the rows per transaction (default 500).
	BatchSize int
	// Budget is how long one activity call keeps deleting before it hands
	// back to the workflow, which calls again (default 20 s).
	Budget time.Duration
	// BatchPause sleeps between batches: gentler on a busy database, and
	// lets tests stop a worker mid-purge.
	BatchPause time.Duration

	// inBatch, when set (tests), runs inside each batch's transaction after
	// its statement: a test holds a batch open to race another attempt.
	inBatch func(ctx context.Context) error
}

// CascadeCheck is the purge's plan, read once at its start.
type CascadeCheck struct {
	Proceed bool
	Reason  string
	Steps   []string
}

// ErrTypeCascadeRootLive is the non-retryable error type of a purge asked
// for a root that is not deleted.
const ErrTypeCascadeRootLive = "CascadeRootLive"

// CheckCascade verifies that the root is soft-deleted and returns the steps
// that purge it. A root already gone means a finished purge; a live root is
// refused, so a stray job can never destroy visible data.
func (c *Activities) CheckCascade(ctx context.Context, job domain.CascadeJob) (CascadeCheck, error) {
	root := cascadedb.Root{OrgID: job.OrgID, Type: job.EntityType, ID: job.EntityID}
	steps, err := cascadedb.Plan(job.EntityType)
	if err != nil {
		return CascadeCheck{}, temporal.NewNonRetryableApplicationError(err.Error(), "CascadeUnknownType", err)
	}
	state, err := cascadedb.State(ctx, c.DB.Q(), root)
	if err != nil {
		return CascadeCheck{}, err
	}
	switch state {
	case cascadedb.RootGone:
		return CascadeCheck{Reason: job.EntityType + " no longer exists"}, nil
	case cascadedb.RootLive:
		return CascadeCheck{}, temporal.NewNonRetryableApplicationError(
			job.EntityType+" is not deleted; refusing to purge its dependents", ErrTypeCascadeRootLive, nil)
	}
	return CascadeCheck{Proceed: true, Steps: steps}, nil
}

// CascadeStepInput names one step of a purge.
type CascadeStepInput struct {
	Job  domain.CascadeJob
	Step string
}

// CascadeStepResult tells how many rows went and whether the step is done.
type CascadeStepResult struct {
	Affected int64
	Done     bool
}

// CascadeProgress is the heartbeat detail of a purge step.
type CascadeProgress struct {
	Step     string
	Batches  int
	Affected int64
}

// heartbeatEvery is how often a step heartbeats while a statement runs (well
// under the workflow's 10 s heartbeat timeout).
const heartbeatEvery = 2 * time.Second

// PurgeCascadeStep runs one step in batches, each its own transaction that
// holds the root's purge lock (so a retried attempt beside a zombie one
// waits for it instead of finding nothing and calling the step done), until
// a batch changes nothing (under the lock: nothing the step may change
// remains) or the time budget is spent. It heartbeats its progress
// while every statement runs, so a dead worker's step moves to another
// worker within the heartbeat timeout and carries on from what is already
// committed.
func (c *Activities) PurgeCascadeStep(ctx context.Context, in CascadeStepInput) (CascadeStepResult, error) {
	root := cascadedb.Root{OrgID: in.Job.OrgID, Type: in.Job.EntityType, ID: in.Job.EntityID}
	size, budget := c.BatchSize, c.Budget
	if size <= 0 {
		size = 500
	}
	if budget <= 0 {
		budget = 20 * time.Second
	}
	deadline := time.Now().Add(budget)
	var res CascadeStepResult
	progress := CascadeProgress{Step: in.Step}
	for {
		var n int64
		err := heartbeatWhile(ctx, progress, func() error {
			return c.DB.InTx(ctx, func(q store.Querier) error {
				var err error
				if n, err = cascadedb.Run(ctx, q, root, in.Step, size); err != nil {
					return err
				}
				if c.inBatch != nil {
					return c.inBatch(ctx)
				}
				return nil
			})
		})
		if err != nil {
			return res, err
		}
		res.Affected += n
		progress.Batches++
		progress.Affected = res.Affected
		activity.RecordHeartbeat(ctx, progress)
		if cascadedb.StepDone(in.Step, n) {
			res.Done = true
			return res, nil
		}
		if time.Now().After(deadline) {
			return res, nil
		}
		if c.BatchPause > 0 {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(c.BatchPause):
			}
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
	}
}

// heartbeatWhile runs fn, recording details as the activity's heartbeat
// every heartbeatEvery until it returns: a long statement (or a wait for
// the root's lock) never looks like a dead worker.
func heartbeatWhile(ctx context.Context, details any, fn func() error) error {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details)
			}
		}
	}()
	err := fn()
	close(done)
	<-stopped
	return err
}
