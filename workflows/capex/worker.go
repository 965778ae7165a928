package capexwf

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/capex"
	"tracker/domain/capex"
	"tracker/store"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what the export needs from the process: the use cases that
// write it.
type Deps struct {
	Exports *capex.Service
}

// Register plugs the export into the shared worker: the workflow and its
// activities, the monthly Schedule ensured at every start, and the
// dispatcher of on-demand runs.
func Register(d Deps) jobkind.Registration {
	return jobkind.Registration{
		Name:     "capitalization-export",
		Register: func(r worker.Registry) { RegisterOn(r, &acts.Activities{Exports: d.Exports}) },
		Start: func(ctx context.Context, env jobkind.Env) error {
			return EnsureSchedule(ctx, env.Client, env.TaskQueue)
		},
		Topics: map[string]jobkind.Dispatch{capex.TopicExport: StartRequested},
	}
}

// RegisterOn puts the workflow and its activities on a worker (or a test
// environment).
func RegisterOn(w worker.Registry, a *acts.Activities) {
	w.RegisterWorkflowWithOptions(CapitalizationExport, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// Schedule ids.
const (
	ScheduleID = "capitalization-export-monthly"
	// ScheduledWorkflowID is the id prefix of scheduled runs (the server
	// appends the nominal time).
	ScheduledWorkflowID = "capitalization-export-scheduled"
)

// ScheduleSpec is 02:00:00 UTC on the 1st of every month.
func ScheduleSpec() client.ScheduleSpec {
	return client.ScheduleSpec{
		Calendars: []client.ScheduleCalendarSpec{{
			Second:     []client.ScheduleRange{{Start: 0}},
			Minute:     []client.ScheduleRange{{Start: 0}},
			Hour:       []client.ScheduleRange{{Start: 2}},
			DayOfMonth: []client.ScheduleRange{{Start: 1}},
			Comment:    "previous month's capitalization CSV for every org",
		}},
		TimeZoneName: "UTC",
	}
}

func scheduleAction(taskQueue string) *client.ScheduleWorkflowAction {
	job := workflows.Job{Kind: workflows.KindCapexExport, Summary: "Monthly capitalization export of every org"}
	return job.ScheduleAction(&client.ScheduleWorkflowAction{
		ID: ScheduledWorkflowID, Workflow: WorkflowName, Args: []any{Input{}}, TaskQueue: taskQueue,
		WorkflowExecutionTimeout: 24 * time.Hour,
	})
}

// CatchupWindow lets a run missed while Temporal was down start late (it
// still exports the month before its nominal time).
const CatchupWindow = 7 * 24 * time.Hour

// EnsureSchedule creates the monthly Schedule, or brings an existing one to
// the current spec and action: safe to call at every worker start.
func EnsureSchedule(ctx context.Context, c client.Client, taskQueue string) error {
	return workflows.EnsureSchedule(ctx, c, client.ScheduleOptions{
		ID: ScheduleID, Spec: ScheduleSpec(), Action: scheduleAction(taskQueue),
		Overlap: enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE, CatchupWindow: CatchupWindow,
		Note: "created by the tracker worker",
	})
}

// ExportWorkflowID is the id of an on-demand run: the export's own, so the
// relay offering its job again starts nothing twice.
func ExportWorkflowID(exportID uuid.UUID) string { return "capitalization-export-" + exportID.String() }

// StartRequested is the relay's dispatcher for an on-demand run requested
// through the API (outbox topic capex.TopicExport).
func StartRequested(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job capex.ExportJob
	if err := json.Unmarshal(row.Payload, &job); err != nil {
		return jobkind.Permanent(fmt.Errorf("capitalization export job %s does not decode: %w", row.ID, err))
	}
	return workflows.StartJob(ctx, env.Client, ExportWorkflowID(job.ExportID), env.TaskQueue,
		workflows.Job{OrgID: job.OrgID, Kind: workflows.KindCapexExport, Summary: "Capitalization export of " + job.Period},
		WorkflowName, Input{Job: &job})
}
