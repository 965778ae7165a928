// Package testfactory builds the rows tests need through the store's own
// functions (projectdb.Insert, ticketdb.InsertNext, ...), in the spirit of
// river's testfactory: one function per entity, an options struct whose
// zero value is a sensible row, the row returned. A test that is about SQL
// may still write raw INSERTs; every other test builds its data here (or,
// for API tests, starts from apitest.NewWorld).
package testfactory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/commentdb"
	"tracker/store/laborratedb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
	"tracker/store/teamdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// ProjectOpts are a project's options; Key defaults to a unique one, Name
// to "Project <key>", the rest to NULL (no team, no workflow: the org's
// default, no capitalization settings).
type ProjectOpts struct {
	Key                string
	Name               string
	TeamID             *uuid.UUID
	WorkflowID         *uuid.UUID
	CapitalizationType *string
	DevelopmentPhase   *string
	CostCenterID       *string
	BudgetCents        *int64
	BudgetPeriod       *string
}

// Project inserts a live project in orgID.
func Project(t testing.TB, db *store.DB, orgID uuid.UUID, o ProjectOpts) projectdb.Row {
	t.Helper()
	if o.Key == "" {
		o.Key = "P" + strings.ToUpper(strings.ReplaceAll(uuid.NewString(), "-", "")[:6])
	}
	if o.Name == "" {
		o.Name = "Project " + o.Key
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := projectdb.Row{ID: domain.NewID(), OrgID: orgID, Key: o.Key, Name: o.Name, TeamID: o.TeamID, WorkflowID: o.WorkflowID,
		Content:     projectdb.Content{CapitalizationType: o.CapitalizationType, DevelopmentPhase: o.DevelopmentPhase, CostCenterID: o.CostCenterID, EstimateUnit: "points"},
		BudgetCents: o.BudgetCents, BudgetPeriod: o.BudgetPeriod, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if err := projectdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Project: %v", err)
	}
	return r
}

// Assign makes userID a member of the project (what a Reporter needs to
// reach it).
func Assign(t testing.TB, db *store.DB, p projectdb.Row, userID uuid.UUID) {
	t.Helper()
	m := projectdb.Member{OrgID: p.OrgID, ProjectID: p.ID, UserID: userID, CreatedAt: time.Now().UTC()}
	if err := projectdb.InsertMember(context.Background(), db.Q(), m); err != nil {
		t.Fatalf("testfactory.Assign: %v", err)
	}
}

// TicketOpts are a ticket's options; zero values are "ticket", Backlog,
// priority None, no assignee, sprint or parent.
type TicketOpts struct {
	Title      string
	Status     string
	Priority   string
	AssigneeID *uuid.UUID
	SprintID   *uuid.UUID
}

// Ticket inserts a ticket numbered from the project's counter, with the
// audit row of its creation (as the ticket use case writes it).
// Only p.ID is read: a test that made its project through the API passes
// projectdb.Row{ID: id}.
func Ticket(t testing.TB, db *store.DB, p projectdb.Row, reporterID uuid.UUID, o TicketOpts) ticketdb.Row {
	t.Helper()
	if o.Title == "" {
		o.Title = "ticket"
	}
	if o.Status == "" {
		o.Status = "Backlog"
	}
	if o.Priority == "" {
		o.Priority = "None"
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := ticketdb.Row{ID: domain.NewID(), ProjectID: p.ID,
		Content:    ticketdb.Content{Title: o.Title, Status: o.Status, Priority: o.Priority},
		AssigneeID: o.AssigneeID, ReporterID: reporterID, SprintID: o.SprintID, CreatedAt: now}
	audit := store.AuditRow{ID: domain.NewID(), ActorID: &reporterID, EntityType: "ticket", Action: "created",
		Changes: []byte("[]"), CreatedAt: now}
	row, err := ticketdb.InsertNext(context.Background(), db.Q(), r, audit, nil)
	if err != nil {
		t.Fatalf("testfactory.Ticket: %v", err)
	}
	return row
}

// TeamOpts are a team's options; Name defaults to a unique one.
type TeamOpts struct {
	Name string
}

// Team inserts a team in orgID.
func Team(t testing.TB, db *store.DB, orgID uuid.UUID, o TeamOpts) teamdb.Row {
	t.Helper()
	id := domain.NewID()
	if o.Name == "" {
		o.Name = "Team " + id.String()
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := teamdb.Row{ID: id, OrgID: orgID, Name: o.Name, CreatedAt: now, UpdatedAt: now}
	if err := teamdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Team: %v", err)
	}
	return r
}

// SprintOpts are a sprint's options; zero values are "Sprint", starting and
// ending today, Planned.
type SprintOpts struct {
	Name       string
	Start, End time.Time
	Status     string
}

// Sprint inserts a sprint in the project; p.ID and p.OrgID are read.
func Sprint(t testing.TB, db *store.DB, p projectdb.Row, o SprintOpts) sprintdb.Row {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	if o.Name == "" {
		o.Name = "Sprint"
	}
	if o.Start.IsZero() {
		o.Start = now.Truncate(24 * time.Hour)
	}
	if o.End.IsZero() {
		o.End = o.Start
	}
	if o.Status == "" {
		o.Status = "Planned"
	}
	r := sprintdb.Row{ID: domain.NewID(), OrgID: p.OrgID, ProjectID: p.ID,
		Content: sprintdb.Content{Name: o.Name, StartDate: civil.DateOf(o.Start), EndDate: civil.DateOf(o.End)}, Status: o.Status, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if err := sprintdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Sprint: %v", err)
	}
	return r
}

// CommentOpts are a comment's options; Body defaults to "comment".
type CommentOpts struct {
	Body     string
	ParentID *uuid.UUID
}

// Comment inserts a comment by authorID on the ticket (tk.ID and tk.OrgID
// are read).
func Comment(t testing.TB, db *store.DB, tk ticketdb.Row, authorID uuid.UUID, o CommentOpts) commentdb.Row {
	t.Helper()
	if o.Body == "" {
		o.Body = "comment"
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := commentdb.Row{ID: domain.NewID(), OrgID: tk.OrgID, TicketID: tk.ID, AuthorID: authorID, Content: commentdb.Content{Body: o.Body},
		ParentCommentID: o.ParentID, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if err := commentdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Comment: %v", err)
	}
	return r
}

// LaborRateOpts are a labor rate's options; zero values are 60.00 an hour
// (6000 cents) effective 2026-01-01.
type LaborRateOpts struct {
	Cents         int64
	EffectiveDate time.Time
}

// LaborRate inserts a loaded labor rate for userID in orgID.
func LaborRate(t testing.TB, db *store.DB, orgID, userID uuid.UUID, o LaborRateOpts) laborratedb.Row {
	t.Helper()
	if o.Cents == 0 {
		o.Cents = 6000
	}
	if o.EffectiveDate.IsZero() {
		o.EffectiveDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := laborratedb.Row{ID: domain.NewID(), OrgID: orgID, UserID: userID, LoadedRateCents: o.Cents,
		EffectiveDate: o.EffectiveDate, CreatedAt: now, UpdatedAt: now}
	if err := laborratedb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.LaborRate: %v", err)
	}
	return r
}

// TimeEntryOpts are a time entry's options; zero values are 60 minutes of
// Coding on 2026-01-05, Draft. An Approved entry is approved by ApprovedBy
// (default: the entry's own user) at ApprovedAt (default: now).
type TimeEntryOpts struct {
	Date       time.Time
	Minutes    int
	Activity   string
	Status     string
	ApprovedBy *uuid.UUID
	ApprovedAt *time.Time
}

// TimeEntry inserts userID's entry on the ticket (tk.ID, tk.OrgID and
// tk.ProjectID are read).
func TimeEntry(t testing.TB, db *store.DB, tk ticketdb.Row, userID uuid.UUID, o TimeEntryOpts) timeentrydb.Row {
	t.Helper()
	if o.Date.IsZero() {
		o.Date = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	}
	if o.Minutes == 0 {
		o.Minutes = 60
	}
	if o.Activity == "" {
		o.Activity = "Coding"
	}
	if o.Status == "" {
		o.Status = "Draft"
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := timeentrydb.Row{ID: domain.NewID(), OrgID: tk.OrgID, UserID: userID, TicketID: tk.ID, ProjectID: tk.ProjectID,
		Content: timeentrydb.Content{Date: civil.DateOf(o.Date), DurationMinutes: o.Minutes, ActivityType: o.Activity}, Status: o.Status, ApprovedBy: o.ApprovedBy,
		CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if o.Status == "Approved" && r.ApprovedBy == nil {
		r.ApprovedBy = &userID
	}
	if r.ApprovedBy != nil {
		r.ApprovedAt = o.ApprovedAt
		if r.ApprovedAt == nil {
			r.ApprovedAt = &now
		}
	}
	if err := timeentrydb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.TimeEntry: %v", err)
	}
	return r
}

// DeleteProject soft-deletes the project (what DELETE /projects/{id} leaves
// for the cascade to purge); p.ID and p.OrgID are read.
func DeleteProject(t testing.TB, db *store.DB, p projectdb.Row) {
	t.Helper()
	if err := projectdb.SoftDelete(context.Background(), db.Q(), p.OrgID, p.ID, store.Versions{}, time.Now().UTC()); err != nil {
		t.Fatalf("testfactory.DeleteProject: %v", err)
	}
}

// ApprovedEntries inserts n Approved entries of 30 minutes of Coding by
// userID on the ticket (tk.ID, tk.OrgID and tk.ProjectID are read), the
// i-th dated first + i mod days, in one statement: for tests that need
// volume rather than particular rows.
func ApprovedEntries(t testing.TB, db *store.DB, tk ticketdb.Row, userID uuid.UUID, n int, first time.Time, days int) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date,
	        duration_minutes, activity_type, status, approved_by, approved_at)
	    SELECT gen_random_uuid(), $1, $2, $3, $4, $5::date + (g % $6), 30, 'Coding', 'Approved', $2, now()
	    FROM generate_series(1, $7) g`, tk.OrgID, userID, tk.ID, tk.ProjectID, first, days, n); err != nil {
		t.Fatalf("testfactory.ApprovedEntries: %v", err)
	}
}
