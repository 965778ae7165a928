package chatwf

import (
	"context"
	"encoding/json"

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
	r.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// WorkerRegistration is the chat feature's part of the worker: the
// workflow, its activities, the dispatcher of queued notifications, and the
// automatic notifications of subscribed channels (ticket events).
func WorkerRegistration(a *acts.Activities, subs *chat.Service) worker.Registration {
	topics := map[string]worker.Dispatch{chat.TopicNotify: Dispatch}
	for _, ev := range chat.SubscribableEvents {
		topics[ev] = func(ctx context.Context, env worker.Env, row store.OutboxRow) error {
			ids, err := subs.QueueForEvent(ctx, row.ID, row.OrgID, row.Payload)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := workflows.StartOnce(ctx, env.Client, WorkflowID(id), env.TaskQueue, WorkflowName, Input{NotificationID: id}); err != nil {
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
	return workflows.StartOnce(ctx, env.Client, WorkflowID(job.NotificationID), env.TaskQueue, WorkflowName, Input{NotificationID: job.NotificationID})
}
