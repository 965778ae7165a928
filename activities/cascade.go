package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/store"
	"tracker/store/cascadedb"
)

// Cascade purges the dependents of soft-deleted roots.
type Cascade struct {
	DB *store.DB
	// BatchSize is the rows per transaction (default 500).
	BatchSize int
	// Budget is how long one activity call keeps deleting before it hands
	// back to the workflow, which calls again (default 20 s).
	Budget time.Duration
	// BatchPause sleeps between batches: gentler on a busy database, and
	// lets tests stop a worker mid-purge.
	BatchPause time.Duration
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
func (c *Cascade) CheckCascade(ctx context.Context, job domain.CascadeJob) (CascadeCheck, error) {
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

// PurgeCascadeStep runs one step in batches, each its own transaction, until
// a batch finds nothing left or the time budget is spent; it heartbeats
// after every batch, so a dead worker's step moves to another worker within
// the heartbeat timeout and carries on from what is already committed.
func (c *Cascade) PurgeCascadeStep(ctx context.Context, in CascadeStepInput) (CascadeStepResult, error) {
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
	for {
		var n int64
		err := c.DB.InTx(ctx, func(q store.Querier) error {
			var err error
			n, err = cascadedb.Run(ctx, q, root, in.Step, size)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Affected += n
		activity.RecordHeartbeat(ctx, res.Affected)
		if n == 0 || !cascadedb.Batched(in.Step) {
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

// ignoreGone treats a row that disappeared (a webhook deleted while its
// delivery ran) as nothing to do.
func ignoreGone(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
