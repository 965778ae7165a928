package deliverywf

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/delivery"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/notificationdb"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what delivery needs from the process.
type Deps struct {
	Delivery *delivery.Service
	// Notifications runs the hourly due-soon sweep.
	Notifications *notification.Service
	// Mailer sends email (nil: SERVICE_SMTP_URL is unset and email is off;
	// chat still runs).
	Mailer acts.Mailer
	// DigestMinute and DigestMaxWindows go into the input of each digest
	// this process starts (DigestInput.Minute, .MaxWindows; 0: a minute,
	// MaxWindows). Only tests set them: TRACKER_TEST_DIGEST_MINUTE.
	DigestMinute     time.Duration
	DigestMaxWindows int
}

// ScheduleID is the due-soon sweep's Schedule; SweepInterval its period.
const (
	ScheduleID    = "notification-due-soon-sweep"
	SweepInterval = time.Hour
)

// Register is delivery's part of the worker: the digest and sweep
// workflows, their activities, the dispatcher of notification.created and
// the sweep's Schedule.
func Register(d Deps) jobkind.Registration {
	a := &acts.Activities{Delivery: d.Delivery, Notifications: d.Notifications, Mailer: d.Mailer}
	return jobkind.Registration{
		Name:     "notification-delivery",
		Register: func(r sdkworker.Registry) { RegisterOn(r, a) },
		Start: func(ctx context.Context, env jobkind.Env) error {
			return EnsureSchedule(ctx, env.Client, env.TaskQueue)
		},
		Topics: map[string]jobkind.Dispatch{notificationdb.TopicCreated: d.Dispatch},
	}
}

// RegisterOn puts the workflows and their activities on a worker (or a
// test environment).
func RegisterOn(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(EmailDigest, workflow.RegisterOptions{Name: DigestWorkflowName})
	r.RegisterWorkflowWithOptions(DueSoonSweep, workflow.RegisterOptions{Name: SweepWorkflowName})
	r.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// created is the part of a notification.created payload delivery reads.
type created struct {
	ID     uuid.UUID `json:"id"`
	UserID uuid.UUID `json:"user_id"`
}

// Dispatch hands a new notification to chat (a queued direct message, when
// the recipient gets one) and to the recipient's email digest
// (signal-with-start of their one digest workflow), unless their email is
// off now. Both are idempotent: the chat record's id is the
// notification's, and a digest never mails a notification twice.
func (d Deps) Dispatch(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var n created
	if err := json.Unmarshal(row.Payload, &n); err != nil || n.ID == uuid.Nil || n.UserID == uuid.Nil {
		return jobkind.Permanent(fmt.Errorf("notification.created %s does not decode: %v", row.ID, err))
	}
	if _, err := d.Delivery.QueueChat(ctx, n.ID); err != nil {
		return err
	}
	if d.Mailer == nil {
		return nil
	}
	on, err := d.Delivery.WantsEmail(ctx, n.UserID)
	if err != nil || !on {
		return err
	}
	job := workflows.Job{Kind: workflows.KindNotificationEmail, Summary: "Email digest of user " + n.UserID.String()}
	_, err = env.Client.SignalWithStartWorkflow(ctx, DigestWorkflowID(n.UserID), SignalName, n.ID,
		client.StartWorkflowOptions{ID: DigestWorkflowID(n.UserID), TaskQueue: env.TaskQueue,
			TypedSearchAttributes: job.SearchAttributes(), StaticSummary: job.Summary},
		DigestWorkflowName, DigestInput{UserID: n.UserID, Minute: d.DigestMinute, MaxWindows: d.DigestMaxWindows})
	if err != nil {
		return fmt.Errorf("signal %s: %w", DigestWorkflowID(n.UserID), err)
	}
	return nil
}

// EnsureSchedule creates the hourly due-soon Schedule, or brings an
// existing one to this spec; every worker start calls it.
func EnsureSchedule(ctx context.Context, c client.Client, taskQueue string) error {
	action := (workflows.Job{Kind: workflows.KindNotificationEmail, Summary: "Due-soon sweep"}).ScheduleAction(
		&client.ScheduleWorkflowAction{ID: ScheduleID, Workflow: SweepWorkflowName, TaskQueue: taskQueue})
	return workflows.EnsureSchedule(ctx, c, client.ScheduleOptions{
		ID: ScheduleID, Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: SweepInterval}}},
		Action: action, Overlap: enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		Note: "created by the tracker worker: due_soon notifications a day before a ticket's due date",
	})
}
