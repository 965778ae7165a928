package timeentry

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/period"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/timeentrydb"
)

// Patch is a partial update of an entry's own values; unset fields are
// kept. Date is the date as the request spelled it, which Content's is read
// from when the patch sets it.
type Patch struct {
	Content domain.Patch[Content]
	Date    string
}

// loadOwned locks an entry for a change by its user or an Admin: non-members
// get 404, members below min 403, other members' entries 403 unless Admin.
func loadOwned(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role) (timeentrydb.Row, domain.Access, error) {
	r, err := timeentrydb.GetWithAccess(ctx, q, id, p.UserID, true)
	if err != nil {
		return timeentrydb.Row{}, domain.Access{}, domain.NotFoundAs(err, "time entry")
	}
	a, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), min, "time entry")
	if err != nil {
		return timeentrydb.Row{}, a, err
	}
	if r.UserID != p.UserID && !a.At(domain.RoleAdmin) {
		return timeentrydb.Row{}, a, domain.Forbidden("only the entry's user or an Admin may change this time entry")
	}
	return r.Row, a, nil
}

// Update edits a Draft or Submitted entry (its user or an Admin); an edit of
// a Submitted entry returns it to Draft, so it is approved as changed.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in Patch) (Entry, error) {
	now := s.now()
	if err := checkContent(&in.Content, in.Date, now); err != nil {
		return Entry{}, err
	}
	var out Entry
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		r, a, err := loadOwned(ctx, q, p, id, domain.RoleMember)
		if err != nil {
			return err
		}
		if r.Status == StatusApproved {
			return stateConflict(r.Status, "approved entries cannot be changed")
		}
		days := []time.Time{r.Date.Time()}
		if in.Content.Has("date") {
			days = append(days, in.Content.Value.Date.Time())
		}
		if err := period.EnsureOpen(ctx, q, a.OrgID, "time entry", days...); err != nil {
			return err
		}
		c := domain.Changeset{Set: map[string]any{}}
		in.Content.Track(&c, r.Content)
		changes := c.Changes
		if len(changes) > 0 {
			if r.Status == StatusSubmitted {
				changes = append(changes, domain.FieldChange{Field: "status", Old: r.Status, New: StatusDraft})
				r.Status = StatusDraft
			}
			r.Content = in.Content.Apply(r.Content)
			r.UpdatedAt = now
			// If-Match is checked in the UPDATE's WHERE.
			if r.RowVersion, err = timeentrydb.Update(ctx, q, r, domain.Versions(ctx)); err != nil {
				return domain.StaleAs(ctx, err, "time entry")
			}
		}
		out = toEntry(r)
		if len(changes) == 0 {
			// Nothing written: the version read under the row lock decides.
			return domain.CheckIfMatch(ctx, "time entry", r.RowVersion)
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: a.OrgID, ActorID: &p.UserID, EntityType: "time_entry",
			EntityID: r.ID, Action: "updated", Changes: changes, Data: out})
	})
	return out, err
}

// Delete removes a Draft or Submitted entry (its user or an Admin).
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		r, a, err := loadOwned(ctx, q, p, id, domain.RoleMember)
		if err != nil {
			return err
		}
		if r.Status == StatusApproved {
			return stateConflict(r.Status, "approved entries cannot be deleted")
		}
		if err := period.EnsureOpen(ctx, q, a.OrgID, "time entry", r.Date.Time()); err != nil {
			return err
		}
		// If-Match is checked in the DELETE's WHERE.
		if err := timeentrydb.Delete(ctx, q, a.OrgID, r.ID, domain.Versions(ctx)); err != nil {
			return domain.StaleAs(ctx, err, "time entry")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: a.OrgID, ActorID: &p.UserID, EntityType: "time_entry",
			EntityID: r.ID, Action: "deleted", Data: toEntry(r)})
	})
}

// Submit moves a Draft entry to Submitted (its user or an Admin).
func (s *Service) Submit(ctx context.Context, p domain.Principal, id uuid.UUID) (Entry, error) {
	return s.move(ctx, p, id, domain.RoleMember, StatusDraft, StatusSubmitted, "only a Draft entry can be submitted")
}

// Approve moves a Submitted entry to Approved (Admin of the entry's org) and
// records who approved it and when.
func (s *Service) Approve(ctx context.Context, p domain.Principal, id uuid.UUID) (Entry, error) {
	return s.move(ctx, p, id, domain.RoleAdmin, StatusSubmitted, StatusApproved, "only a Submitted entry can be approved")
}

// MaxRejectionReason is the longest reason a rejection takes.
const MaxRejectionReason = 2000

// Reject sends a Submitted entry back to Draft (Admin of the entry's org)
// with the reason, which the entry keeps until it is submitted again; its
// user is told.
func (s *Service) Reject(ctx context.Context, p domain.Principal, id uuid.UUID, reason string) (Entry, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxRejectionReason {
		return Entry{}, domain.Invalid("reason: must be 1 to 2000 characters")
	}
	return s.moveWith(ctx, p, id, domain.RoleAdmin, StatusSubmitted, StatusDraft, "only a Submitted entry can be rejected", &reason)
}

func (s *Service) move(ctx context.Context, p domain.Principal, id uuid.UUID, min domain.Role, from, to, why string) (Entry, error) {
	return s.moveWith(ctx, p, id, min, from, to, why, nil)
}

func (s *Service) moveWith(ctx context.Context, p domain.Principal, id uuid.UUID, min domain.Role, from, to, why string, reason *string) (Entry, error) {
	now := s.now()
	var out Entry
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		r, a, err := loadOwned(ctx, q, p, id, min)
		if err != nil {
			return err
		}
		if r.Status != from {
			return stateConflict(r.Status, why)
		}
		if err := period.EnsureOpen(ctx, q, a.OrgID, "time entry", r.Date.Time()); err != nil {
			return err
		}
		changes := []domain.FieldChange{{Field: "status", Old: r.Status, New: to}}
		r.Status, r.UpdatedAt = to, now
		if to == StatusApproved {
			r.ApprovedBy, r.ApprovedAt = &p.UserID, &now
			changes = append(changes, domain.FieldChange{Field: "approved_by", Old: nil, New: p.UserID})
		}
		action := map[string]string{StatusSubmitted: "submitted", StatusApproved: "approved"}[to]
		switch {
		case reason != nil:
			action = "rejected"
			changes = append(changes, domain.FieldChange{Field: "rejection_reason", Old: r.RejectionReason, New: *reason})
			r.RejectionReason = reason
		case to == StatusSubmitted && r.RejectionReason != nil:
			// Submitted again: the reason has been answered.
			changes = append(changes, domain.FieldChange{Field: "rejection_reason", Old: *r.RejectionReason, New: nil})
			r.RejectionReason = nil
		}
		if r.RowVersion, err = timeentrydb.Update(ctx, q, r, domain.Versions(ctx)); err != nil {
			return domain.StaleAs(ctx, err, "time entry")
		}
		out = toEntry(r)
		if err := s.notifyOwner(ctx, q, p, r, to, reason); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: a.OrgID, ActorID: &p.UserID, EntityType: "time_entry",
			EntityID: r.ID, Action: action, Changes: changes, Data: out})
	})
	return out, err
}

// notifyOwner tells an entry's user that it was approved or rejected (not
// when they did it themselves).
func (s *Service) notifyOwner(ctx context.Context, q store.Querier, p domain.Principal, r timeentrydb.Row, to string, reason *string) error {
	typ, excerpt := "", ""
	switch {
	case reason != nil:
		typ, excerpt = notification.TypeTimeEntryRejected, *reason
	case to == StatusApproved:
		typ = notification.TypeTimeEntryApproved
	default:
		return nil
	}
	ev := notification.Event{OrgID: r.OrgID, ProjectID: r.ProjectID, TicketID: &r.TicketID, ActorID: &p.UserID,
		Excerpt: excerpt, At: s.now()}
	ev.Tell(r.UserID, typ)
	return notification.Emit(ctx, q, ev)
}
