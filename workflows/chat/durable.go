package chatwf

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/chat"
	"tracker/domain/chat"
)

// Names of the chat workflows beyond ChatNotification.
const (
	ReplyWorkflowName    = "ChatReplyComment"
	FollowupWorkflowName = "ChatCommandFollowup"
)

// ReplyWorkflowID is the id of a thread reply's workflow: one per event id
// (Slack's retries of the delivery were already refused at the door).
func ReplyWorkflowID(eventID string) string { return "chat-reply:" + eventID }

// FollowupWorkflowID is the id of a created ticket's follow-up (its outbox
// row's id).
func FollowupWorkflowID(jobID uuid.UUID) string { return "chat-followup:" + jobID.String() }

// dbOptions are the options of the activities that only touch the
// database: retried with backoff for about ten minutes.
func dbOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 15, NonRetryableErrorTypes: []string{acts.ErrPermanent}}})
}

// ChatReplyComment writes a chat message in a mapped thread as a comment on
// the ticket (the activity records the outcome by event id, so a rerun
// writes nothing twice).
func ChatReplyComment(ctx workflow.Context, job chat.ReplyJob) (chat.ReplyOutcome, error) {
	var out chat.ReplyOutcome
	err := workflow.ExecuteActivity(dbOptions(ctx), acts.WriteReplyName, job).Get(ctx, &out)
	return out, err
}

// FollowupResult is what a created ticket's follow-up did.
type FollowupResult struct {
	Announced bool   `json:"announced"`
	ThreadTS  string `json:"thread_ts,omitempty"`
	Mapped    bool   `json:"mapped"`
	Responded string `json:"responded,omitempty"` // sent, failed; empty without a response_url
}

// ChatCommandFollowup runs what /ticket create leaves for later: announce
// the ticket in the command's channel (chat.postMessage, Retry-After on
// 429, permanent errors recorded), map the announcement's thread to the
// ticket so replies become comments, and tell the command's response_url
// where the thread is (or why there is none).
func ChatCommandFollowup(ctx workflow.Context, in acts.FollowupInput) (FollowupResult, error) {
	var out FollowupResult
	var plan chat.FollowupPlan
	if err := workflow.ExecuteActivity(dbOptions(ctx), acts.PlanFollowupName, in).Get(ctx, &plan); err != nil {
		return out, err
	}
	res, reason, err := post(ctx, plan.AnnouncementID)
	if err != nil {
		return out, err
	}
	if res.Status == "sent" && res.MessageTS != "" {
		out.Announced, out.ThreadTS = true, res.MessageTS
		err := workflow.ExecuteActivity(dbOptions(ctx), acts.MapThreadName, acts.MapInput{OrgID: in.Job.OrgID,
			TicketID: in.Job.TicketID, ChannelID: in.Job.ChannelID, ThreadTS: res.MessageTS}).Get(ctx, nil)
		if err != nil {
			reason = "the thread could not be mapped: " + err.Error()
		} else {
			out.Mapped = true
		}
	}
	if plan.ResponseID == nil || in.Job.ResponseURL == "" {
		return out, nil
	}
	text := chat.FollowupText(plan.Ref, in.Job.ChannelID, out.Mapped, reason)
	rctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			MaximumAttempts: 5, NonRetryableErrorTypes: []string{acts.ErrPermanent}}})
	var rr acts.PostResult
	err = workflow.ExecuteActivity(rctx, acts.RespondName, acts.RespondInput{NotificationID: *plan.ResponseID,
		ResponseURL: in.Job.ResponseURL, Text: text}).Get(ctx, &rr)
	if err == nil {
		out.Responded = rr.Status
		return out, nil
	}
	out.Responded = "failed"
	if ferr := workflow.ExecuteActivity(dbOptions(ctx), acts.MarkFailedName, acts.FailInput{NotificationID: *plan.ResponseID,
		Error: err.Error()}).Get(ctx, nil); ferr != nil {
		return out, ferr
	}
	return out, nil
}
