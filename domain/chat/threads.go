package chat

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/chatdb"
)

// Mapping is a chat thread mapping (the spec's fields).
type Mapping struct {
	ID        uuid.UUID `json:"id"`
	TicketID  uuid.UUID `json:"ticket_id"`
	ChannelID string    `json:"channel_id"`
	ThreadTS  string    `json:"thread_ts"`
	CreatedAt time.Time `json:"created_at"`
}

func toMapping(r chatdb.Mapping) Mapping {
	return Mapping{ID: r.ID, TicketID: r.TicketID, ChannelID: r.ChannelID, ThreadTS: r.ThreadTS, CreatedAt: r.CreatedAt.UTC()}
}

// CreateMapping maps a chat thread to a ticket (Member on the ticket's
// project); a thread maps to one ticket of an org (409), whatever other
// orgs mapped it to.
func (s *Service) CreateMapping(ctx context.Context, p domain.Principal, ticketID uuid.UUID, channel, threadTS string) (Mapping, error) {
	var probs domain.Problems
	if channel == "" {
		probs.Add("channel_id", "required")
	}
	if threadTS == "" {
		probs.Add("thread_ts", "required")
	}
	checkChannel(&probs, "channel_id", channel)
	checkTS(&probs, "thread_ts", threadTS)
	if err := probs.Err(); err != nil {
		return Mapping{}, err
	}
	var out Mapping
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketFor(ctx, q, p, ticketID, domain.RoleMember)
		if err != nil {
			return err
		}
		return s.insertMapping(ctx, q, &p.UserID, chatdb.Mapping{ID: domain.NewID(), OrgID: t.Row.OrgID, TicketID: t.Row.ID,
			ChannelID: channel, ThreadTS: threadTS, CreatedAt: s.now()}, &out)
	})
	return out, err
}

func (s *Service) insertMapping(ctx context.Context, q store.Querier, actor *uuid.UUID, m chatdb.Mapping, out *Mapping) error {
	if err := chatdb.InsertMapping(ctx, q, m); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return domain.Conflict("this chat thread is already mapped to a ticket of this organization", "channel_id: "+m.ChannelID,
				"thread_ts: "+m.ThreadTS)
		}
		return err
	}
	*out = toMapping(m)
	return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: m.OrgID, ActorID: actor, EntityType: "ticket", EntityID: m.TicketID,
		Action: "chat_thread_mapped", Changes: []domain.FieldChange{{Field: "chat_thread", New: m.ChannelID + "/" + m.ThreadTS}}})
}

// Mappings pages a visible ticket's thread mappings.
func (s *Service) Mappings(ctx context.Context, p domain.Principal, ticketID uuid.UUID, page domain.Page) (domain.Paged[Mapping], error) {
	q := s.DB.Q()
	t, err := ticketFor(ctx, q, p, ticketID, domain.RoleViewer)
	if err != nil {
		return domain.Paged[Mapping]{}, err
	}
	rows, err := chatdb.MappingsPage(ctx, q, t.Row.OrgID, t.Row.ID, page)
	if err != nil {
		return domain.Paged[Mapping]{}, err
	}
	return domain.MapPage(rows, toMapping), nil
}
