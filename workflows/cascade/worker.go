package cascadewf

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/cascade"
	"tracker/domain"
	"tracker/store"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what cascade delete needs from the process: the database, and
// tuning whose zero value is production (the activity's and the
// workflow's defaults).
type Deps struct {
	DB         *store.DB
	BatchSize  int           // rows per purge transaction (default 500)
	BatchPause time.Duration // sleep between batches (tests stop a worker mid-purge)
	Budget     time.Duration // how long one purge call keeps deleting (default 20 s)
	MaxCalls   int           // purge calls per workflow run before continue-as-new (default 500)
}

// Register is cascade delete's part of the worker: the CascadeDelete
// workflow, its activities (the purge steps also on the DB queue, whose
// concurrency is the pool's), and the relay's dispatcher of
// domain.TopicCascadeDelete jobs.
func Register(d Deps) jobkind.Registration {
	a := &acts.Activities{DB: d.DB, BatchSize: d.BatchSize, BatchPause: d.BatchPause, Budget: d.Budget}
	return jobkind.Registration{
		Name:       "cascade",
		Register:   func(r sdkworker.Registry) { RegisterOn(r, a) },
		RegisterDB: func(r sdkworker.Registry) { r.RegisterActivity(a) },
		Topics: map[string]jobkind.Dispatch{domain.TopicCascadeDelete: func(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
			return Dispatch(ctx, env, row, d.MaxCalls)
		}},
	}
}

// RegisterOn puts the workflow, under its registered name, and its
// activities on a worker (or a test environment).
func RegisterOn(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(CascadeDelete, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivity(a)
}

// Dispatch starts the purge of a soft-deleted root, once: the workflow id
// is derived from the root. A payload that does not decode, or names
// another org than its row, can never start anything: it is a
// jobkind.Permanent error, and the relay parks the row.
func Dispatch(ctx context.Context, env jobkind.Env, row store.OutboxRow, maxCalls int) error {
	var job domain.CascadeJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return jobkind.Permanent(fmt.Errorf("cascade job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartJob(ctx, env.Client, WorkflowID(job), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindCascade,
			Summary: fmt.Sprintf("Purge of %s %s and everything under it", job.EntityType, job.EntityID)},
		WorkflowName, CascadeInput{Job: job, MaxCalls: maxCalls})
}
