// Package chatwf holds the chat integration's side effects: posting a
// notification with slack-go's chat.postMessage and recording every
// attempt on its delivery record.
package chatwf

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/slack-go/slack"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// Prefix is prepended to the activity method names at registration.
const Prefix = "Chat."

// Activity names as registered.
const (
	PostNotificationName = Prefix + "PostNotification"
	MarkFailedName       = Prefix + "MarkFailed"
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

// Activities post notifications; methods take one input struct.
type Activities struct {
	DB    *store.DB
	Slack Poster
	Clock domain.Clock
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
	n, err := chatdb.GetNotification(ctx, a.DB.Q(), in.NotificationID)
	if errors.Is(err, store.ErrNotFound) {
		return PostResult{}, temporal.NewNonRetryableApplicationError("notification not found", ErrPermanent, err)
	}
	if err != nil {
		return PostResult{}, err
	}
	if n.Status != "queued" {
		ts := ""
		if n.MessageTS != nil {
			ts = *n.MessageTS
		}
		return PostResult{Status: n.Status, MessageTS: ts}, nil
	}
	opts := []slack.MsgOption{slack.MsgOptionText(n.Text, false)}
	if n.ThreadTS != nil && *n.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(*n.ThreadTS))
	}
	_, ts, err := a.Slack.PostMessageContext(ctx, n.ChannelID, opts...)
	if err == nil {
		return PostResult{Status: "sent", MessageTS: ts}, a.record(ctx, n.ID, "sent", nil, &ts)
	}
	msg := err.Error()
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		if rerr := a.record(ctx, n.ID, "queued", &msg, nil); rerr != nil {
			return PostResult{}, rerr
		}
		return PostResult{}, temporal.NewApplicationErrorWithOptions(msg, ErrRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: rl.RetryAfter, Cause: err})
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && slices.Contains(PermanentErrors, se.Err) {
		if rerr := a.record(ctx, n.ID, "failed", &msg, nil); rerr != nil {
			return PostResult{}, rerr
		}
		return PostResult{}, temporal.NewNonRetryableApplicationError(msg, ErrPermanent, err)
	}
	if rerr := a.record(ctx, n.ID, "queued", &msg, nil); rerr != nil {
		return PostResult{}, rerr
	}
	return PostResult{}, fmt.Errorf("chat.postMessage: %w", err)
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
