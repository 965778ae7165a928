package notification

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/notificationdb"
)

// Service runs the watcher, inbox and settings use cases.
type Service struct {
	db    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{db: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Watcher is one entry of a ticket's watcher list.
type Watcher struct {
	UserID      uuid.UUID `json:"user_id"`
	DisplayName string    `json:"display_name"`
	Email       string    `json:"email"`
	Since       time.Time `json:"since"`
}

// ticketAccess reads a live ticket with the caller's access and authorizes
// min.
func ticketAccess(ctx context.Context, q store.Querier, p domain.Principal, ticketID uuid.UUID, min domain.Role) (store.TicketAccess, error) {
	t, err := store.TicketWithAccess(ctx, q, ticketID, p.UserID)
	if err != nil {
		return t, domain.NotFoundAs(err, "ticket")
	}
	_, err = domain.Authorize(p, domain.MembershipFrom(t.AccessRow), min, "ticket")
	return t, err
}

// Watchers pages a ticket's watchers (anyone who can read the ticket); a
// watcher who can no longer read it is not listed.
func (s *Service) Watchers(ctx context.Context, p domain.Principal, ticketID uuid.UUID, page domain.Page) (domain.Paged[Watcher], error) {
	q := s.db.Q()
	t, err := ticketAccess(ctx, q, p, ticketID, domain.RoleViewer)
	if err != nil {
		return domain.Paged[Watcher]{}, err
	}
	rows, err := notificationdb.Watchers(ctx, q, t.OrgID, t.ProjectID, ticketID, page)
	if err != nil {
		return domain.Paged[Watcher]{}, err
	}
	return domain.MapPage(rows, func(w notificationdb.Watcher) Watcher {
		return Watcher{UserID: w.UserID, DisplayName: w.DisplayName, Email: w.Email, Since: w.Since.UTC()}
	}), nil
}

// WatchSelf makes the caller watch a ticket they can read (idempotent).
func (s *Service) WatchSelf(ctx context.Context, p domain.Principal, ticketID uuid.UUID) error {
	return s.setWatch(ctx, p, ticketID, p.UserID, domain.RoleViewer, true)
}

// UnwatchSelf stops the caller watching a ticket they can read.
func (s *Service) UnwatchSelf(ctx context.Context, p domain.Principal, ticketID uuid.UUID) error {
	return s.setWatch(ctx, p, ticketID, p.UserID, domain.RoleViewer, false)
}

// Watch makes another person watch a ticket (Member or above); they must be
// able to read it, else 422.
func (s *Service) Watch(ctx context.Context, p domain.Principal, ticketID, userID uuid.UUID) error {
	return s.setWatch(ctx, p, ticketID, userID, domain.RoleMember, true)
}

// Unwatch stops another person watching a ticket (Member or above).
func (s *Service) Unwatch(ctx context.Context, p domain.Principal, ticketID, userID uuid.UUID) error {
	return s.setWatch(ctx, p, ticketID, userID, domain.RoleMember, false)
}

func (s *Service) setWatch(ctx context.Context, p domain.Principal, ticketID, userID uuid.UUID, min domain.Role, on bool) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		t, err := ticketAccess(ctx, q, p, ticketID, min)
		if err != nil {
			return err
		}
		if !on {
			return notificationdb.Unwatch(ctx, q, ticketID, userID)
		}
		readers, err := notificationdb.Readers(ctx, q, t.OrgID, t.ProjectID, []uuid.UUID{userID})
		if err != nil {
			return err
		}
		if len(readers) == 0 {
			return domain.Invalid("user_id: must be a member of the ticket's organization who can read the ticket")
		}
		return notificationdb.Watch(ctx, q, t.OrgID, t.ProjectID, ticketID, readers, s.now())
	})
}
