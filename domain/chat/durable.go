package chat

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/slack-go/slack"

	"tracker/domain"
	"tracker/domain/comment"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/chatdb"
	"tracker/store/ticketdb"
)

// This file holds the use cases the chat workflows run as activities:
// writing a thread reply as a comment, and a created ticket's follow-up
// (announce, map the thread, answer the command's response_url). Each is
// idempotent: its outcome is recorded and a second run reads it back.

// Notification types of the follow-up's delivery records.
const (
	TypeTicketAnnounced = "ticket_announced" // the created ticket posted in the command's channel
	TypeCommandResponse = "command_response" // the follow-up sent to the command's response_url
)

// ClientFor is slack-go's client for an org's chat calls: the bot token of
// its connected workspace (the team's, when given and connected to the
// org), else SERVICE_CHAT_BOT_TOKEN. ok is false when there is no token.
func (s *Service) ClientFor(ctx context.Context, orgID uuid.UUID, teamID string) (*slack.Client, bool, error) {
	w, err := s.workspaceOf(ctx, orgID, teamID)
	if err != nil {
		return nil, false, err
	}
	token := s.botToken(w)
	if token == "" {
		return nil, false, nil
	}
	return SlackClient(token, s.APIURL), true, nil
}

func (s *Service) workspaceOf(ctx context.Context, orgID uuid.UUID, teamID string) (*chatdb.Workspace, error) {
	q := s.DB.Q()
	if teamID != "" {
		w, err := chatdb.ConnectedWorkspace(ctx, q, teamID)
		if err == nil && w.OrgID == orgID {
			return &w, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	w, err := chatdb.WorkspaceOfOrg(ctx, q, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// ReplyOutcome is what a thread reply became.
type ReplyOutcome struct {
	Outcome   string     `json:"outcome"` // commented, or why not
	CommentID *uuid.UUID `json:"comment_id,omitempty"`
	AuthorID  *uuid.UUID `json:"author_id,omitempty"`
}

// Reply outcomes other than a refusal's reason.
const (
	OutcomeCommented = "commented"
	OutcomeEmpty     = "empty message"
)

// WriteReply writes a thread reply as a comment on the mapped ticket, once
// per event id: by the member the chat user is linked to (or matched now
// by the email users.info reports), checked as the comments API checks a
// person; else by the chat integration's user, the chat user's name leading
// the body. A refusal (the linked member may not comment, the ticket is
// gone) is recorded as the outcome, not retried.
func (s *Service) WriteReply(ctx context.Context, job ReplyJob) (ReplyOutcome, error) {
	q := s.DB.Q()
	if ev, err := chatdb.GetEvent(ctx, q, job.EventID); err == nil && ev.Outcome != nil {
		return ReplyOutcome{Outcome: *ev.Outcome, CommentID: ev.CommentID}, nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return ReplyOutcome{}, err
	}
	body := unescape(job.Text)
	w, err := s.workspaceOf(ctx, job.OrgID, job.TeamID)
	if err != nil {
		return ReplyOutcome{}, err
	}
	sc := scope{orgID: job.OrgID, workspace: w}
	var name string
	if strings.TrimSpace(body) != "" {
		if err := s.member(ctx, &sc, job.SlackUserID); err != nil {
			return ReplyOutcome{}, err
		}
		if sc.member == nil {
			name = s.chatName(ctx, w, job.SlackUserID)
			body = "**" + name + "** (via chat):\n\n" + body
		}
	}
	var out ReplyOutcome
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		ev, err := chatdb.GetEventForUpdate(ctx, q, job.EventID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if _, err := chatdb.ClaimEvent(ctx, q, job.EventID, &job.OrgID, s.now()); err != nil {
				return err
			}
		case err != nil:
			return err
		case ev.Outcome != nil:
			out = ReplyOutcome{Outcome: *ev.Outcome, CommentID: ev.CommentID}
			return nil
		}
		if strings.TrimSpace(body) == "" {
			out = ReplyOutcome{Outcome: OutcomeEmpty}
			return chatdb.SetEventOutcome(ctx, q, job.EventID, nil, out.Outcome)
		}
		via := map[string]any{"integration": "chat", "team_id": job.TeamID, "channel_id": job.ChannelID,
			"thread_ts": job.ThreadTS, "message_ts": job.MessageTS, "chat_user_id": job.SlackUserID, "event_id": job.EventID}
		in := comment.Integrated{OrgID: job.OrgID, TicketID: job.TicketID, Body: body, Via: via}
		if sc.member != nil {
			p := principal(job.OrgID, *sc.member)
			in.As = &p
		} else {
			if err := accountdb.EnsureSystemUser(ctx, q, UserID, userEmail, userName); err != nil {
				return err
			}
			in.AuthorID = UserID
			via["chat_user_name"] = name
		}
		c, err := comment.New(s.DB, s.Clock).CreateIn(ctx, q, in)
		if err != nil {
			e := domain.AsError(err)
			if e.Kind == domain.KindInternal {
				return err
			}
			out = ReplyOutcome{Outcome: "refused: " + e.Message}
			return chatdb.SetEventOutcome(ctx, q, job.EventID, nil, out.Outcome)
		}
		author := c.AuthorID
		out = ReplyOutcome{Outcome: OutcomeCommented, CommentID: &c.ID, AuthorID: &author}
		return chatdb.SetEventOutcome(ctx, q, job.EventID, &c.ID, out.Outcome)
	})
	return out, err
}

// chatName is how an unlinked chat user is named in a comment: the
// display name users.info reports, else the chat user id.
func (s *Service) chatName(ctx context.Context, w *chatdb.Workspace, slackUserID string) string {
	token := s.botToken(w)
	if token != "" && userPattern.MatchString(slackUserID) {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if u, err := SlackClient(token, s.APIURL).GetUserInfoContext(lctx, slackUserID); err == nil {
			for _, n := range []string{u.Profile.DisplayName, u.Profile.RealName, u.RealName, u.Name} {
				if n = strings.TrimSpace(n); n != "" && domain.ValidText(n) {
					return bounded(n, 100)
				}
			}
		}
	}
	return "chat user " + slackUserID
}

// unescape undoes the chat service's &, <, > escaping of message text.
func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// FollowupPlan is what a created ticket's follow-up will do: post the
// announcement record, then (when the command had a response_url) the
// response record.
type FollowupPlan struct {
	AnnouncementID uuid.UUID  `json:"announcement_id"`
	ResponseID     *uuid.UUID `json:"response_id,omitempty"`
	Ref            string     `json:"ref"`
}

// PlanFollowup writes the follow-up's delivery records (ids derived from
// the job's id, so running it again writes nothing new): the announcement
// of the ticket in the command's channel, queued for the ChatNotification
// activity, and the response_url answer's record.
func (s *Service) PlanFollowup(ctx context.Context, jobID uuid.UUID, job FollowupJob) (FollowupPlan, error) {
	var plan FollowupPlan
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketdb.KeyedByID(ctx, q, job.TicketID, uuid.Nil)
		if err != nil || t.Row.OrgID != job.OrgID {
			return domain.NotFoundAs(store.ErrNotFound, "ticket")
		}
		ref := refOf(t)
		now := s.now()
		plan = FollowupPlan{AnnouncementID: uuid.NewSHA1(jobID, []byte("announce")), Ref: ref}
		text := fmt.Sprintf("*%s* %s\nReplies in this thread become comments on the ticket. <%s|Open %s>",
			ref, escape(bounded(t.Row.Title, 200)), s.TicketURL(t.Row.ID), ref)
		if _, err := chatdb.InsertNotification(ctx, q, chatdb.Notification{ID: plan.AnnouncementID, OrgID: job.OrgID,
			TicketID: &t.Row.ID, NotificationType: TypeTicketAnnounced, ChannelID: job.ChannelID, Text: text,
			Status: "queued", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		if job.ResponseURL == "" {
			return nil
		}
		id := uuid.NewSHA1(jobID, []byte("response"))
		plan.ResponseID = &id
		_, err = chatdb.InsertNotification(ctx, q, chatdb.Notification{ID: id, OrgID: job.OrgID, TicketID: &t.Row.ID,
			NotificationType: TypeCommandResponse, ChannelID: job.ChannelID, Text: "", Status: "queued",
			CreatedAt: now, UpdatedAt: now})
		return err
	})
	return plan, err
}

// MapAnnouncement maps the announcement's thread to the created ticket (the
// integration is the actor); already mapped to it is success.
func (s *Service) MapAnnouncement(ctx context.Context, orgID, ticketID uuid.UUID, channel, ts string) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		m, err := chatdb.MappingOfThread(ctx, q, orgID, channel, ts)
		if err == nil {
			if m.TicketID != ticketID {
				return domain.Conflict("this chat thread is already mapped to another ticket")
			}
			return nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		var out Mapping
		return s.insertMapping(ctx, q, nil, chatdb.Mapping{ID: domain.NewID(), OrgID: orgID, TicketID: ticketID,
			ChannelID: channel, ThreadTS: ts, CreatedAt: s.now()}, &out)
	})
}

// FollowupText is the response_url answer after the announcement: where
// the thread is, or why there is none.
func FollowupText(ref, channel string, announced bool, reason string) string {
	if announced {
		return fmt.Sprintf("Announced *%s* in <#%s>: replies in its thread become comments on the ticket.", ref, channel)
	}
	if reason == "" {
		reason = "the chat service refused the post"
	}
	return fmt.Sprintf("Created *%s*, but could not start its thread in <#%s> (%s). Invite the app to the channel, "+
		"or map a thread with POST /api/v1/integrations/chat/thread-mappings.", ref, channel, bounded(reason, 200))
}

// ResponseURLAllowed says whether a command's response_url may be posted
// to: Slack's hooks host over https, or the configured chat API's origin
// (a stand-in or proxy). Anything else is dropped, so a signed request
// cannot aim the worker at an arbitrary address.
func (s *Service) ResponseURLAllowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || len(raw) > 2000 {
		return false
	}
	if u.Scheme == "https" && strings.EqualFold(u.Hostname(), "hooks.slack.com") {
		return true
	}
	if s.APIURL == "" {
		return false
	}
	a, err := url.Parse(s.APIURL)
	return err == nil && a.Scheme == u.Scheme && strings.EqualFold(a.Host, u.Host)
}
