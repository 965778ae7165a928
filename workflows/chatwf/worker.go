package chatwf

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/chatwf"
	"tracker/domain/chat"
	"tracker/store"
	"tracker/worker"
	"tracker/workflows"
)

// Register puts the workflow and its activities on a worker.
func Register(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(ChatNotification, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterWorkflowWithOptions(ChatReplyComment, workflow.RegisterOptions{Name: ReplyWorkflowName})
	r.RegisterWorkflowWithOptions(ChatCommandFollowup, workflow.RegisterOptions{Name: FollowupWorkflowName})
	r.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// WorkerRegistration is the chat feature's part of the worker: the
// workflow, its activities, the dispatcher of queued notifications, and the
// automatic notifications of subscribed channels (ticket events).
func WorkerRegistration(a *acts.Activities, subs *chat.Service) worker.Registration {
	topics := map[string]worker.Dispatch{chat.TopicNotify: Dispatch, chat.TopicReplyComment: DispatchReply,
		chat.TopicCommandFollowup: DispatchFollowup}
	for _, ev := range chat.SubscribableEvents {
		topics[ev] = func(ctx context.Context, env worker.Env, row store.OutboxRow) error {
			ids, err := subs.QueueForEvent(ctx, row.ID, row.OrgID, row.Payload)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := workflows.StartJob(ctx, env.Client, WorkflowID(id), env.TaskQueue, trackerJob(row.OrgID, id), WorkflowName, Input{NotificationID: id}); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return worker.Registration{
		Name:     "chat",
		Register: func(r sdkworker.Registry) { Register(r, a) },
		Topics:   topics,
	}
}

// Dispatch starts the workflow of a queued notification, once (the id is
// the notification's). A payload that does not decode is dropped.
func Dispatch(ctx context.Context, env worker.Env, row store.OutboxRow) error {
	var job chat.NotifyJob
	if err := json.Unmarshal(row.Payload, &job); err != nil {
		env.Log.Error("chat notification job does not decode; dropped", "outbox_id", row.ID, "error", err)
		return nil
	}
	return workflows.StartJob(ctx, env.Client, WorkflowID(job.NotificationID), env.TaskQueue, trackerJob(row.OrgID, job.NotificationID),
		WorkflowName, Input{NotificationID: job.NotificationID})
}

// trackerJob is how the Temporal UI finds a notification's workflow.
func trackerJob(orgID, notificationID uuid.UUID) workflows.Job {
	return workflows.Job{OrgID: orgID, Kind: workflows.KindChat, Summary: "Chat notification " + notificationID.String()}
}

// DispatchReply starts the workflow writing a thread reply as a comment,
// once per event id. A payload that does not decode or names another org
// is parked.
func DispatchReply(ctx context.Context, env worker.Env, row store.OutboxRow) error {
	var job chat.ReplyJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID || job.EventID == "" {
		return worker.Permanent(fmt.Errorf("chat reply job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, ReplyWorkflowID(job.EventID), env.TaskQueue, ReplyWorkflowName, job)
}

// DispatchFollowup starts a created ticket's follow-up, once per outbox
// row.
func DispatchFollowup(ctx context.Context, env worker.Env, row store.OutboxRow) error {
	var job chat.FollowupJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return worker.Permanent(fmt.Errorf("chat follow-up job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, FollowupWorkflowID(row.ID), env.TaskQueue, FollowupWorkflowName,
		acts.FollowupInput{JobID: row.ID, Job: job})
}
