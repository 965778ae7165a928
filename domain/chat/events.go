package chat

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/slack-go/slack/slackevents"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// TopicReplyComment is the outbox topic of a thread reply to write as a
// comment (payload ReplyJob).
const TopicReplyComment = "job.chat_reply_comment"

// ReplyJob is a chat message in a mapped thread, to become a comment.
type ReplyJob struct {
	EventID     string    `json:"event_id"`
	OrgID       uuid.UUID `json:"org_id"`
	TicketID    uuid.UUID `json:"ticket_id"`
	TeamID      string    `json:"team_id"`
	ChannelID   string    `json:"channel_id"`
	ThreadTS    string    `json:"thread_ts"`
	MessageTS   string    `json:"message_ts"`
	SlackUserID string    `json:"slack_user_id"`
	Text        string    `json:"text"`
}

// EventAck is the answer to an event delivery.
type EventAck struct {
	Status    string `json:"status"` // ok (url_verification), queued, duplicate, ignored
	Challenge string `json:"challenge,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// MaxEventID bounds an event id.
const MaxEventID = 200

// HandleEvent answers a verified event delivery at once: url_verification
// echoes the challenge; a person's message in a mapped thread is recorded
// by event id (a retried delivery is a duplicate) and queued for the
// ChatReplyComment workflow in one transaction; everything else is
// acknowledged and ignored.
func (s *Service) HandleEvent(ctx context.Context, body []byte) (EventAck, error) {
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		return EventAck{}, domain.BadRequest("malformed event payload")
	}
	switch ev.Type {
	case slackevents.URLVerification:
		v, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent)
		if !ok {
			return EventAck{}, domain.BadRequest("malformed url_verification payload")
		}
		return EventAck{Status: "ok", Challenge: v.Challenge}, nil
	case slackevents.CallbackEvent:
	default:
		return EventAck{Status: "ignored", Reason: "event type not handled"}, nil
	}
	cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent)
	if !ok {
		return EventAck{}, domain.BadRequest("malformed event_callback payload")
	}
	m, ok := ev.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok {
		return EventAck{Status: "ignored", Reason: "only message events are handled"}, nil
	}
	// New messages by people in a thread only: not bots (our own posts
	// included), not edits, deletions or other subtypes.
	if m.BotID != "" || m.User == "" || (m.SubType != "" && m.SubType != "thread_broadcast") ||
		m.ThreadTimeStamp == "" || m.ThreadTimeStamp == m.TimeStamp {
		return EventAck{Status: "ignored", Reason: "not a person's reply in a thread"}, nil
	}
	eventID := cb.EventID
	if eventID == "" {
		eventID = "ts:" + m.Channel + "/" + m.TimeStamp
	}
	if len(eventID) > MaxEventID || !domain.ValidText(eventID) {
		return EventAck{}, domain.BadRequest("event_id: at most 200 characters of text")
	}
	if !domain.ValidText(m.Text) || !domain.ValidText(m.User) || !domain.ValidText(cb.TeamID) {
		return EventAck{}, domain.BadRequest("event text is not valid UTF-8 text")
	}
	var ack EventAck
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		mp, reason, err := s.threadMapping(ctx, q, cb.TeamID, m.Channel, m.ThreadTimeStamp)
		if err != nil || reason != "" {
			ack = EventAck{Status: "ignored", Reason: reason}
			return err
		}
		fresh, err := chatdb.ClaimEvent(ctx, q, eventID, &mp.OrgID, s.now())
		if err != nil {
			return err
		}
		if !fresh {
			ack = EventAck{Status: "duplicate"}
			return nil
		}
		ack = EventAck{Status: "queued"}
		return domain.Enqueue(ctx, q, mp.OrgID, domain.NewID(), TopicReplyComment, ReplyJob{EventID: eventID, OrgID: mp.OrgID,
			TicketID: mp.TicketID, TeamID: cb.TeamID, ChannelID: m.Channel, ThreadTS: m.ThreadTimeStamp, MessageTS: m.TimeStamp,
			SlackUserID: m.User, Text: m.Text}, s.now())
	})
	return ack, err
}

// Why a reply in a thread is not queued.
const (
	reasonNotMapped    = "thread not mapped to a ticket"
	reasonNotConnected = "this workspace is not connected to an organization"
	reasonAmbiguous    = "thread mapped in several organizations; an admin must connect this workspace to one organization"
)

// threadMapping is the mapping a reply delivered by a team comes under: the
// one of the team's connected org; for a team connected to no org, in the
// installation tenancy, the one mapping among the orgs that accept such
// workspaces. Otherwise reason says why there is none. No other org's
// mapping is ever read for a connected team, so one org's mapping of a
// thread never captures another's replies.
func (s *Service) threadMapping(ctx context.Context, q store.Querier, teamID, channel, threadTS string) (chatdb.Mapping, string, error) {
	w, err := chatdb.ConnectedWorkspace(ctx, q, teamID)
	switch {
	case err == nil:
		mp, err := chatdb.MappingOfThread(ctx, q, w.OrgID, channel, threadTS)
		if errors.Is(err, store.ErrNotFound) {
			return mp, reasonNotMapped, nil
		}
		return mp, "", err
	case !errors.Is(err, store.ErrNotFound):
		return chatdb.Mapping{}, "", err
	case !s.installationTenancy():
		return chatdb.Mapping{}, reasonNotConnected, nil
	}
	mps, err := chatdb.OpenMappingsOfThread(ctx, q, channel, threadTS)
	switch {
	case err != nil:
		return chatdb.Mapping{}, "", err
	case len(mps) == 0:
		return chatdb.Mapping{}, reasonNotMapped, nil
	case len(mps) > 1:
		return chatdb.Mapping{}, reasonAmbiguous, nil
	}
	return mps[0], "", nil
}
