package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// Subscription event types: two of the service's events, and
// ticket.assigned (a ticket.updated that changed the assignee).
const EventTicketAssigned = "ticket.assigned"

// SubscriptionEvents are what a channel may follow.
var SubscriptionEvents = []string{domain.EventTicketCreated, domain.EventTicketStatusChanged, EventTicketAssigned}

// SubscribableEvents are the outbox topics the relay hands to the chat
// feature for automatic notifications.
var SubscribableEvents = []string{domain.EventTicketCreated, domain.EventTicketStatusChanged, domain.EventTicketUpdated}

// Subscription is a channel following an org's ticket events.
type Subscription struct {
	ID         uuid.UUID `json:"id"`
	OrgID      uuid.UUID `json:"org_id"`
	ChannelID  string    `json:"channel_id"`
	EventTypes []string  `json:"event_types"`
	CreatedAt  time.Time `json:"created_at"`
}

func toSubscription(r chatdb.Subscription) Subscription {
	return Subscription{ID: r.ID, OrgID: r.OrgID, ChannelID: r.ChannelID, EventTypes: r.EventTypes, CreatedAt: r.CreatedAt.UTC()}
}

// Subscribe sets the events a channel follows (Admin); an empty list stops
// them.
func (s *Service) Subscribe(ctx context.Context, p domain.Principal, orgID uuid.UUID, channel string, events []string) (Subscription, error) {
	var probs domain.Problems
	if channel == "" {
		probs.Add("channel_id", "required")
	}
	checkChannel(&probs, "channel_id", channel)
	evs := []string{}
	for _, e := range events {
		if !slices.Contains(SubscriptionEvents, e) {
			probs.Add("event_types", fmt.Sprintf("%q is not one of %s", bounded(e, 40), strings.Join(SubscriptionEvents, ", ")))
		} else if !slices.Contains(evs, e) {
			evs = append(evs, e)
		}
	}
	if err := probs.Err(); err != nil {
		return Subscription{}, err
	}
	var out Subscription
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		r, err := chatdb.UpsertSubscription(ctx, q, chatdb.Subscription{ID: domain.NewID(), OrgID: orgID, ChannelID: channel,
			EventTypes: evs, CreatedAt: s.now()})
		out = toSubscription(r)
		return err
	})
	return out, err
}

// Subscriptions pages an org's subscriptions (Admin).
func (s *Service) Subscriptions(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Subscription], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return domain.Paged[Subscription]{}, err
	}
	rows, err := chatdb.SubscriptionsPage(ctx, q, orgID, page)
	if err != nil {
		return domain.Paged[Subscription]{}, err
	}
	return domain.MapPage(rows, toSubscription), nil
}

// eventTicket is the part of a ticket event's payload read here.
type eventTicket struct {
	Type string `json:"type"`
	Data struct {
		ID           uuid.UUID  `json:"id"`
		ProjectID    uuid.UUID  `json:"project_id"`
		TicketNumber int32      `json:"ticket_number"`
		Title        string     `json:"title"`
		Status       string     `json:"status"`
		AssigneeID   *uuid.UUID `json:"assignee_id"`
	} `json:"data"`
	Changes []domain.FieldChange `json:"changes"`
}

// QueueForEvent writes one queued notification per subscribed channel of
// the event's org and returns their ids (the relay starts their
// workflows). Ids derive from the event and the subscription, so offering
// the same event again queues nothing twice.
func (s *Service) QueueForEvent(ctx context.Context, eventID, orgID uuid.UUID, payload []byte) ([]uuid.UUID, error) {
	var ev eventTicket
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, nil // not a ticket event this feature reads
	}
	kind := ev.Type
	if kind == domain.EventTicketUpdated {
		if !slices.ContainsFunc(ev.Changes, func(c domain.FieldChange) bool { return c.Field == "assignee_id" }) {
			return nil, nil
		}
		kind = EventTicketAssigned
	}
	var ids []uuid.UUID
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		subs, err := chatdb.SubscriptionsFor(ctx, q, orgID, kind)
		if err != nil || len(subs) == 0 {
			return err
		}
		key, err := chatdb.ProjectKey(ctx, q, orgID, ev.Data.ProjectID)
		if err != nil {
			return err
		}
		assignee := ""
		if kind == EventTicketAssigned && ev.Data.AssigneeID != nil {
			if assignee, err = chatdb.UserName(ctx, q, *ev.Data.AssigneeID); err != nil {
				return err
			}
		}
		text := eventText(kind, fmt.Sprintf("%s-%d", key, ev.Data.TicketNumber), ev, assignee)
		now := s.now()
		for _, sub := range subs {
			id := uuid.NewSHA1(eventID, sub.ID[:])
			ticketID := ev.Data.ID
			n := chatdb.Notification{ID: id, OrgID: orgID, TicketID: &ticketID, NotificationType: TypeTicketEvent,
				ChannelID: sub.ChannelID, Text: text, Status: "queued", CreatedAt: now, UpdatedAt: now}
			if _, err := chatdb.InsertNotification(ctx, q, n); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

func eventText(kind, ref string, ev eventTicket, assignee string) string {
	subject := "*" + ref + "* " + escape(bounded(ev.Data.Title, 200))
	switch kind {
	case domain.EventTicketCreated:
		return "New ticket " + subject
	case domain.EventTicketStatusChanged:
		for _, c := range ev.Changes {
			if c.Field == "status" {
				return fmt.Sprintf("%s moved from *%v* to *%v*", subject, escape(fmt.Sprint(c.Old)), escape(fmt.Sprint(c.New)))
			}
		}
		return subject + " moved to *" + escape(ev.Data.Status) + "*"
	}
	if kind == EventTicketAssigned && ev.Data.AssigneeID == nil {
		return subject + " is now unassigned"
	}
	if assignee != "" {
		return subject + " was assigned to " + escape(bounded(assignee, 100))
	}
	return subject + " was assigned"
}
