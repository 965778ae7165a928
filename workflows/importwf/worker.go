package importwf

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/importwf"
	"tracker/domain"
	"tracker/domain/importer"
	"tracker/store"
	"tracker/worker"
	"tracker/workflows"
)

// Tuning adjusts imports on a worker; the zero value is production.
type Tuning struct {
	BatchSize  int           // tickets per batch (default 2000)
	BatchPause time.Duration // sleep before each batch (tests stop a worker mid-import)
}

// Register puts the workflow and its activities on a worker.
func Register(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(Import, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivity(a)
}

// WorkerRegistration is the import feature's part of the worker: the
// workflow, its activities, and the dispatcher of TopicImport outbox rows.
func WorkerRegistration(db *store.DB, clock domain.Clock, t Tuning) worker.Registration {
	a := &acts.Activities{Runner: importer.NewRunner(db, clock, t.BatchSize), BatchPause: t.BatchPause}
	return worker.Registration{
		Name:     "import",
		Register: func(r sdkworker.Registry) { Register(r, a) },
		Topics:   map[string]worker.Dispatch{importer.TopicImport: Dispatch},
	}
}

// Dispatch starts the Import workflow of an outbox job, once: the workflow
// id is import:<import id>. A payload that does not decode can never start
// anything: it is a worker.Permanent error, and the relay parks the row.
func Dispatch(ctx context.Context, env worker.Env, row store.OutboxRow) error {
	var job importer.Job
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return worker.Permanent(fmt.Errorf("import job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, importer.WorkflowID(job.ImportID), env.TaskQueue, WorkflowName,
		Input{ImportID: job.ImportID, OrgID: job.OrgID})
}
