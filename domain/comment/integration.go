package comment

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/commentdb"
)

// Integrated is a comment an integration writes (the chat integration's
// thread replies), inside the caller's transaction.
type Integrated struct {
	OrgID    uuid.UUID // the ticket must be in this org
	TicketID uuid.UUID
	Body     string
	// As, when set, is the linked member the comment is written as: checked
	// exactly as Create checks a person (Reporter on the ticket's project).
	As *domain.Principal
	// AuthorID is the integration's own user when As is nil (no membership
	// check: the integration authenticated its caller by signature).
	AuthorID uuid.UUID
	Via      any // what it came through, on the audit row
}

// CreateIn adds an integration's comment in q's transaction: the audit row
// (with Via) and comment.created commit with it.
func (s *Service) CreateIn(ctx context.Context, q store.Querier, in Integrated) (Comment, error) {
	if err := check(domain.Filled(Content{Body: in.Body}, "body")); err != nil {
		return Comment{}, err
	}
	author := in.AuthorID
	if in.As != nil {
		author = in.As.UserID
	}
	t, err := store.TicketWithAccess(ctx, q, in.TicketID, author)
	if err != nil || t.OrgID != in.OrgID {
		return Comment{}, domain.NotFoundAs(store.ErrNotFound, "ticket")
	}
	if in.As != nil {
		if _, err := domain.Authorize(*in.As, domain.MembershipFrom(t.AccessRow), domain.RoleReporter, "ticket"); err != nil {
			return Comment{}, err
		}
	}
	at := s.now()
	// The integration's own user watches nothing; a linked member does.
	ev := notification.Event{OrgID: t.OrgID, ProjectID: t.ProjectID, TicketID: &in.TicketID, ActorID: &author,
		Watchers: notification.TypeCommented, Excerpt: in.Body, At: at}
	if in.As != nil {
		ev.Watch = []uuid.UUID{author}
	}
	mentioned, err := notification.Mentioned(ctx, q, t.OrgID, t.ProjectID, in.Body)
	if err != nil {
		return Comment{}, err
	}
	ev.Mention(mentioned)
	if err := notification.Emit(ctx, q, ev); err != nil {
		return Comment{}, err
	}
	r := commentdb.Row{ID: domain.NewID(), OrgID: t.OrgID, TicketID: in.TicketID, AuthorID: author, Content: Content{Body: in.Body},
		CreatedAt: at, UpdatedAt: at, RowVersion: 1}
	if err := commentdb.Insert(ctx, q, r); err != nil {
		return Comment{}, err
	}
	out := toComment(r)
	return out, domain.Record(ctx, q, domain.Change{At: at, OrgID: t.OrgID, ActorID: &author, EntityType: "ticket",
		EntityID: in.TicketID, Action: ActionCreated, Via: in.Via,
		Changes: []domain.FieldChange{{Field: "comment", Old: nil, New: r.ID}},
		Events:  []string{domain.EventCommentCreated}, Data: out})
}
