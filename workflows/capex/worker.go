package capexwf

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/capex"
	"tracker/workflows"
)

// Register puts the workflow and its activities on a worker.
func Register(w worker.Registry, a *acts.Activities) {
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
	spec := ScheduleSpec()
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID: ScheduleID, Spec: spec, Action: scheduleAction(taskQueue),
		Overlap: enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE, CatchupWindow: CatchupWindow,
		Note: "created by the tracker worker",
	})
	if err == nil {
		return nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create schedule %s: %w", ScheduleID, err)
	}
	h := c.ScheduleClient().GetHandle(ctx, ScheduleID)
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		s.Spec = &spec
		s.Action = scheduleAction(taskQueue)
		if s.Policy == nil {
			s.Policy = &client.SchedulePolicies{}
		}
		s.Policy.Overlap = enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE
		s.Policy.CatchupWindow = CatchupWindow
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
	if err != nil {
		return fmt.Errorf("update schedule %s: %w", ScheduleID, err)
	}
	return nil
}
