// Package delivery takes personal notifications (domain/notification's
// inbox rows) out of the service: email digests, direct messages in chat,
// and the unsubscribe link.
//
// Every send decides at send time: the notifications a digest carries are
// read again when it is sent, so one whose type was turned off, whose
// recipient can no longer read the ticket, or whose ticket is gone is not
// sent, and email turned off by then sends nothing.
package delivery

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/chat"
	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/deliverydb"
)

// UnsubscribePath is the public route of the unsubscribe link.
const UnsubscribePath = "/api/v1/email/unsubscribe"

// Reasons email was turned off by the service (settings' email.disabled_reason).
const (
	ReasonUnsubscribed = "unsubscribed by the link in an email"
	// ReasonRefused is followed by the mail server's answer.
	ReasonRefused = "the mail server refused the address for good: "
)

// ChatType is the notification_type of a direct message's chat delivery
// record.
const ChatType = "direct_message"

// Service runs delivery's use cases.
type Service struct {
	db        *store.DB
	clock     domain.Clock
	publicURL string
	tokens    tokens
}

// New builds the service: links point at publicURL, and unsubscribe links
// are signed with a key derived from secret.
func New(db *store.DB, clock domain.Clock, publicURL string, secret []byte) *Service {
	return &Service{db: db, clock: clock, publicURL: strings.TrimRight(publicURL, "/"), tokens: newTokens(secret)}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// UnsubscribeURL is a user's one-click unsubscribe link.
func (s *Service) UnsubscribeURL(userID uuid.UUID) string {
	return s.publicURL + UnsubscribePath + "?token=" + s.tokens.Sign(userID)
}

// DigestMinutes is a user's digest window now (0: at once).
func (s *Service) DigestMinutes(ctx context.Context, userID uuid.UUID) (int, error) {
	r, err := deliverydb.GetRecipient(ctx, s.db.Q(), userID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil // the user is gone: the send finds nothing to send
	}
	return r.DigestMinutes, err
}

// WantsEmail reports whether a user has email on now (a digest checks
// again when it sends).
func (s *Service) WantsEmail(ctx context.Context, userID uuid.UUID) (bool, error) {
	r, err := deliverydb.GetRecipient(ctx, s.db.Q(), userID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil && r.EmailEnabled && r.Active, err
}

// Plan is what one digest does: the email to send (nil: none), the
// notifications it carries and those it drops.
type Plan struct {
	Email *Email      `json:"email"`
	Send  []uuid.UUID `json:"send"`
	Skip  []uuid.UUID `json:"skip"`
}

// PlanDigest decides a digest of ids for userID now: nothing when email is
// off or the user inactive, else the notifications still deliverable and
// not yet emailed.
func (s *Service) PlanDigest(ctx context.Context, userID uuid.UUID, ids []uuid.UUID) (Plan, error) {
	q := s.db.Q()
	r, err := deliverydb.GetRecipient(ctx, q, userID)
	if errors.Is(err, store.ErrNotFound) {
		return Plan{}, nil
	}
	if err != nil {
		return Plan{}, err
	}
	var items []deliverydb.Item
	if r.EmailEnabled && r.Active && r.Email != "" {
		if items, err = deliverydb.ForEmail(ctx, q, userID, ids); err != nil {
			return Plan{}, err
		}
	}
	var p Plan
	for _, it := range items {
		p.Send = append(p.Send, it.ID)
	}
	for _, id := range ids {
		if !slices.Contains(p.Send, id) && !slices.Contains(p.Skip, id) {
			p.Skip = append(p.Skip, id)
		}
	}
	if len(items) == 0 {
		return p, nil
	}
	e, err := compose(r, items, s.publicURL, s.UnsubscribeURL(userID), s.host())
	if err != nil {
		return Plan{}, err
	}
	p.Email = &e
	return p, nil
}

func (s *Service) host() string {
	if u, err := url.Parse(s.publicURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "tracker.invalid"
}

// Done records a digest's outcome: sent carried, skip dropped. A
// notification recorded is never emailed again.
func (s *Service) Done(ctx context.Context, userID uuid.UUID, sent, skip []uuid.UUID) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		if err := deliverydb.MarkEmailed(ctx, q, userID, sent, "sent", s.now()); err != nil {
			return err
		}
		return deliverydb.MarkEmailed(ctx, q, userID, skip, "skipped", s.now())
	})
}

// Refused turns email off for a user whose address the mail server refused
// for good, keeping its answer as the reason.
func (s *Service) Refused(ctx context.Context, userID uuid.UUID, answer string) error {
	return deliverydb.DisableEmail(ctx, s.db.Q(), userID, ReasonRefused+answer, s.now())
}

// Unsubscribe turns email off for the user a link's token names; a token
// this service did not sign is not found.
func (s *Service) Unsubscribe(ctx context.Context, token string) error {
	id, ok := s.tokens.Verify(token)
	if !ok {
		return domain.NotFound("unsubscribe link")
	}
	err := deliverydb.DisableEmail(ctx, s.db.Q(), id, ReasonUnsubscribed, s.now())
	if errors.Is(err, store.ErrInvalidRef) {
		return domain.NotFound("unsubscribe link") // the user was deleted
	}
	return err
}

// CheckToken reports whether a token is one this service signed (the
// confirmation page's GET changes nothing).
func (s *Service) CheckToken(token string) error {
	if _, ok := s.tokens.Verify(token); !ok {
		return domain.NotFound("unsubscribe link")
	}
	return nil
}

// QueueChat queues notification id as a direct message to its recipient's
// linked chat user, when they should get one (chat on, linked in the
// notification's org, the type on, the ticket readable), with the chat
// integration's delivery record and outbox row (its ChatNotification
// workflow posts it, honouring the chat service's rate limits). It is
// idempotent: the record's id is the notification's. It reports whether a
// message was queued.
func (s *Service) QueueChat(ctx context.Context, id uuid.UUID) (bool, error) {
	queued := false
	err := s.db.InTx(ctx, func(q store.Querier) error {
		t, err := deliverydb.GetChatTarget(ctx, q, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		now := s.now()
		n := chatdb.Notification{ID: t.ID, OrgID: t.OrgID, TicketID: t.TicketID, NotificationType: ChatType,
			ChannelID: t.SlackUserID, Text: s.chatText(t.Item), Status: "queued", CreatedAt: now, UpdatedAt: now}
		if queued, err = chatdb.InsertNotification(ctx, q, n); err != nil || !queued {
			return err
		}
		return domain.Enqueue(ctx, q, t.OrgID, domain.NewID(), chat.TopicNotify, chat.NotifyJob{NotificationID: n.ID, OrgID: n.OrgID}, now)
	})
	return queued, err
}

// chatText is a direct message's text (Slack mrkdwn; user text escaped).
func (s *Service) chatText(it deliverydb.Item) string {
	h := mrkdwn(headline(it))
	if it.TicketID != nil {
		h = "<" + TicketURL(s.publicURL, *it.TicketID) + "|" + h + ">"
	}
	if it.Excerpt != "" {
		h += "\n> " + mrkdwn(strings.ReplaceAll(it.Excerpt, "\n", " "))
	}
	return h
}

func mrkdwn(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
