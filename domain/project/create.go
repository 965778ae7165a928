package project

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/projectdb"
)

// CreateInput is a new project; nil pointers are absent fields.
type CreateInput struct {
	OrgID        uuid.UUID
	Key          string
	Name         string
	Description  *string
	TeamID       *uuid.UUID
	WorkflowID   *uuid.UUID
	BudgetCents  *int64
	BudgetPeriod *string
	Content
	PlacedInService *string

	inService *time.Time
}

func (in *CreateInput) validate() error {
	var p domain.Problems
	in.Key = NormalizeKey(&p, in.Key)
	CheckName(&p, in.Name)
	checkDescription(&p, in.Description)
	CheckBudget(&p, in.BudgetCents)
	in.BudgetPeriod = normalizePeriod(&p, in.BudgetPeriod)
	checkContent(&p, &in.Content)
	in.inService = CheckInService(&p, in.PlacedInService)
	return p.Err()
}

// Create makes a project in an org (Member). An API key restricted to
// projects cannot create one (the org-level 403 of domain.Authorize): the new
// project would lie outside its reach.
func (s *Service) Create(ctx context.Context, p domain.Principal, in CreateInput) (Project, error) {
	if err := in.validate(); err != nil {
		return Project{}, err
	}
	var out Project
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, in.OrgID, domain.RoleMember, "organization"); err != nil {
			return err
		}
		if err := checkRefs(ctx, q, in.OrgID, in.TeamID, in.WorkflowID); err != nil {
			return err
		}
		now := s.now()
		r := projectdb.Row{
			ID: domain.NewID(), OrgID: in.OrgID, TeamID: in.TeamID, WorkflowID: in.WorkflowID, Key: in.Key,
			Name: in.Name, Description: in.Description, Content: in.Content, BudgetCents: in.BudgetCents, BudgetPeriod: in.BudgetPeriod,
			PlacedInService: in.inService, CreatedAt: now, UpdatedAt: now, RowVersion: 1,
		}
		if err := projectdb.Insert(ctx, q, r); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("a project with this key already exists in the organization", "key: "+in.Key)
			}
			return err
		}
		out = FromRow(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: in.OrgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: r.ID, Action: "created", Changes: createdChanges(out)})
	})
	return out, err
}

// checkRefs checks that a team or workflow given to a project belongs to the
// project's org (422 otherwise: a reference, not a missing resource).
func checkRefs(ctx context.Context, q store.Querier, orgID uuid.UUID, teamID, workflowID *uuid.UUID) error {
	var p domain.Problems
	if teamID != nil {
		ok, err := projectdb.TeamInOrg(ctx, q, orgID, *teamID)
		if err != nil {
			return err
		}
		if !ok {
			p.Add("team_id", "must be a team of the project's organization")
		}
	}
	if workflowID != nil {
		ok, err := projectdb.WorkflowInOrg(ctx, q, orgID, *workflowID)
		if err != nil {
			return err
		}
		if !ok {
			p.Add("workflow_id", "must be a workflow of the project's organization")
		}
	}
	return p.Err()
}

// createdChanges lists the set fields of a new project for its audit row.
func createdChanges(pr Project) []domain.FieldChange {
	ch := []domain.FieldChange{{Field: "key", New: pr.Key}, {Field: "name", New: pr.Name}}
	add := func(field string, v any, set bool) {
		if set {
			ch = append(ch, domain.FieldChange{Field: field, New: v})
		}
	}
	add("description", pr.Description, pr.Description != nil)
	add("team_id", pr.TeamID, pr.TeamID != nil)
	add("workflow_id", pr.WorkflowID, pr.WorkflowID != nil)
	ch = append(ch, domain.Created(pr.Content)...)
	add("budget_cents", pr.BudgetCents, pr.BudgetCents != nil)
	add("budget_period", pr.BudgetPeriod, pr.BudgetPeriod != nil)
	add("placed_in_service", pr.PlacedInService, pr.PlacedInService != nil)
	return ch
}
