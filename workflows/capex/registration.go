package capexwf

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	sdkworker "go.temporal.io/sdk/worker"

	acts "tracker/activities/capex"
	"tracker/domain/capex"
	"tracker/store"
	"tracker/worker"
	"tracker/workflows"
)

// WorkerRegistration plugs the export into the shared worker: the workflow
// and its activities, and the monthly Schedule ensured at every start.
// cmd/tracker lists it with one line:
//
//	capexport.WorkerRegistration(capex.New(db, domain.SystemClock{}))
func WorkerRegistration(svc *capex.Service) worker.Registration {
	return worker.Registration{
		Name:     "capitalization-export",
		Register: func(r sdkworker.Registry) { Register(r, &acts.Activities{Exports: svc}) },
		Start: func(ctx context.Context, env worker.Env) error {
			return EnsureSchedule(ctx, env.Client, env.TaskQueue)
		},
		Topics: map[string]worker.Dispatch{capex.TopicExport: StartRequested},
	}
}

// ExportWorkflowID is the id of an on-demand run: the export's own, so the
// relay offering its job again starts nothing twice.
func ExportWorkflowID(exportID uuid.UUID) string { return "capitalization-export-" + exportID.String() }

// StartRequested is the relay's dispatcher for an on-demand run requested
// through the API (outbox topic capex.TopicExport).
func StartRequested(ctx context.Context, env worker.Env, row store.OutboxRow) error {
	var job capex.ExportJob
	if err := json.Unmarshal(row.Payload, &job); err != nil {
		return worker.Permanent(fmt.Errorf("capitalization export job %s does not decode: %w", row.ID, err))
	}
	return workflows.StartJob(ctx, env.Client, ExportWorkflowID(job.ExportID), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindCapexExport, Summary: "Capitalization export of " + job.Period},
		WorkflowName, Input{Job: &job})
}
