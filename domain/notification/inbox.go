package notification

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/notificationdb"
)

// Ref names a notification's ticket.
type Ref struct {
	ID    uuid.UUID `json:"id"`
	Key   string    `json:"key"`
	Title string    `json:"title"`
}

// Actor names who caused a notification.
type Actor struct {
	ID          uuid.UUID `json:"id"`
	DisplayName string    `json:"display_name"`
}

// Notification is the API's Notification resource.
type Notification struct {
	ID        uuid.UUID  `json:"id"`
	OrgID     uuid.UUID  `json:"org_id"`
	Type      string     `json:"type"`
	Ticket    *Ref       `json:"ticket"`
	Actor     *Actor     `json:"actor"`
	Excerpt   string     `json:"excerpt"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at"`
}

func toNotification(r notificationdb.Row) Notification {
	n := Notification{ID: r.ID, OrgID: r.OrgID, Type: r.Type, Excerpt: r.Excerpt, CreatedAt: r.CreatedAt.UTC()}
	if r.TicketID != nil && r.TicketKey != nil && r.TicketTitle != nil {
		n.Ticket = &Ref{ID: *r.TicketID, Key: *r.TicketKey, Title: *r.TicketTitle}
	}
	if r.ActorID != nil && r.ActorName != nil {
		n.Actor = &Actor{ID: *r.ActorID, DisplayName: *r.ActorName}
	}
	if r.ReadAt != nil {
		t := r.ReadAt.UTC()
		n.ReadAt = &t
	}
	return n
}

// Query narrows a caller's inbox.
type Query struct {
	UnreadOnly bool
	OrgID      uuid.UUID // uuid.Nil: every org
}

// filter is what of their own inbox p may see: a caller bound to one org
// (an API key, a single sign-on session) that org's only, a key restricted
// to projects those projects' only, and never an org whose membership only
// its single sign-on reaches.
func filter(p domain.Principal, q Query) notificationdb.Filter {
	f := notificationdb.Filter{UserID: p.UserID, OrgID: q.OrgID, UnreadOnly: q.UnreadOnly, NotOrgs: p.SSOOnlyOrgs}
	if len(p.ProjectIDs) > 0 {
		f.Projects = p.ProjectIDs
	}
	if p.Bound() {
		if f.OrgID != uuid.Nil && f.OrgID != p.OrgID {
			f.OrgID = uuid.Max // asks for an org the caller does not reach: nothing
		} else {
			f.OrgID = p.OrgID
		}
	}
	return f
}

// List pages the caller's own notifications, newest first.
func (s *Service) List(ctx context.Context, p domain.Principal, q Query, page domain.Page) (domain.Paged[Notification], error) {
	rows, err := notificationdb.List(ctx, s.db.Q(), filter(p, q), page)
	if err != nil {
		return domain.Paged[Notification]{}, err
	}
	return domain.MapPage(rows, toNotification), nil
}

// UnreadCount counts the caller's unread notifications.
func (s *Service) UnreadCount(ctx context.Context, p domain.Principal, q Query) (int64, error) {
	return notificationdb.UnreadCount(ctx, s.db.Q(), filter(p, q))
}

// Read marks one of the caller's notifications read; anyone else's is a 404.
func (s *Service) Read(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	err := notificationdb.MarkRead(ctx, s.db.Q(), filter(p, Query{}), id, s.now())
	return domain.NotFoundAs(err, "notification")
}

// ReadAll marks all of the caller's notifications read (in one org with
// q.OrgID).
func (s *Service) ReadAll(ctx context.Context, p domain.Principal, q Query) error {
	return notificationdb.MarkAllRead(ctx, s.db.Q(), filter(p, q), s.now())
}
