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
		c := domain.Changeset{Set: map[string]any{}}
		name := old.Name
		domain.Track(&c, "name", in.Name, &name)
		domain.Track(&c, "description", in.Description, old.Description)
		domain.Track(&c, "team_id", in.TeamID, old.TeamID)
		domain.Track(&c, "workflow_id", in.WorkflowID, old.WorkflowID)
		in.Content.Track(&c, old.Content)
		domain.Track(&c, "budget_cents", in.BudgetCents, old.BudgetCents)
		domain.Track(&c, "budget_period", in.BudgetPeriod, old.BudgetPeriod)
		domain.Track(&c, "placed_in_service", in.PlacedInService, DateString(old.PlacedInService))
		if len(c.Changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = FromRow(old)
			return domain.CheckIfMatch(ctx, "project", old.RowVersion)
		}
		// If-Match is checked in the UPDATE's WHERE.
		updated, err := projectdb.Update(ctx, q, row.Row.OrgID, id, domain.Versions(ctx), c.Set, s.now())
		if err != nil {
			return domain.StaleAs(ctx, err, "project")
		}
		out = FromRow(updated)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: row.Row.OrgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: id, Action: "updated", Changes: c.Changes})
	})
	return out, err
}
