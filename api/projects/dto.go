package projects

import (
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/project"
)

// Ids arrive as strings so that a malformed one is a 422 naming the field
// rather than a 400 for the whole body.

type createReq struct {
	OrgID        string  `json:"org_id" validate:"required"`
	Key          string  `json:"key" validate:"required"`
	Name         string  `json:"name" validate:"required"`
	Description  *string `json:"description"`
	TeamID       *string `json:"team_id"`
	WorkflowID   *string `json:"workflow_id"`
	BudgetCents  *int64  `json:"budget_cents"`
	BudgetPeriod *string `json:"budget_period"`
	project.Content
	PlacedInService *string `json:"placed_in_service"`
}

func (r createReq) input() (project.CreateInput, error) {
	var p domain.Problems
	org := parseID(&p, "org_id", r.OrgID)
	in := project.CreateInput{
		OrgID: org, Key: r.Key, Name: r.Name, Description: r.Description,
		TeamID: idPtr(&p, "team_id", r.TeamID), WorkflowID: idPtr(&p, "workflow_id", r.WorkflowID),
		BudgetCents: r.BudgetCents, BudgetPeriod: r.BudgetPeriod, Content: r.Content, PlacedInService: r.PlacedInService,
	}
	return in, p.Err()
}

func parseID(p *domain.Problems, field, s string) uuid.UUID {
	id, err := uuid.Parse(s)
	if err != nil {
		p.Add(field, "must be a UUID")
	}
	return id
}

func idPtr(p *domain.Problems, field string, s *string) *uuid.UUID {
	if s == nil {
		return nil
	}
	id := parseID(p, field, *s)
	return &id
}

type patchReq struct {
	Name        domain.Opt[string] `json:"name"`
	Description domain.Opt[string] `json:"description"`
	TeamID      domain.Opt[string] `json:"team_id"`
	WorkflowID  domain.Opt[string] `json:"workflow_id"`
	project.Content
	BudgetCents     domain.Opt[int64]  `json:"budget_cents"`
	BudgetPeriod    domain.Opt[string] `json:"budget_period"`
	PlacedInService domain.Opt[string] `json:"placed_in_service"`
}

func (r patchReq) input(body []byte) (project.PatchInput, error) {
	var p domain.Problems
	team := optID(&p, "team_id", r.TeamID)
	wf := optID(&p, "workflow_id", r.WorkflowID)
	if err := p.Err(); err != nil {
		return project.PatchInput{}, err
	}
	return project.PatchInput{
		Name: r.Name, Description: r.Description, TeamID: team, WorkflowID: wf, Content: domain.PatchOf(body, r.Content),
		BudgetCents: r.BudgetCents, BudgetPeriod: r.BudgetPeriod, PlacedInService: r.PlacedInService,
	}, nil
}

// optID parses an optional, nullable id field.
func optID(p *domain.Problems, field string, o domain.Opt[string]) domain.Opt[uuid.UUID] {
	out := domain.Opt[uuid.UUID]{Set: o.Set, Null: o.Null}
	if o.Set && !o.Null {
		out.Value = parseID(p, field, o.Value)
	}
	return out
}
