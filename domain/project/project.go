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
	ID            uuid.UUID  `json:"id"`
	OrgID         uuid.UUID  `json:"org_id"`
	TeamID        *uuid.UUID `json:"team_id"`
	WorkflowID    *uuid.UUID `json:"workflow_id"`
	Key           string     `json:"key"`
	Name          string     `json:"name"`
	Description   *string    `json:"description"`
	TicketCounter int64      `json:"ticket_counter"`
	projectdb.Content
	// PlacedInService is the date (YYYY-MM-DD) the project was placed in
	// service: its capitalized cost amortizes from the month after.
	PlacedInService *string   `json:"placed_in_service"`
	BudgetCents     *int64    `json:"budget_cents"`
	BudgetPeriod    *string   `json:"budget_period"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the project's ETag version (domain.Versioned).
func (p Project) RowVersion() int64 { return p.Version }

// FromRow converts a projects row.
func FromRow(r projectdb.Row) Project {
	return Project{
		ID: r.ID, OrgID: r.OrgID, TeamID: r.TeamID, WorkflowID: r.WorkflowID, Key: r.Key, Name: r.Name,
		Description: r.Description, TicketCounter: r.TicketCounter, Content: r.Content,
		BudgetCents: r.BudgetCents, BudgetPeriod: r.BudgetPeriod, PlacedInService: DateString(r.PlacedInService),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.RowVersion,
	}
}

// DateLayout is the layout of placed_in_service.
const DateLayout = "2006-01-02"

// DateString renders a date column as YYYY-MM-DD (nil stays nil).
func DateString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(DateLayout)
	return &s
}

// ParseDate reads placed_in_service (YYYY-MM-DD) as midnight UTC.
func ParseDate(s string) (time.Time, bool) {
	t, err := time.Parse(DateLayout, s)
	return t, err == nil
}

// CheckInService adds the problem of a malformed placed_in_service and
// returns it parsed (nil when absent or malformed).
func CheckInService(p *domain.Problems, v *string) *time.Time {
	if v == nil {
		return nil
	}
	t, ok := ParseDate(*v)
	if !ok || t.Year() < 1900 || t.Year() > 9999 {
		p.Add("placed_in_service", "must be a date in the form YYYY-MM-DD")
		return nil
	}
	return &t
}
