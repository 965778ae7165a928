// Package comment holds the use cases of ticket comments. Comment changes are
// recorded on the ticket's audit trail (entity_type "ticket"), so they show
// in the ticket's activity feed; field "comment" carries the comment id.
package comment

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/commentdb"
)

// Audit actions on the ticket's trail.
const (
	ActionCreated = "comment_created"
	ActionUpdated = "comment_updated"
	ActionDeleted = "comment_deleted"
)

// Service runs the comment use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Content are a comment's own values (commentdb.Content): what a create
// sets and a PATCH changes, field by field (domain.Patch).
type Content = commentdb.Content

// Comment is the API's Comment resource.
type Comment struct {
	ID       uuid.UUID `json:"id"`
	TicketID uuid.UUID `json:"ticket_id"`
	AuthorID uuid.UUID `json:"author_id"`
	Content
	ParentCommentID *uuid.UUID `json:"parent_comment_id"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the comment's ETag version (domain.Versioned).
func (c Comment) RowVersion() int64 { return c.Version }

func toComment(r commentdb.Row) Comment {
	return Comment{ID: r.ID, TicketID: r.TicketID, AuthorID: r.AuthorID, Content: r.Content,
		ParentCommentID: r.ParentCommentID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.RowVersion}
}

// CheckContent applies the rules of a comment's own values to those the
// patch sets (a new comment's, as domain.Filled, too): the one check of a
// create, a PATCH and an imported comment. A field without a rule needs no
// line here.
func CheckContent(p *domain.Problems, pt domain.Patch[Content]) {
	if pt.Has("body") && strings.TrimSpace(pt.Value.Body) == "" {
		p.Add("body", "must be at least 1 non-blank character") // a comment says something
	}
}

// check is CheckContent's error.
func check(pt domain.Patch[Content]) error {
	var p domain.Problems
	CheckContent(&p, pt)
	return p.Err()
}

func (s *Service) now() time.Time { return s.clock.Now() }

// Create adds a comment to a ticket (Reporter, assigned to the ticket's
// project when a Reporter). The author is the caller.
func (s *Service) Create(ctx context.Context, p domain.Principal, ticketID uuid.UUID, c Content, parentID *uuid.UUID) (Comment, error) {
	if err := check(domain.Filled(c, "body")); err != nil {
		return Comment{}, err
	}
	var out Comment
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := store.TicketWithAccess(ctx, q, ticketID, p.UserID)
		if err != nil {
			return domain.NotFoundAs(err, "ticket")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleReporter, "ticket"); err != nil {
			return err
		}
		at := s.now()
		ev := notification.Event{OrgID: t.OrgID, ProjectID: t.ProjectID, TicketID: &ticketID, ActorID: &p.UserID,
			Watch: []uuid.UUID{p.UserID}, Watchers: notification.TypeCommented, Excerpt: c.Body, At: at}
		if parentID != nil {
			parent, err := commentdb.Get(ctx, q, t.OrgID, *parentID)
			if err != nil && !isNotFound(err) {
				return err
			}
			if err != nil || parent.TicketID != ticketID {
				return domain.Invalid("parent_comment_id: must be a comment of the same ticket")
			}
			ev.Tell(parent.AuthorID, notification.TypeReplied)
		}
		mentioned, err := notification.Mentioned(ctx, q, t.OrgID, t.ProjectID, c.Body)
		if err != nil {
			return err
		}
		ev.Mention(mentioned)
		if err := notification.Emit(ctx, q, ev); err != nil {
			return err
		}
		r := commentdb.Row{ID: domain.NewID(), OrgID: t.OrgID, TicketID: ticketID, AuthorID: p.UserID, Content: c,
			ParentCommentID: parentID, CreatedAt: at, UpdatedAt: at, RowVersion: 1}
		if err := commentdb.Insert(ctx, q, r); err != nil {
			return err
		}
		out = toComment(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: ticketID, Action: ActionCreated,
			Changes: []domain.FieldChange{{Field: "comment", Old: nil, New: r.ID}},
			Events:  []string{domain.EventCommentCreated}, Data: out})
	})
	return out, err
}

// List pages a ticket's comments in creation order; replies carry
// parent_comment_id, so clients thread them.
func (s *Service) List(ctx context.Context, p domain.Principal, ticketID uuid.UUID, page domain.Page) (domain.Paged[Comment], error) {
	q := s.DB.Q()
	t, err := store.TicketWithAccess(ctx, q, ticketID, p.UserID)
	if err != nil {
		return domain.Paged[Comment]{}, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return domain.Paged[Comment]{}, err
	}
	rows, err := commentdb.ListByTicket(ctx, q, t.OrgID, ticketID, page)
	if err != nil {
		return domain.Paged[Comment]{}, err
	}
	return domain.MapPage(rows, toComment), nil
}

// Get reads one comment.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Comment, error) {
	r, err := commentdb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID, commentdb.NoLock)
	if err != nil {
		return Comment{}, domain.NotFoundAs(err, "comment")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleViewer, "comment"); err != nil {
		return Comment{}, err
	}
	return toComment(r.Row), nil
}
