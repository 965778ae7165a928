// Package capextest builds the rows that time and money tests need
// (projects, tickets, teams, tags, rates, entries) straight in the
// database, so those tests do not depend on other features' endpoints.
package capextest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
)

// InsertUser creates a user (no password) with a unique email.
func InsertUser(ctx context.Context, q store.Querier, name string) (uuid.UUID, error) {
	id := domain.NewID()
	_, err := q.Exec(ctx, `INSERT INTO users (id, email, display_name) VALUES ($1, $2, $3)`,
		id, fmt.Sprintf("u%d-%s@example.test", seq.Add(1), id.String()[:8]), name)
	return id, store.Translate(err)
}

// InsertOrg creates an org (with no workflow) and makes ownerID its Owner.
func InsertOrg(ctx context.Context, q store.Querier, ownerID uuid.UUID) (uuid.UUID, error) {
	id := domain.NewID()
	if _, err := q.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, $2, $3)`,
		id, "Org "+id.String()[:8], "org-"+id.String()); err != nil {
		return id, store.Translate(err)
	}
	return id, InsertMember(ctx, q, id, ownerID, "owner")
}

// InsertMember adds a user to an org with a lower-case role.
func InsertMember(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, role string) error {
	_, err := q.Exec(ctx, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)`, orgID, userID, role)
	return store.Translate(err)
}

// Project describes a projects row; zero fields take defaults.
type Project struct {
	Key, Name          string
	TeamID             *uuid.UUID
	CapitalizationType *string
	DevelopmentPhase   *string
	CostCenterID       *string
	BudgetCents        *int64
	BudgetPeriod       *string
}

var seq atomic.Int64

// InsertProject creates a project in org.
func InsertProject(ctx context.Context, q store.Querier, orgID uuid.UUID, p Project) (uuid.UUID, error) {
	id := domain.NewID()
	if p.Key == "" {
		p.Key = fmt.Sprintf("P%d", seq.Add(1))
	}
	if p.Name == "" {
		p.Name = "Project " + p.Key
	}
	_, err := q.Exec(ctx, `INSERT INTO projects (id, org_id, team_id, key, name, capitalization_type, development_phase,
		cost_center_id, budget_cents, budget_period) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		id, orgID, p.TeamID, p.Key, p.Name, p.CapitalizationType, p.DevelopmentPhase, p.CostCenterID, p.BudgetCents, p.BudgetPeriod)
	return id, store.Translate(err)
}

// InsertTicket creates a ticket in a project, reported by reporterID.
func InsertTicket(ctx context.Context, q store.Querier, projectID, reporterID uuid.UUID) (uuid.UUID, error) {
	id := domain.NewID()
	_, err := q.Exec(ctx, `WITH n AS (UPDATE projects SET ticket_counter = ticket_counter + 1 WHERE id = $2
		RETURNING org_id, ticket_counter)
		INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id)
		SELECT $1, n.org_id, $2, n.ticket_counter, 'Ticket', 'Backlog', $3 FROM n`, id, projectID, reporterID)
	return id, store.Translate(err)
}

// InsertTeam creates a team.
func InsertTeam(ctx context.Context, q store.Querier, orgID uuid.UUID, name string) (uuid.UUID, error) {
	id := domain.NewID()
	_, err := q.Exec(ctx, `INSERT INTO teams (id, org_id, name) VALUES ($1, $2, $3)`, id, orgID, name)
	return id, store.Translate(err)
}

// InsertTag tags an entity.
func InsertTag(ctx context.Context, q store.Querier, orgID uuid.UUID, entityType string, entityID uuid.UUID, key, value string) error {
	_, err := q.Exec(ctx, `INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		VALUES ($1, $2, $3, $4, $5, $6)`, domain.NewID(), orgID, entityType, entityID, key, value)
	return store.Translate(err)
}

// InsertRate records a labor rate effective from date (YYYY-MM-DD).
func InsertRate(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, cents int64, date string) error {
	_, err := q.Exec(ctx, `INSERT INTO labor_rates (id, org_id, user_id, loaded_rate_cents, effective_date)
		VALUES ($1, $2, $3, $4, $5::date)`, domain.NewID(), orgID, userID, cents, date)
	return store.Translate(err)
}

// Entry describes a time_entries row; Status defaults to Approved (by the
// entry's own user), Activity to Coding.
type Entry struct {
	OrgID, UserID, ProjectID, TicketID uuid.UUID
	Date                               string
	Minutes                            int
	Activity                           string
	Status                             string
}

// InsertEntry creates a time entry.
func InsertEntry(ctx context.Context, q store.Querier, e Entry) (uuid.UUID, error) {
	id := domain.NewID()
	if e.Activity == "" {
		e.Activity = "Coding"
	}
	if e.Status == "" {
		e.Status = "Approved"
	}
	var by *uuid.UUID
	var at *time.Time
	if e.Status == "Approved" {
		day, err := time.Parse(time.DateOnly, e.Date) // approved on the day worked
		if err != nil {
			return uuid.Nil, err
		}
		by, at = &e.UserID, &day
	}
	_, err := q.Exec(ctx, `INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date, duration_minutes,
		activity_type, status, approved_by, approved_at) VALUES ($1,$2,$3,$4,$5,$6::date,$7,$8,$9,$10,$11)`,
		id, e.OrgID, e.UserID, e.TicketID, e.ProjectID, e.Date, e.Minutes, e.Activity, e.Status, by, at)
	return id, store.Translate(err)
}

// F wraps the inserts for a test: any error fails it.
type F struct {
	T  testing.TB
	DB *store.DB
}

func (f F) ctx() context.Context { return context.Background() }

func (f F) check(err error) {
	f.T.Helper()
	if err != nil {
		f.T.Fatalf("fixture: %v", err)
	}
}

// User creates a user.
func (f F) User(name string) uuid.UUID {
	f.T.Helper()
	id, err := InsertUser(f.ctx(), f.DB.Q(), name)
	f.check(err)
	return id
}

// Org creates an org owned by ownerID.
func (f F) Org(ownerID uuid.UUID) uuid.UUID {
	f.T.Helper()
	id, err := InsertOrg(f.ctx(), f.DB.Q(), ownerID)
	f.check(err)
	return id
}

// Member adds a user to an org.
func (f F) Member(orgID, userID uuid.UUID, role string) {
	f.T.Helper()
	f.check(InsertMember(f.ctx(), f.DB.Q(), orgID, userID, role))
}

// Project creates a project.
func (f F) Project(orgID uuid.UUID, p Project) uuid.UUID {
	f.T.Helper()
	id, err := InsertProject(f.ctx(), f.DB.Q(), orgID, p)
	f.check(err)
	return id
}

// Ticket creates a ticket.
func (f F) Ticket(projectID, reporterID uuid.UUID) uuid.UUID {
	f.T.Helper()
	id, err := InsertTicket(f.ctx(), f.DB.Q(), projectID, reporterID)
	f.check(err)
	return id
}

// Team creates a team.
func (f F) Team(orgID uuid.UUID, name string) uuid.UUID {
	f.T.Helper()
	id, err := InsertTeam(f.ctx(), f.DB.Q(), orgID, name)
	f.check(err)
	return id
}

// Tag tags an entity.
func (f F) Tag(orgID uuid.UUID, entityType string, entityID uuid.UUID, key, value string) {
	f.T.Helper()
	f.check(InsertTag(f.ctx(), f.DB.Q(), orgID, entityType, entityID, key, value))
}

// Rate records a labor rate.
func (f F) Rate(orgID, userID uuid.UUID, cents int64, date string) {
	f.T.Helper()
	f.check(InsertRate(f.ctx(), f.DB.Q(), orgID, userID, cents, date))
}

// Entry creates a time entry.
func (f F) Entry(e Entry) uuid.UUID {
	f.T.Helper()
	id, err := InsertEntry(f.ctx(), f.DB.Q(), e)
	f.check(err)
	return id
}

// Exec runs a statement (soft deletes and other adjustments).
func (f F) Exec(sql string, args ...any) {
	f.T.Helper()
	_, err := f.DB.Q().Exec(f.ctx(), sql, args...)
	f.check(err)
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }
