package project

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/projectdb"
)

// PatchInput is a partial update: absent fields stay, null clears the
// nullable ones. workflow_id null puts the project back on its org's
// Default workflow.
type PatchInput struct {
	Name            domain.Opt[string]
	Description     domain.Opt[string]
	TeamID          domain.Opt[uuid.UUID]
	WorkflowID      domain.Opt[uuid.UUID]
	Content         domain.Patch[Content]
	BudgetCents     domain.Opt[int64]
	BudgetPeriod    domain.Opt[string]
	PlacedInService domain.Opt[string]
}

func (in *PatchInput) validate() error {
	var p domain.Problems
	if in.Name.Set {
		if in.Name.Null {
			p.Add("name", "cannot be null")
		} else {
			CheckName(&p, in.Name.Value)
		}
	}
	checkDescription(&p, in.Description.Ptr())
	checkContent(&p, &in.Content.Value)
	CheckBudget(&p, in.BudgetCents.Ptr())
	CheckInService(&p, in.PlacedInService.Ptr())
	if v := in.BudgetPeriod.Ptr(); v != nil {
		in.BudgetPeriod.Value = *normalizePeriod(&p, v)
	}
	return p.Err()
}

// Update changes a project (Member). Only fields whose value changes are
// written and audited; a request that changes nothing returns the project
// as it is. Under If-Match (domain.Versions) a stale version is a 412.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in PatchInput) (Project, error) {
	if err := in.validate(); err != nil {
		return Project{}, err
	}
	var out Project
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := projectdb.GetWithAccess(ctx, q, id, p.UserID, true)
		if err != nil {
			return domain.NotFoundAs(err, "project")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleMember, "project"); err != nil {
			return err
		}
		if err := checkRefs(ctx, q, row.Row.OrgID, in.TeamID.Ptr(), in.WorkflowID.Ptr()); err != nil {
			return err
		}
		old := row.Row
		c := patchSet{set: map[string]any{}}
		name := old.Name
		track(&c, "name", in.Name, &name)
		track(&c, "description", in.Description, old.Description)
		track(&c, "team_id", in.TeamID, old.TeamID)
		track(&c, "workflow_id", in.WorkflowID, old.WorkflowID)
		c.changes = append(c.changes, in.Content.Changes(old.Content, c.set)...)
		track(&c, "budget_cents", in.BudgetCents, old.BudgetCents)
		track(&c, "budget_period", in.BudgetPeriod, old.BudgetPeriod)
		track(&c, "placed_in_service", in.PlacedInService, DateString(old.PlacedInService))
		if len(c.changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = FromRow(old)
			return domain.CheckIfMatch(ctx, "project", old.RowVersion)
		}
		// If-Match is checked in the UPDATE's WHERE.
		updated, err := projectdb.Update(ctx, q, row.Row.OrgID, id, domain.Versions(ctx), c.set, s.now())
		if err != nil {
			return domain.StaleAs(ctx, err, "project")
		}
		out = FromRow(updated)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: row.Row.OrgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: id, Action: "updated", Changes: c.changes})
	})
	return out, err
}

// patchSet collects the columns to write and the audit changes of a PATCH.
type patchSet struct {
	set     map[string]any
	changes []domain.FieldChange
}

// track records field when the request sets it to a value other than old.
func track[T comparable](c *patchSet, field string, o domain.Opt[T], old *T) {
	if !o.Set {
		return
	}
	nv := o.Ptr()
	if (old == nil && nv == nil) || (old != nil && nv != nil && *old == *nv) {
		return
	}
	c.set[field] = nv
	c.changes = append(c.changes, domain.FieldChange{Field: field, Old: value(old), New: value(nv)})
}

// value is the pointed-to value, or an untyped nil that renders as JSON null.
func value[T any](v *T) any {
	if v == nil {
		return nil
	}
	return *v
}
