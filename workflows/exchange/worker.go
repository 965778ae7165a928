package exchangewf

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/exchange"
	"tracker/domain"
	"tracker/domain/exchange/importer"
	"tracker/store"
	"tracker/store/objectstore"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what imports need from the process: the database, the clock and
// the object store holding uploaded files, and tuning whose zero value is
// production.
type Deps struct {
	DB         *store.DB
	Clock      domain.Clock
	Files      objectstore.Store
	BatchSize  int           // tickets per batch (default 2000)
	BatchPause time.Duration // sleep before each batch (tests stop a worker mid-import)
}

// Register is the import feature's part of the worker: the workflow, its
// activities, and the dispatcher of TopicImport outbox rows.
func Register(d Deps) jobkind.Registration {
	a := &acts.Activities{Runner: importer.NewRunner(d.DB, d.Clock, d.BatchSize, d.Files), BatchPause: d.BatchPause}
	return jobkind.Registration{
		Name:       "import",
		Register:   func(r sdkworker.Registry) { RegisterOn(r, a) },
		RegisterDB: func(r sdkworker.Registry) { r.RegisterActivity(a) },
		Topics: map[string]jobkind.Dispatch{importer.TopicImport: func(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
			return dispatch(ctx, env, row, acts.OrgName(ctx, d.DB, row.OrgID))
		}},
	}
}

// RegisterOn puts the workflow and its activities on a worker (or a test
// environment).
func RegisterOn(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(Import, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivity(a)
}

// Summary is the workflow's one line in the Temporal UI, e.g. "Import of
// acme.json into Acme — 40,000 tickets".
func Summary(job importer.Job, org string) string {
	s := "Import of " + job.Source + " into " + org
	if job.Source == "" {
		s = "Import " + job.ImportID.String() + " into " + org
	}
	if job.Tickets > 0 {
		s += " — " + thousands(job.Tickets) + " tickets"
	}
	return s
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Dispatch starts the Import workflow of an outbox job, once: the workflow
// id is import:<import id>. A payload that does not decode can never start
// anything: it is a jobkind.Permanent error, and the relay parks the row.
func Dispatch(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	return dispatch(ctx, env, row, row.OrgID.String())
}

func dispatch(ctx context.Context, env jobkind.Env, row store.OutboxRow, org string) error {
	var job importer.Job
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return jobkind.Permanent(fmt.Errorf("import job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartJob(ctx, env.Client, importer.WorkflowID(job.ImportID), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindImport, Summary: Summary(job, org)},
		WorkflowName, Input{ImportID: job.ImportID, OrgID: job.OrgID})
}
