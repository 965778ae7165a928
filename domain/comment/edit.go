package comment

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/commentdb"
)

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// authorOrAdmin loads a comment for change: its author needs the role that
// writes comments (Reporter), anyone else Admin.
func authorOrAdmin(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, lock commentdb.Lock) (commentdb.Row, error) {
	r, err := commentdb.GetWithAccess(ctx, q, id, p.UserID, lock)
	if err != nil {
		return commentdb.Row{}, domain.NotFoundAs(err, "comment")
	}
	m := domain.MembershipFrom(r.AccessRow)
	if r.AuthorID == p.UserID {
		_, err = domain.Authorize(p, m, domain.RoleReporter, "comment")
		return r.Row, err
	}
	if _, err := domain.Authorize(p, m, domain.RoleViewer, "comment"); err != nil {
		return commentdb.Row{}, err
	}
	if _, err := domain.Authorize(p, m, domain.RoleAdmin, "comment"); err != nil {
		return commentdb.Row{}, domain.Forbidden("only the comment's author or the Admin role may change this comment")
	}
	return r.Row, nil
}

// Update replaces a comment's body (its author or an Admin); under If-Match
// (domain.Versions) a stale version is a 412.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, pt domain.Patch[Content]) (Comment, error) {
	if err := check(pt); err != nil {
		return Comment{}, err
	}
	var out Comment
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		old, err := authorOrAdmin(ctx, q, p, id, commentdb.ForChange)
		if err != nil {
			return err
		}
		// Every PATCH writes (and bumps the version), changed or not; the
		// trail records that the comment was edited, never its text.
		c := domain.Changeset{Set: map[string]any{}}
		pt.Track(&c, old.Content)
		// If-Match is checked in the UPDATE's WHERE.
		r, err := commentdb.Update(ctx, q, old.OrgID, id, domain.Versions(ctx), c.Set, s.now())
		if err != nil {
			return domain.StaleAs(ctx, err, "comment")
		}
		out = toComment(r)
		if err := s.mentionAdded(ctx, q, p, old, r); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: r.TicketID, Action: ActionUpdated, Changes: []domain.FieldChange{
				{Field: "comment", Old: r.ID, New: r.ID},
				// Never the text: an edit or delete must not leave the old
				// body readable in the activity feed.
				{Field: "comment_body", Old: nil, New: "edited"},
			}})
	})
	return out, err
}

// Delete removes a comment and, with it, every reply in its thread (its
// author or an Admin), in one transaction.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		// ForDelete: no reply can be added to the thread while it goes.
		r, err := authorOrAdmin(ctx, q, p, id, commentdb.ForDelete)
		if err != nil {
			return err
		}
		// The author alone may not take other people's replies with it.
		others, err := commentdb.OthersInThread(ctx, q, r.OrgID, id, r.AuthorID)
		if err != nil {
			return err
		}
		if others > 0 {
			m, err := commentdb.GetWithAccess(ctx, q, id, p.UserID, commentdb.NoLock)
			if err != nil {
				return domain.NotFoundAs(err, "comment")
			}
			if _, err := domain.Authorize(p, domain.MembershipFrom(m.AccessRow), domain.RoleAdmin, "comment"); err != nil {
				return domain.Forbidden("deleting a comment whose thread has other people's replies requires the Admin role")
			}
		}
		// If-Match is checked in the DELETE's WHERE (its root).
		ids, err := commentdb.DeleteThread(ctx, q, r.OrgID, id, domain.Versions(ctx))
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return domain.StaleAs(ctx, store.ErrNotFound, "comment")
		}
		changes := make([]domain.FieldChange, 0, len(ids))
		for _, d := range ids {
			changes = append(changes, domain.FieldChange{Field: "comment", Old: d, New: nil})
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: r.TicketID, Action: ActionDeleted, Changes: changes})
	})
}

// mentionAdded tells the people an edit newly mentions (an edit tells
// nobody else).
func (s *Service) mentionAdded(ctx context.Context, q store.Querier, p domain.Principal, old, r commentdb.Row) error {
	if old.Body == r.Body {
		return nil
	}
	t, err := store.TicketWithAccess(ctx, q, r.TicketID, p.UserID)
	if err != nil {
		return domain.NotFoundAs(err, "ticket")
	}
	added, err := notification.NewlyMentioned(ctx, q, r.OrgID, t.ProjectID, old.Body, r.Body)
	if err != nil || len(added) == 0 {
		return err
	}
	ev := notification.Event{OrgID: r.OrgID, ProjectID: t.ProjectID, TicketID: &r.TicketID, ActorID: &p.UserID, Excerpt: r.Body, At: s.now()}
	ev.Mention(added)
	return notification.Emit(ctx, q, ev)
}
