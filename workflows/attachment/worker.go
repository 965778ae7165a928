package attachmentwf

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/attachment"
	"tracker/domain/attachment"
	"tracker/store"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Schedule of the cleanup.
const (
	ScheduleID    = "attachment-uploads-sweep"
	SweepInterval = time.Hour
)

// Deps is what the attachment workflows need from the process: the use
// cases over the database and the object store.
type Deps struct {
	Attachments *attachment.Service
}

// Register plugs attachments into the shared worker: the workflows and
// their activities, the hourly cleanup Schedule, and the dispatchers of
// object removals and verifications.
func Register(d Deps) jobkind.Registration {
	return jobkind.Registration{
		Name:     "attachments",
		Register: func(r sdkworker.Registry) { RegisterOn(r, &acts.Activities{Attachments: d.Attachments}) },
		Start: func(ctx context.Context, env jobkind.Env) error {
			return EnsureSchedule(ctx, env.Client, env.TaskQueue)
		},
		Topics: map[string]jobkind.Dispatch{attachment.TopicDeleteObjects: StartDelete, attachment.TopicVerify: StartVerify},
	}
}

// RegisterOn puts the workflows and their activities on a worker (or a
// test environment).
func RegisterOn(w sdkworker.Registry, a *acts.Activities) {
	w.RegisterWorkflowWithOptions(DeleteObjects, workflow.RegisterOptions{Name: DeleteWorkflowName})
	w.RegisterWorkflowWithOptions(Sweep, workflow.RegisterOptions{Name: SweepWorkflowName})
	w.RegisterWorkflowWithOptions(Verify, workflow.RegisterOptions{Name: VerifyWorkflowName})
	w.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// StartDelete is the relay's dispatcher of TopicDeleteObjects: one workflow
// per outbox row (its id), so offering the row again starts nothing twice.
func StartDelete(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job attachment.DeleteJob
	if err := json.Unmarshal(row.Payload, &job); err != nil {
		return fmt.Errorf("attachment delete job %s: %w", row.ID, err)
	}
	return workflows.StartOnce(ctx, env.Client, "attachment-objects-delete:"+row.ID.String(), env.TaskQueue, DeleteWorkflowName, job)
}

// StartVerify is the relay's dispatcher of TopicVerify: one workflow per
// attachment, so offering the row again starts nothing twice.
func StartVerify(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job attachment.VerifyJob
	if err := json.Unmarshal(row.Payload, &job); err != nil {
		return fmt.Errorf("attachment verify job %s: %w", row.ID, err)
	}
	return workflows.StartOnce(ctx, env.Client, VerifyWorkflowID(job.AttachmentID), env.TaskQueue, VerifyWorkflowName, job)
}

// VerifyWorkflowID is the id of an attachment's verification.
func VerifyWorkflowID(attachmentID uuid.UUID) string {
	return "attachment-verify:" + attachmentID.String()
}

// EnsureSchedule creates the hourly cleanup Schedule, or brings an existing
// one to this spec; every worker start calls it.
func EnsureSchedule(ctx context.Context, c client.Client, taskQueue string) error {
	return workflows.EnsureSchedule(ctx, c, client.ScheduleOptions{
		ID: ScheduleID, Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: SweepInterval}}},
		Action: &client.ScheduleWorkflowAction{ID: "attachment-uploads-sweep", Workflow: SweepWorkflowName,
			Args: []any{SweepInput{}}, TaskQueue: taskQueue},
		Overlap: enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		Note:    "created by the tracker worker: removes uploads never confirmed after 24 h",
	})
}
