package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// NotifyRequest is the body of POST /integrations/chat/notify.
type NotifyRequest struct {
	Type        string
	TicketID    uuid.UUID
	ChannelID   string
	UserSlackID string
	Message     string
	OldStatus   string
	NewStatus   string
	ActorName   string
	ThreadTS    string
}

// Queued is the 202 answer.
type Queued struct {
	Status           string    `json:"status"`
	NotificationType string    `json:"notification_type"`
	ID               uuid.UUID `json:"id"`
}

// Notification is a delivery record as the API renders it.
type Notification struct {
	ID               uuid.UUID  `json:"id"`
	OrgID            uuid.UUID  `json:"org_id"`
	TicketID         *uuid.UUID `json:"ticket_id"`
	NotificationType string     `json:"notification_type"`
	ChannelID        string     `json:"channel_id"`
	ThreadTS         *string    `json:"thread_ts"`
	Text             string     `json:"text"`
	Status           string     `json:"status"` // queued, sent, failed
	Attempts         int32      `json:"attempts"`
	LastError        *string    `json:"last_error"`
	MessageTS        *string    `json:"message_ts"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

func toNotification(r chatdb.Notification) Notification {
	return Notification{ID: r.ID, OrgID: r.OrgID, TicketID: r.TicketID, NotificationType: r.NotificationType,
		ChannelID: r.ChannelID, ThreadTS: r.ThreadTS, Text: r.Text, Status: r.Status, Attempts: r.Attempts,
		LastError: r.LastError, MessageTS: r.MessageTS, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// MaxMessage bounds a notification's message (Slack cuts text at 40,000).
const MaxMessage = 4000

// Notify queues a notification about a ticket (Member on its project): the
// delivery record and its outbox job commit together; the worker's relay
// starts the ChatNotification workflow, so the request never waits on the
// chat service (or on Temporal). The channel is the request's, else the
// ticket's latest thread mapping (with its thread), else the default channel.
func (s *Service) Notify(ctx context.Context, p domain.Principal, in NotifyRequest) (Queued, error) {
	var probs domain.Problems
	if !slices.Contains(notifyTypes, in.Type) {
		probs.Add("notification_type", "must be one of "+strings.Join(notifyTypes, ", "))
	}
	checkChannel(&probs, "channel_id", in.ChannelID)
	checkTS(&probs, "thread_ts", in.ThreadTS)
	if in.UserSlackID != "" && !userPattern.MatchString(in.UserSlackID) {
		probs.Add("user_slack_id", "must be a chat user id")
	}
	if len(in.Message) > MaxMessage {
		probs.Add("message", "at most 4000 characters")
	}
	for f, v := range map[string]string{"old_status": in.OldStatus, "new_status": in.NewStatus, "actor_name": in.ActorName} {
		if len(v) > 255 {
			probs.Add(f, "at most 255 characters")
		}
	}
	if err := probs.Err(); err != nil {
		return Queued{}, err
	}
	var out Queued
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketFor(ctx, q, p, in.TicketID, domain.RoleMember)
		if err != nil {
			return err
		}
		channel, thread := in.ChannelID, in.ThreadTS
		if channel == "" {
			m, err := chatdb.LatestMapping(ctx, q, t.Row.OrgID, t.Row.ID)
			switch {
			case err == nil:
				channel = m.ChannelID
				if thread == "" {
					thread = m.ThreadTS
				}
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
		if channel == "" {
			channel = s.DefaultChannel
		}
		if channel == "" {
			return domain.Invalid("channel_id: required: the ticket has no thread mapping and no default channel is configured")
		}
		now := s.now()
		n := chatdb.Notification{ID: domain.NewID(), OrgID: t.Row.OrgID, TicketID: &t.Row.ID, NotificationType: in.Type,
			ChannelID: channel, Text: compose(in, refOf(t), t.Row.Title, t.Row.Status), Status: "queued",
			CreatedAt: now, UpdatedAt: now}
		if thread != "" {
			n.ThreadTS = &thread
		}
		if _, err := chatdb.InsertNotification(ctx, q, n); err != nil {
			return err
		}
		out = Queued{Status: "queued", NotificationType: in.Type, ID: n.ID}
		return domain.Enqueue(ctx, q, n.OrgID, domain.NewID(), TopicNotify, NotifyJob{NotificationID: n.ID, OrgID: n.OrgID}, s.now())
	})
	return out, err
}

// compose writes a notification's text (Slack mrkdwn; user text escaped).
func compose(in NotifyRequest, ref, title, status string) string {
	subject := "*" + ref + "* " + escape(bounded(title, 200))
	mention := ""
	if in.UserSlackID != "" {
		mention = "<@" + in.UserSlackID + "> "
	}
	by := ""
	if in.ActorName != "" {
		by = " by " + escape(in.ActorName)
	}
	var text string
	switch in.Type {
	case TypeAssignment:
		text = mention + "assigned" + by + ": " + subject
	case TypeMention:
		text = mention + "mentioned" + by + " on " + subject
	case TypeStatusChange:
		from, to := in.OldStatus, in.NewStatus
		if to == "" {
			to = status
		}
		if from == "" {
			text = subject + " moved to *" + escape(to) + "*" + by
		} else {
			text = subject + " moved from *" + escape(from) + "* to *" + escape(to) + "*" + by
		}
		if mention != "" {
			text = mention + text
		}
	case TypeCommentSync:
		text = mention + "comment" + by + " on " + subject
	}
	if in.Message != "" {
		text += "\n>" + escape(in.Message)
	}
	return text
}

// Get reads a notification's delivery record (any member of its org).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Notification, error) {
	q := s.DB.Q()
	r, err := chatdb.GetNotification(ctx, q, id)
	if err != nil {
		return Notification{}, domain.NotFoundAs(err, "notification")
	}
	if _, err := domain.OrgAccess(ctx, q, p, r.OrgID, domain.RoleViewer, "notification"); err != nil {
		return Notification{}, err
	}
	return toNotification(r), nil
}
