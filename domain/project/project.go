// Package project holds the use cases of projects and their member
// assignments.
package project

import (
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/projectdb"
)

// Service runs the project use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Project is a project as the API renders it.
type Project struct {
	ID                 uuid.UUID  `json:"id"`
	OrgID              uuid.UUID  `json:"org_id"`
	TeamID             *uuid.UUID `json:"team_id"`
	WorkflowID         *uuid.UUID `json:"workflow_id"`
	Key                string     `json:"key"`
	Name               string     `json:"name"`
	Description        *string    `json:"description"`
	TicketCounter      int64      `json:"ticket_counter"`
	CapitalizationType *string    `json:"capitalization_type"`
	DevelopmentPhase   *string    `json:"development_phase"`
	CostCenterID       *string    `json:"cost_center_id"`
	AmortizationMonths *int64     `json:"amortization_months"`
	BudgetCents        *int64     `json:"budget_cents"`
	BudgetPeriod       *string    `json:"budget_period"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
}

// FromRow converts a projects row.
func FromRow(r projectdb.Row) Project {
	return Project{
		ID: r.ID, OrgID: r.OrgID, TeamID: r.TeamID, WorkflowID: r.WorkflowID, Key: r.Key, Name: r.Name,
		Description: r.Description, TicketCounter: r.TicketCounter, CapitalizationType: r.CapitalizationType,
		DevelopmentPhase: r.DevelopmentPhase, CostCenterID: r.CostCenterID, AmortizationMonths: r.AmortizationMonths,
		BudgetCents: r.BudgetCents, BudgetPeriod: r.BudgetPeriod,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}
