package ticket

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Link types as a ticket sees them: blocks/blocked_by and
// duplicates/duplicated_by are the two ends of one link; relates_to is the
// same from both.
const (
	LinkBlocks       = "blocks"
	LinkBlockedBy    = "blocked_by"
	LinkDuplicates   = "duplicates"
	LinkDuplicatedBy = "duplicated_by"
	LinkRelatesTo    = "relates_to"
)

// Audit actions of links, on both tickets' trails.
const (
	ActionLinked   = "linked"
	ActionUnlinked = "unlinked"
)

const linkTypesList = "blocks, blocked_by, duplicates, duplicated_by, relates_to"

// Link is one link of a ticket, from that ticket's side.
type Link struct {
	ID        uuid.UUID    `json:"id"`
	Type      string       `json:"type"`
	TicketID  uuid.UUID    `json:"ticket_id"`
	Ticket    LinkedTicket `json:"ticket"`
	CreatedBy *uuid.UUID   `json:"created_by"`
	CreatedAt time.Time    `json:"created_at"`
}

// LinkedTicket is the other ticket of a link.
type LinkedTicket struct {
	ID        uuid.UUID `json:"id"`
	Key       string    `json:"key"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	ProjectID uuid.UUID `json:"project_id"`
}

// NewLink asks to link the ticket of the path to another, named by UUID or
// by reference (KEY-NUMBER, or a bare number in the path ticket's project).
type NewLink struct {
	Type     string
	TicketID string
}

// stored turns a type seen from ticket `from` toward `other` into the
// stored row's direction and type.
func stored(typ string, from, other uuid.UUID) (source, target uuid.UUID, st string, ok bool) {
	switch typ {
	case LinkBlocks, LinkDuplicates, LinkRelatesTo:
		return from, other, typ, true
	case LinkBlockedBy:
		return other, from, LinkBlocks, true
	case LinkDuplicatedBy:
		return other, from, LinkDuplicates, true
	}
	return uuid.Nil, uuid.Nil, "", false
}

// seenFrom is the type of a stored link as ticket id sees it.
func seenFrom(r ticketdb.LinkRow, id uuid.UUID) string {
	if r.SourceID == id {
		return r.Type
	}
	switch r.Type {
	case LinkBlocks:
		return LinkBlockedBy
	case LinkDuplicates:
		return LinkDuplicatedBy
	}
	return r.Type
}

// linkChange is the audit and event change of a link on ticket `on`.
func linkChange(r ticketdb.LinkRow, on uuid.UUID, added bool) []domain.FieldChange {
	other := r.TargetID
	if r.SourceID != on {
		other = r.SourceID
	}
	v := map[string]any{"link_id": r.ID, "type": seenFrom(r, on), "ticket_id": other}
	if added {
		return []domain.FieldChange{{Field: "links", Old: nil, New: v}}
	}
	return []domain.FieldChange{{Field: "links", Old: v, New: nil}}
}

// recordLink writes the audit row and ticket.updated event of a link change
// on both tickets.
func (s *Service) recordLink(ctx context.Context, q store.Querier, p domain.Principal, r ticketdb.LinkRow, tickets [2]ticketdb.Row, added bool) error {
	action := ActionUnlinked
	if added {
		action = ActionLinked
	}
	for _, t := range tickets {
		data, err := RenderOne(ctx, q, t)
		if err != nil {
			return err
		}
		if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: t.ID, Action: action, Changes: linkChange(r, t.ID, added),
			Events: []string{domain.EventTicketUpdated}, Data: data}); err != nil {
			return err
		}
	}
	return nil
}

// AddLink links ticket id to another ticket of the same org (Member on id,
// and the caller must be able to read the other). A link that exists is a
// 409; a blocks link that would close a cycle of blocks is a 422.
func (s *Service) AddLink(ctx context.Context, p domain.Principal, id uuid.UUID, in NewLink) (Link, error) {
	var out Link
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketdb.GetForChange(ctx, q, id, p.UserID, false)
		if err != nil {
			return domain.NotFoundAs(err, "ticket")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleMember, "ticket"); err != nil {
			return err
		}
		tg, err := ParseTarget("ticket_id", in.TicketID)
		if err != nil {
			return err
		}
		if _, _, _, ok := stored(in.Type, id, id); !ok {
			return domain.Invalid("type: must be one of " + linkTypesList)
		}
		otherID, err := tg.resolve(ctx, q, "ticket_id", t.Row.OrgID, t.Row.ProjectID)
		if err != nil {
			return err
		}
		source, target, typ, _ := stored(in.Type, id, otherID)
		if otherID == id {
			return domain.Invalid("ticket_id: a ticket cannot be linked to itself")
		}
		o, err := ticketdb.GetForChange(ctx, q, otherID, p.UserID, false)
		if err == nil && o.Row.OrgID != t.Row.OrgID {
			err = store.ErrNotFound
		}
		if err == nil {
			_, err = domain.Authorize(p, domain.MembershipFrom(o.AccessRow), domain.RoleViewer, "ticket")
		}
		if err != nil {
			if errors.Is(err, store.ErrNotFound) || domain.AsError(err).Kind == domain.KindNotFound || domain.AsError(err).Kind == domain.KindForbidden {
				return domain.Invalid("ticket_id: " + tg.String() + " not found")
			}
			return err
		}
		if err := ticketdb.LockOrgLinks(ctx, q, t.Row.OrgID); err != nil {
			return err
		}
		if _, err := ticketdb.FindLink(ctx, q, source, target, typ); err == nil {
			return domain.Conflict("the tickets are already linked this way")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if typ == LinkRelatesTo {
			if _, err := ticketdb.FindLink(ctx, q, target, source, typ); err == nil {
				return domain.Conflict("the tickets are already linked this way")
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if typ == LinkBlocks {
			cycle, err := ticketdb.Blocks(ctx, q, target, source)
			if err != nil {
				return err
			}
			if cycle {
				return domain.Invalidf("a cycle of blocks: %s already blocks %s (directly or through other tickets)",
					refOf(o, t, target), refOf(o, t, source))
			}
		}
		counts, err := ticketdb.CountLinks(ctx, q, []uuid.UUID{id, otherID})
		if err != nil {
			return err
		}
		if counts[id] >= ticketdb.MaxLinks || counts[otherID] >= ticketdb.MaxLinks {
			return domain.Invalidf("a ticket has at most %d links", ticketdb.MaxLinks)
		}
		r := ticketdb.LinkRow{ID: uuid.Must(uuid.NewV7()), OrgID: t.Row.OrgID, SourceID: source, TargetID: target,
			Type: typ, CreatedBy: &p.UserID, CreatedAt: s.now()}
		if err := ticketdb.InsertLink(ctx, q, r); err != nil {
			return err
		}
		if err := s.recordLink(ctx, q, p, r, [2]ticketdb.Row{t.Row, o.Row}, true); err != nil {
			return err
		}
		out = Link{ID: r.ID, Type: seenFrom(r, id), TicketID: otherID, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(),
			Ticket: LinkedTicket{ID: otherID, Key: fmt.Sprintf("%s-%d", o.ProjectKey, o.Row.TicketNumber), Title: o.Row.Title,
				Status: o.Row.Status, ProjectID: o.Row.ProjectID}}
		return nil
	})
	return out, err
}

// Links lists a visible ticket's links (any role) whose other ticket the
// caller may read, oldest first (at most ticketdb.MaxLinks).
func (s *Service) Links(ctx context.Context, p domain.Principal, id uuid.UUID) ([]Link, error) {
	q := s.DB.Q()
	t, err := ticketdb.GetWithAccess(ctx, q, id, p.UserID)
	if err != nil {
		return nil, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return nil, err
	}
	rows, err := ticketdb.Links(ctx, q, id, p.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]Link, 0, len(rows))
	for _, r := range rows {
		if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleViewer, "ticket"); err != nil {
			continue
		}
		out = append(out, Link{ID: r.ID, Type: seenFrom(r.LinkRow, id), TicketID: r.OtherID, CreatedBy: r.CreatedBy,
			CreatedAt: r.CreatedAt.UTC(), Ticket: LinkedTicket{ID: r.OtherID, Key: fmt.Sprintf("%s-%d", r.ProjectKey, r.OtherNumber),
				Title: r.OtherTitle, Status: r.OtherStatus, ProjectID: r.OtherProject}})
	}
	return out, nil
}

// RemoveLink deletes a link of ticket id (Member on id).
func (s *Service) RemoveLink(ctx context.Context, p domain.Principal, id uuid.UUID, linkID string) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		t, err := ticketdb.GetForChange(ctx, q, id, p.UserID, false)
		if err != nil {
			return domain.NotFoundAs(err, "ticket")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleMember, "ticket"); err != nil {
			return err
		}
		lid, err := uuid.Parse(linkID)
		if err != nil {
			return domain.NotFound("link")
		}
		r, err := ticketdb.GetLink(ctx, q, t.Row.OrgID, lid)
		if err != nil || (r.SourceID != id && r.TargetID != id) {
			return domain.NotFound("link")
		}
		otherID := r.TargetID
		if otherID == id {
			otherID = r.SourceID
		}
		if err := ticketdb.DeleteLink(ctx, q, t.Row.OrgID, lid); err != nil {
			return domain.NotFoundAs(err, "link")
		}
		tickets := [2]ticketdb.Row{t.Row}
		o, err := ticketdb.GetForChange(ctx, q, otherID, p.UserID, false)
		switch {
		case err == nil:
			tickets[1] = o.Row
			return s.recordLink(ctx, q, p, r, tickets, false)
		case errors.Is(err, store.ErrNotFound): // the other end is being deleted
			data, err := RenderOne(ctx, q, t.Row)
			if err != nil {
				return err
			}
			return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.Row.OrgID, ActorID: &p.UserID, EntityType: "ticket",
				EntityID: id, Action: ActionUnlinked, Changes: linkChange(r, id, false),
				Events: []string{domain.EventTicketUpdated}, Data: data})
		}
		return err
	})
}

// refOf names ticket id (one of the two tickets of a link) by its key.
func refOf(a, b ticketdb.ForChange, id uuid.UUID) string {
	if a.Row.ID == id {
		return fmt.Sprintf("%s-%d", a.ProjectKey, a.Row.TicketNumber)
	}
	return fmt.Sprintf("%s-%d", b.ProjectKey, b.Row.TicketNumber)
}
