// Package worktest builds projects, tickets and audit rows by direct SQL for
// the tests of comments, labels and sprints, which must not depend on the
// project and ticket use cases (written and tested on their own).
package worktest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
)

// Project is a projects row made by NewProject.
type Project struct {
	ID    uuid.UUID
	OrgID uuid.UUID
	Key   string
}

// Exec runs one statement, failing the test on error.
func Exec(t testing.TB, db *store.DB, sql string, args ...any) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("exec %q: %v", sql, err)
	}
}

// NewProject inserts a live project in orgID.
func NewProject(t testing.TB, db *store.DB, orgID uuid.UUID, key string) Project {
	t.Helper()
	p := Project{ID: domain.NewID(), OrgID: orgID, Key: key}
	Exec(t, db, `INSERT INTO projects (id, org_id, key, name) VALUES ($1, $2, $3, $4)`, p.ID, orgID, key, "Project "+key)
	return p
}

// Assign makes userID a member of the project (what a Reporter needs).
func (p Project) Assign(t testing.TB, db *store.DB, userID uuid.UUID) {
	t.Helper()
	Exec(t, db, `INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, $2, $3)`, p.OrgID, p.ID, userID)
}

// Ticket options; zero values mean status Backlog, no sprint.
type Ticket struct {
	Title    string
	Status   string
	SprintID *uuid.UUID
}

// NewTicket inserts a ticket numbered from the project's counter.
func NewTicket(t testing.TB, db *store.DB, p Project, reporterID uuid.UUID, o Ticket) uuid.UUID {
	t.Helper()
	if o.Title == "" {
		o.Title = "ticket"
	}
	if o.Status == "" {
		o.Status = "Backlog"
	}
	id := domain.NewID()
	Exec(t, db, `WITH n AS (UPDATE projects SET ticket_counter = ticket_counter + 1 WHERE id = $2 RETURNING ticket_counter)
		INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id, sprint_id)
		SELECT $1, $3, $2, n.ticket_counter, $4, $5, $6, $7 FROM n`,
		id, p.ID, p.OrgID, o.Title, o.Status, reporterID, o.SprintID)
	return id
}

// StatusAudit inserts the audit row of a ticket's status change at a chosen
// time, shaped as the ticket use cases write it.
func StatusAudit(t testing.TB, db *store.DB, orgID, ticketID uuid.UUID, from, to string, at time.Time) {
	t.Helper()
	changes, _ := json.Marshal([]domain.FieldChange{{Field: "status", Old: from, New: to}})
	Exec(t, db, `INSERT INTO audit_log (id, org_id, entity_type, entity_id, action, changes, created_at)
		VALUES ($1, $2, 'ticket', $3, 'status_changed', $4, $5)`, domain.NewID(), orgID, ticketID, string(changes), at)
}

// Count runs a count query.
func Count(t testing.TB, db *store.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("count %q: %v", sql, err)
	}
	return n
}

// Outbox returns the payloads of the outbox rows of topic in org, oldest first.
func Outbox(t testing.TB, db *store.DB, orgID uuid.UUID, topic string) []map[string]any {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT payload FROM outbox WHERE org_id = $1 AND topic = $2 ORDER BY id`, orgID, topic)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// AuditRow is one audit row as tests read it.
type AuditRow struct {
	EntityType string
	EntityID   uuid.UUID
	Action     string
	Changes    []domain.FieldChange
}

// Audit returns the audit rows of one entity, oldest first.
func Audit(t testing.TB, db *store.DB, entityType string, entityID uuid.UUID) []AuditRow {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT entity_type, entity_id, action, changes FROM audit_log
		WHERE entity_type = $1 AND entity_id = $2 ORDER BY created_at, id`, entityType, entityID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []AuditRow
	for rows.Next() {
		var r AuditRow
		var b []byte
		if err := rows.Scan(&r.EntityType, &r.EntityID, &r.Action, &b); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.Changes); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
