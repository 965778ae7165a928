// Package chatact holds the chat integration's side effects: posting a
// notification with slack-go's chat.postMessage and recording every
// attempt on its delivery record.
package chatact

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/slack-go/slack"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/domain/chat"
	"tracker/store"
	"tracker/store/chatdb"
)

// Prefix is prepended to the activity method names at registration.
const Prefix = "Chat."

// Activity names as registered.
const (
	PostNotificationName = Prefix + "PostNotification"
	MarkFailedName       = Prefix + "MarkFailed"
	WriteReplyName       = Prefix + "WriteReply"
	PlanFollowupName     = Prefix + "PlanFollowup"
	MapThreadName        = Prefix + "MapThread"
	RespondName          = Prefix + "Respond"
)

// Error types of the application errors the activities return.
const (
	ErrPermanent   = "ChatPermanent"   // never retried (recorded as failed)
	ErrRateLimited = "ChatRateLimited" // retried after Slack's Retry-After
)

// PermanentErrors are Slack error codes that no retry can fix.
var PermanentErrors = []string{"channel_not_found", "invalid_auth", "not_in_channel", "account_inactive",
	"token_revoked", "not_authed", "is_archived", "msg_too_long", "no_text", "missing_scope", "channel_is_archived"}

// Poster is the part of slack-go's client the activities use.
type Poster interface {
	PostMessageContext(ctx context.Context, channelID string, options ...slack.MsgOption) (string, string, error)
}

// Activities post notifications, write thread replies as comments and run
// a created ticket's follow-up; methods take one input struct.
type Activities struct {
	DB    *store.DB
	Slack Poster // the service's client (SERVICE_CHAT_BOT_TOKEN)
	Clock domain.Clock
	// Chat runs the use cases; when set, an org's notifications are posted
	// with its connected workspace's own bot token where it has one.
	Chat *chat.Service
	// HTTP posts to response_url (nil: a client with a 10 s timeout).
	HTTP *http.Client
}

// NewSlackClient builds the slack-go client of the bot token; apiURL, when
// set, replaces Slack's base URL (tests and self-hosted proxies).
func NewSlackClient(token, apiURL string) *slack.Client {
	var opts []slack.Option
	if apiURL != "" {
		if apiURL[len(apiURL)-1] != '/' {
			apiURL += "/"
		}
		opts = append(opts, slack.OptionAPIURL(apiURL))
	}
	return slack.New(token, opts...)
}

// PostInput names the notification to post.
type PostInput struct {
	NotificationID uuid.UUID `json:"notification_id"`
}

// PostResult is the outcome of a post.
type PostResult struct {
	Status    string `json:"status"` // sent, failed
	MessageTS string `json:"message_ts,omitempty"`
}

// PostNotification posts one notification and records the attempt. An
// already sent or failed record is not posted again (a retried activity
// after its record was written). A 429 is retried after Retry-After; the
// permanent errors are recorded and not retried; anything else is retried
// by the workflow's policy.
func (a *Activities) PostNotification(ctx context.Context, in PostInput) (PostResult, error) {
	n, done, err := a.queued(ctx, in.NotificationID, "notification")
	if err != nil {
		return PostResult{}, err
	}
	if done != nil {
		return *done, nil
	}
	opts := []slack.MsgOption{slack.MsgOptionText(n.Text, false)}
	if n.ThreadTS != nil && *n.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(*n.ThreadTS))
	}
	poster, err := a.poster(ctx, n.OrgID)
	if err != nil {
		return PostResult{}, err
	}
	_, ts, err := poster.PostMessageContext(ctx, n.ChannelID, opts...)
	if err == nil {
		return PostResult{Status: "sent", MessageTS: ts}, a.record(ctx, n.ID, "sent", nil, &ts)
	}
	var se slack.SlackErrorResponse
	permanent := errors.As(err, &se) && slices.Contains(PermanentErrors, se.Err)
	return PostResult{}, a.failed(ctx, n.ID, err, permanent, "chat.postMessage")
}

// queued reads a post's record. done is its result when it is no longer
// queued (a retried activity after its record was written): it is not
// posted again. A missing record is permanent.
func (a *Activities) queued(ctx context.Context, id uuid.UUID, what string) (chatdb.Notification, *PostResult, error) {
	n, err := chatdb.GetNotification(ctx, a.DB.Q(), id)
	if errors.Is(err, store.ErrNotFound) {
		return n, nil, temporal.NewNonRetryableApplicationError(what+" not found", ErrPermanent, err)
	}
	if err != nil || n.Status == "queued" {
		return n, nil, err
	}
	done := &PostResult{Status: n.Status}
	if n.MessageTS != nil {
		done.MessageTS = *n.MessageTS
	}
	return n, done, nil
}

// failed records a post that did not go through and says how the activity
// ends: a 429 stays queued and is retried after Retry-After; a permanent
// error is recorded as failed and not retried; anything else stays queued
// for the workflow's retry policy.
func (a *Activities) failed(ctx context.Context, id uuid.UUID, err error, permanent bool, what string) error {
	msg := err.Error()
	status, out := "queued", fmt.Errorf("%s: %w", what, err)
	var rl *slack.RateLimitedError
	switch {
	case errors.As(err, &rl):
		out = temporal.NewApplicationErrorWithOptions(msg, ErrRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: rl.RetryAfter, Cause: err})
	case permanent:
		status, out = "failed", temporal.NewNonRetryableApplicationError(msg, ErrPermanent, err)
	}
	if rerr := a.record(ctx, id, status, &msg, nil); rerr != nil {
		return rerr
	}
	return out
}

func (a *Activities) record(ctx context.Context, id uuid.UUID, status string, errText, ts *string) error {
	return chatdb.RecordAttempt(ctx, a.DB.Q(), id, status, errText, ts, a.Clock.Now())
}

// FailInput names a notification whose retries ran out.
type FailInput struct {
	NotificationID uuid.UUID `json:"notification_id"`
	Error          string    `json:"error"`
}

// MarkFailed records that a notification will not be delivered.
func (a *Activities) MarkFailed(ctx context.Context, in FailInput) error {
	return chatdb.MarkFailed(ctx, a.DB.Q(), in.NotificationID, in.Error, a.Clock.Now())
}

// poster is the client posting an org's messages: its workspace's bot
// token when it has one, else the service's.
func (a *Activities) poster(ctx context.Context, orgID uuid.UUID) (Poster, error) {
	if a.Chat == nil {
		return a.Slack, nil
	}
	w, err := chatdb.WorkspaceOfOrg(ctx, a.DB.Q(), orgID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && len(w.BotTokenEnc) == 0) {
		return a.Slack, nil
	}
	if err != nil {
		return nil, err
	}
	c, ok, err := a.Chat.ClientFor(ctx, orgID, w.TeamID)
	if err != nil || !ok {
		return a.Slack, err
	}
	return c, nil
}

// WriteReply writes a thread reply as a comment, once per event id (the
// outcome is recorded; a retry reads it back).
func (a *Activities) WriteReply(ctx context.Context, job chat.ReplyJob) (chat.ReplyOutcome, error) {
	return a.Chat.WriteReply(ctx, job)
}

// FollowupInput is a created ticket's follow-up: the outbox row's id (the
// delivery records derive from it) and its job.
type FollowupInput struct {
	JobID uuid.UUID        `json:"job_id"`
	Job   chat.FollowupJob `json:"job"`
}

// PlanFollowup writes the follow-up's delivery records (idempotent).
func (a *Activities) PlanFollowup(ctx context.Context, in FollowupInput) (chat.FollowupPlan, error) {
	plan, err := a.Chat.PlanFollowup(ctx, in.JobID, in.Job)
	if err != nil && domain.AsError(err).Kind != domain.KindInternal {
		return plan, temporal.NewNonRetryableApplicationError(err.Error(), ErrPermanent, err)
	}
	return plan, err
}

// MapInput is an announcement to map to its ticket.
type MapInput struct {
	OrgID     uuid.UUID `json:"org_id"`
	TicketID  uuid.UUID `json:"ticket_id"`
	ChannelID string    `json:"channel_id"`
	ThreadTS  string    `json:"thread_ts"`
}

// MapThread maps the announcement's thread to the ticket (idempotent).
func (a *Activities) MapThread(ctx context.Context, in MapInput) error {
	err := a.Chat.MapAnnouncement(ctx, in.OrgID, in.TicketID, in.ChannelID, in.ThreadTS)
	if err != nil && domain.AsError(err).Kind != domain.KindInternal {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrPermanent, err)
	}
	return err
}

// RespondInput is the follow-up answer to a command's response_url.
type RespondInput struct {
	NotificationID uuid.UUID `json:"notification_id"`
	ResponseURL    string    `json:"response_url"`
	Text           string    `json:"text"`
}

// Respond posts an ephemeral follow-up to the command's response_url and
// records it; a record already sent or failed is not posted again. A 429
// waits Retry-After; a 4xx (the URL expired or was used up) is permanent.
func (a *Activities) Respond(ctx context.Context, in RespondInput) (PostResult, error) {
	n, done, err := a.queued(ctx, in.NotificationID, "response record")
	if err != nil {
		return PostResult{}, err
	}
	if done != nil {
		return *done, nil
	}
	if err := chatdb.SetQueuedText(ctx, a.DB.Q(), n.ID, in.Text, a.Clock.Now()); err != nil {
		return PostResult{}, err
	}
	hc := a.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	err = slack.PostWebhookCustomHTTPContext(ctx, in.ResponseURL, hc, &slack.WebhookMessage{Text: in.Text,
		ResponseType: slack.ResponseTypeEphemeral})
	if err == nil {
		return PostResult{Status: "sent"}, a.record(ctx, n.ID, "sent", nil, nil)
	}
	var sc slack.StatusCodeError
	permanent := errors.As(err, &sc) && sc.Code >= 400 && sc.Code < 500
	return PostResult{}, a.failed(ctx, n.ID, err, permanent, "response_url")
}
