package chatwf

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/chat"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/store"
	"tracker/worker/jobkind"
	"tracker/workflows"
)

// Deps is what the chat feature's durable work needs from the process.
type Deps struct {
	DB    *store.DB
	Clock domain.Clock
	// Chat runs the use cases: the automatic notifications of subscribed
	// channels, and posting with an org's connected workspace's own bot
	// token where it has one.
	Chat  *chat.Service
	Slack acts.Poster // the service's client (SERVICE_CHAT_BOT_TOKEN)
}

// Register is the chat feature's part of the worker: the workflows, their
// activities, the dispatchers of queued notifications, thread replies and
// command follow-ups, and the automatic notifications of subscribed
// channels (ticket events).
func Register(d Deps) jobkind.Registration {
	a := &acts.Activities{DB: d.DB, Clock: d.Clock, Chat: d.Chat, Slack: d.Slack}
	topics := map[string]jobkind.Dispatch{chat.TopicNotify: Dispatch, chat.TopicReplyComment: DispatchReply,
		chat.TopicCommandFollowup: DispatchFollowup}
	for _, ev := range chat.SubscribableEvents {
		topics[ev] = func(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
			ids, err := d.Chat.QueueForEvent(ctx, row.ID, row.OrgID, row.Payload)
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
	return jobkind.Registration{
		Name:     "chat",
		Register: func(r sdkworker.Registry) { RegisterOn(r, a) },
		Topics:   topics,
	}
}

// RegisterOn puts the workflows and their activities on a worker (or a
// test environment).
func RegisterOn(r sdkworker.Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(ChatNotification, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterWorkflowWithOptions(ChatReplyComment, workflow.RegisterOptions{Name: ReplyWorkflowName})
	r.RegisterWorkflowWithOptions(ChatCommandFollowup, workflow.RegisterOptions{Name: FollowupWorkflowName})
	r.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
}

// Dispatch starts the workflow of a queued notification, once (the id is
// the notification's). A payload that does not decode is dropped.
func Dispatch(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
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
func DispatchReply(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job chat.ReplyJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID || job.EventID == "" {
		return jobkind.Permanent(fmt.Errorf("chat reply job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, ReplyWorkflowID(job.EventID), env.TaskQueue, ReplyWorkflowName, job)
}

// DispatchFollowup starts a created ticket's follow-up, once per outbox
// row.
func DispatchFollowup(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
	var job chat.FollowupJob
	if err := json.Unmarshal(row.Payload, &job); err != nil || job.OrgID != row.OrgID {
		return jobkind.Permanent(fmt.Errorf("chat follow-up job %s does not decode or names another org: %v", row.ID, err))
	}
	return workflows.StartOnce(ctx, env.Client, FollowupWorkflowID(row.ID), env.TaskQueue, FollowupWorkflowName,
		acts.FollowupInput{JobID: row.ID, Job: job})
}
