package ticket

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/notification"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/customfielddb"
	"tracker/store/notificationdb"
	"tracker/store/ticketdb"
)

// Patch is a partial change of one ticket (PATCH, transition) or of many
// (batch update): its own values (Content) and its references. SprintID is
// taken by batch update only.
type Patch struct {
	Content    domain.Patch[Content]
	AssigneeID domain.Opt[uuid.UUID]
	SprintID   domain.Opt[uuid.UUID]
	// ParentID is taken by PATCH only (checked per ticket). ParentRef,
	// when not "", names it by reference (ParentID set, its value resolved
	// from the reference in the ticket's org and project).
	ParentID  domain.Opt[uuid.UUID]
	ParentRef string
	// CustomFields sets custom values by field key (null clears one).
	CustomFields customfield.Values
}

// statusPatch is the patch of a move to status to.
func statusPatch(to string) Patch {
	return Patch{Content: domain.PatchWith(Content{Status: to}, "status")}
}

func (pt Patch) empty() bool {
	return pt.Content.Empty() && !pt.AssigneeID.Set && !pt.SprintID.Set && !pt.ParentID.Set && len(pt.CustomFields) == 0
}

// plan is the change of one ticket: columns to set, the audit changes other
// than status, the status change, and the enforcement warning if any.
type plan struct {
	domain.Changeset
	status  *domain.FieldChange
	warning string
	// custom are the ticket's custom values after the change when it
	// wrote some (apply answers them without reading them again).
	custom customfield.Object
	// with is the write of custom values still to run, in the ticket's
	// UPDATE (nil: none, or written already).
	with *ticketdb.With
}

// planFor compares the patch with the ticket; only real differences become
// changes. A status change is checked against the workflow's rules.
func planFor(t ticketdb.Row, rules statusflow.Rules, pt Patch) (plan, error) {
	pl := plan{Changeset: domain.Changeset{Set: map[string]any{}}}
	pt.Content.Track(&pl.Changeset, t.Content, "status")
	domain.Track(&pl.Changeset, "assignee_id", pt.AssigneeID, t.AssigneeID)
	domain.Track(&pl.Changeset, "sprint_id", pt.SprintID, t.SprintID)
	domain.Track(&pl.Changeset, "parent_id", pt.ParentID, t.ParentID)
	if pt.Content.Has("status") {
		mv, err := rules.Check(t.Status, pt.Content.Value.Status)
		if err != nil {
			return plan{}, err
		}
		if !mv.NoOp {
			pl.Set["status"] = mv.To
			pl.status = &domain.FieldChange{Field: "status", Old: t.Status, New: mv.To}
			pl.warning = mv.Warning
		}
	}
	return pl, nil
}

// apply writes a planned change with its audit rows and events: the field
// changes as ticket.updated, a status change as ticket.status_changed.
func (s *Service) apply(ctx context.Context, q store.Querier, by Actor, t ticketdb.Row, pl plan) (Ticket, error) {
	versions := domain.Versions(ctx)
	if len(pl.Set) == 0 && len(pl.Changes) == 0 {
		// Nothing to write: the version read under the row lock decides.
		if err := domain.CheckIfMatch(ctx, "ticket", t.RowVersion); err != nil {
			return Ticket{}, err
		}
		if pl.with != nil { // values written as they were: written all the same
			if _, err := store.Exec(ctx, q, store.SQL.Select("1").Prefix(pl.with.SQL, pl.with.Args...)); err != nil {
				return Ticket{}, err
			}
		}
		out := []Ticket{toTicket(t)}
		withKnownCustomFields(out, pl.custom)
		return out[0], nil
	}
	var rows []ticketdb.Row
	var err error
	var with []ticketdb.With
	if pl.with != nil {
		with = append(with, *pl.with)
	}
	if versions.Conditional() {
		// Checked in the UPDATE's WHERE: a row at another version is
		// not written (and the transaction, values and all, rolls back).
		rows, err = ticketdb.UpdateAtVersion(ctx, q, t.OrgID, t.ID, versions, pl.Set, s.now(), with...)
		if err == nil && len(rows) == 0 {
			return Ticket{}, domain.PreconditionFailed("ticket")
		}
	} else {
		rows, err = ticketdb.Update(ctx, q, []uuid.UUID{t.OrgID}, []uuid.UUID{t.ID}, pl.Set, s.now(), with...)
	}
	if err != nil {
		return Ticket{}, err
	}
	if len(rows) == 0 {
		return Ticket{}, domain.NotFound("ticket")
	}
	page := []Ticket{toTicket(rows[0])}
	withKnownCustomFields(page, pl.custom)
	after := page[0]
	if len(pl.Changes) > 0 {
		if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.OrgID, ActorID: &by.ID, EntityType: "ticket",
			EntityID: t.ID, Action: ActionUpdated, Changes: pl.Changes, Via: by.Via,
			Events: []string{domain.EventTicketUpdated}, Data: after}); err != nil {
			return Ticket{}, err
		}
	}
	if pl.status != nil {
		if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: t.OrgID, ActorID: &by.ID, EntityType: "ticket",
			EntityID: t.ID, Action: ActionStatusChanged, Changes: []domain.FieldChange{*pl.status}, Via: by.Via,
			Events: []string{domain.EventTicketStatusChanged}, Data: after}); err != nil {
			return Ticket{}, err
		}
	}
	return after, s.notifyChanged(ctx, q, by, t, rows[0], pl)
}

// notifyChanged tells who a change concerns, once each: a new assignee
// (who starts watching), the people a changed description newly mentions,
// and on a status change the ticket's watchers.
func (s *Service) notifyChanged(ctx context.Context, q store.Querier, by Actor, before, after ticketdb.Row, pl plan) error {
	ev := notification.Event{OrgID: after.OrgID, ProjectID: after.ProjectID, TicketID: &after.ID, ActorID: &by.ID, Excerpt: after.Title, At: s.now()}
	if a := after.AssigneeID; a != nil && !samePtr(a, before.AssigneeID) {
		ev.Watch = append(ev.Watch, *a)
		ev.Tell(*a, notification.TypeAssigned)
	}
	if d := after.Description; d != nil && !samePtr(d, before.Description) {
		old := ""
		if before.Description != nil {
			old = *before.Description
		}
		added, err := notification.NewlyMentioned(ctx, q, after.OrgID, after.ProjectID, old, *d)
		if err != nil {
			return err
		}
		ev.Mention(added)
	}
	if pl.status != nil {
		ev.Watchers = notification.TypeStatusChanged
		ev.Excerpt = before.Status + " → " + after.Status
	}
	if len(ev.To) == 0 && ev.Watchers == "" {
		return nil
	}
	return notification.Emit(ctx, q, ev)
}

// Update changes a ticket (Member). A status change follows the workflow's
// enforcement; under warn an unlisted move succeeds with a warning.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, pt Patch) (Result, error) {
	pt.SprintID = domain.Opt[uuid.UUID]{}
	if err := checkContent(&pt.Content); err != nil {
		return Result{}, err
	}
	var res Result
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		// A change of custom values reads the org's definitions and the
		// ticket's values in the ticket read's round trip, and writes them
		// in the ticket's UPDATE.
		var (
			t    ticketdb.ForChange
			defs customfield.Defs
			was  []customfielddb.FieldValue
			err  error
		)
		if len(pt.CustomFields) > 0 {
			var rows []customfielddb.Row
			t, rows, was, err = ticketdb.GetForChangeWithFields(ctx, q, id, p.UserID, true)
			defs = customfield.DefsOf(rows)
		} else {
			t, err = ticketdb.GetForChange(ctx, q, id, p.UserID, true)
		}
		if err != nil {
			return domain.NotFoundAs(err, "ticket")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleMember, "ticket"); err != nil {
			return err
		}
		if v := pt.AssigneeID.Ptr(); v != nil {
			if err := checkAssignee(ctx, q, t.Row.OrgID, *v); err != nil {
				return err
			}
		}
		name := ""
		if pt.ParentID.Set && !pt.ParentID.Null {
			tg := Target{ID: pt.ParentID.Value, Ref: pt.ParentRef}
			if pt.ParentID.Value, err = tg.resolve(ctx, q, "parent_id", t.Row.OrgID, t.Row.ProjectID); err != nil {
				return err
			}
			name = tg.String()
		}
		if v := pt.ParentID.Ptr(); v != nil && !samePtr(v, t.Row.ParentID) {
			if err := checkParent(ctx, q, p, t.Row.OrgID, t.Row.ID, *v, name); err != nil {
				return err
			}
		}
		rules, err := s.rulesOf(t.WorkflowRow)
		if err != nil {
			return err
		}
		var cf customChange
		if len(pt.CustomFields) > 0 {
			if cf, err = planCustomFields(ctx, q, t.Row, defs, was, pt.CustomFields); err != nil {
				return err
			}
		}
		pl, err := planFor(t.Row, rules, pt)
		if err != nil {
			return err
		}
		pl.Changes = append(pl.Changes, cf.changes...)
		pl.custom, pl.with = cf.after, cf.with
		if len(cf.changes) > 0 {
			// The row's rendered copy changes in the same UPDATE (the
			// values' trigger then finds it right and leaves it).
			pl.Set["custom_fields"] = ticketdb.CustomFields(cf.after.AppendJSON(nil))
		}
		res.Warning = pl.warning
		if res.Ticket, err = s.apply(ctx, q, Person(p), t.Row, pl); err != nil {
			return err
		}
		// The answer says whether the caller watches the ticket now (the
		// change may have made them), as a GET does: its ETag is then the
		// one a GET would send.
		watching, err := notificationdb.IsWatching(ctx, q, id, p.UserID)
		res.Ticket.Watching = &watching
		return err
	})
	return res, err
}

// Transition moves a ticket to another status (Member); the same rules as a
// PATCH of status.
func (s *Service) Transition(ctx context.Context, p domain.Principal, id uuid.UUID, to string) (Result, error) {
	return s.Update(ctx, p, id, statusPatch(to))
}

func checkAssignee(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) error {
	ok, err := ticketdb.IsOrgMember(ctx, q, orgID, userID)
	if err != nil {
		return err
	}
	if !ok {
		return domain.Invalid("assignee_id: must be a member of the ticket's organization")
	}
	return nil
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// customChange is a planned change of a ticket's custom values: the trail's
// changes, the values after it, and its write (nil: nothing to write).
type customChange struct {
	changes []domain.FieldChange
	after   customfield.Object
	with    *ticketdb.With
}

// planCustomFields checks a patch's custom values on ticket t against
// defs, its org's definitions, and compares them with was, its values: the
// write goes in the ticket's UPDATE.
func planCustomFields(ctx context.Context, q store.Querier, t ticketdb.Row, defs customfield.Defs, was []customfielddb.FieldValue,
	in customfield.Values) (customChange, error) {
	w, err := customfield.Check(ctx, q, defs, t.OrgID, t.ProjectID, t.ID, in, false)
	if err != nil || len(w.Put) == 0 && len(w.Clear) == 0 {
		return customChange{}, err
	}
	changes, after := customfield.Diff(defs, t.ID, was, w)
	sql, args := customfielddb.ReplaceCTE(t.OrgID, t.ID, w.Clear, w.Put)
	return customChange{changes: changes, after: after, with: &ticketdb.With{SQL: sql, Args: args}}, nil
}

// setCustomFields checks and writes a patch's custom values on ticket t and
// answers the activity trail's changes (custom_fields.<key>) and the
// ticket's values after the write (nil when it wrote none).
func setCustomFields(ctx context.Context, q store.Querier, t ticketdb.Row, in customfield.Values) ([]domain.FieldChange, customfield.Object, error) {
	if len(in) == 0 {
		return nil, nil, nil
	}
	defs, err := customfield.Load(ctx, q, t.OrgID)
	if err != nil {
		return nil, nil, err
	}
	w, err := customfield.Check(ctx, q, defs, t.OrgID, t.ProjectID, t.ID, in, false)
	if err != nil {
		return nil, nil, err
	}
	return customfield.Apply(ctx, q, defs, t.OrgID, t.ID, w)
}
