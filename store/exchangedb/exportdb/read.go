// Package exportdb holds the SQL of the export: reads of one organization's
// live data (in one read-only snapshot, in batches, never all tickets at
// once) and the single-file SQLite database of the sqlite format.
package exportdb

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/projectdb"
)

// Snapshot runs fn in one read-only REPEATABLE READ transaction, so a long
// export sees one consistent state of the organization.
func Snapshot(ctx context.Context, db *store.DB, fn func(q store.Querier) error) error {
	tx, err := db.Pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return store.Translate(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx); err != nil {
		return err
	}
	return store.Translate(tx.Commit(ctx))
}

// Org is the exported organization.
type Org struct {
	ID   uuid.UUID `db:"id"`
	Name string    `db:"name"`
	Slug string    `db:"slug"`
}

// GetOrg reads an organization.
func GetOrg(ctx context.Context, q store.Querier, id uuid.UUID) (Org, error) {
	return store.GetRaw[Org](ctx, q, `SELECT id, name, slug FROM organizations WHERE id = $1`, id)
}

// ProjectID finds a live project of org by key (any case).
func ProjectID(ctx context.Context, q store.Querier, orgID uuid.UUID, key string) (uuid.UUID, error) {
	var id uuid.UUID
	err := q.QueryRow(ctx, `SELECT id FROM projects
	    WHERE org_id = $1 AND upper(key) = upper($2) AND deleted_at IS NULL`, orgID, key).Scan(&id)
	return id, store.Translate(err)
}

// User is a user the export mentions; Role is "" for a non-member.
type User struct {
	ID          uuid.UUID `db:"id"`
	Email       string    `db:"email"`
	DisplayName string    `db:"display_name"`
	Role        string    `db:"role"`
}

// Users lists the org's members and every other user that the exported
// projects reference (reporters, assignees, comment authors, time entry
// users and approvers, project members), by email. projectID narrows the
// references to one project (uuid.Nil: every live project).
func Users(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]User, error) {
	return store.SelectRaw[User](ctx, q, `
	WITH scope AS (
	    SELECT id FROM projects WHERE org_id = $1 AND deleted_at IS NULL AND ($2::uuid IS NULL OR id = $2)),
	t AS (
	    SELECT id, assignee_id, reporter_id FROM tickets
	    WHERE project_id IN (SELECT id FROM scope) AND deleted_at IS NULL),
	refs AS (
	    SELECT reporter_id AS uid FROM t
	    UNION SELECT assignee_id FROM t
	    UNION SELECT author_id FROM comments WHERE ticket_id IN (SELECT id FROM t)
	    UNION SELECT user_id FROM time_entries WHERE ticket_id IN (SELECT id FROM t)
	    UNION SELECT approved_by FROM time_entries WHERE ticket_id IN (SELECT id FROM t)
	    UNION SELECT user_id FROM project_members WHERE project_id IN (SELECT id FROM scope)
	    UNION SELECT user_value FROM ticket_custom_values WHERE ticket_id IN (SELECT id FROM t))
	SELECT u.id, u.email, u.display_name, COALESCE(m.role, '') AS role
	FROM users u LEFT JOIN memberships m ON m.org_id = $1 AND m.user_id = u.id
	WHERE m.user_id IS NOT NULL OR u.id IN (SELECT uid FROM refs WHERE uid IS NOT NULL)
	ORDER BY lower(u.email), u.id`, orgID, nilable(projectID))
}

// Workflow is a workflows row as exported.
type Workflow struct {
	ID          uuid.UUID `db:"id"`
	Name        string    `db:"name"`
	Statuses    []byte    `db:"statuses"`
	Transitions []byte    `db:"transitions"`
	Enforcement string    `db:"enforcement"`
}

// Workflows lists the org's workflows by name.
func Workflows(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Workflow, error) {
	return store.SelectRaw[Workflow](ctx, q, `SELECT id, name, statuses, transitions, enforcement
	    FROM workflows WHERE org_id = $1 ORDER BY name, id`, orgID)
}

// Project is a live project with its workflow's name.
type Project struct {
	ID            uuid.UUID `db:"id"`
	Key           string    `db:"key"`
	Name          string    `db:"name"`
	Description   *string   `db:"description"`
	Workflow      *string   `db:"workflow"`
	Team          *string   `db:"team"`
	TicketCounter int       `db:"ticket_counter"`
	projectdb.Content
	BudgetCents     *int64    `db:"budget_cents"`
	BudgetPeriod    *string   `db:"budget_period"`
	PlacedInService *string   `db:"placed_in_service"`
	CreatedAt       time.Time `db:"created_at"`
	UpdatedAt       time.Time `db:"updated_at"`
}

// projectContent selects projectdb.Content of the project p.
var projectContent = "p." + strings.Join(projectdb.ContentFields.Names(), ", p.")

// Projects lists the org's live projects by key (projectID: only that one).
func Projects(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]Project, error) {
	return store.SelectRaw[Project](ctx, q, `SELECT p.id, p.key, p.name, p.description, w.name AS workflow, tm.name AS team,
	        p.ticket_counter, `+projectContent+`, p.budget_cents, p.budget_period, to_char(p.placed_in_service, 'YYYY-MM-DD') AS placed_in_service, p.created_at, p.updated_at
	    FROM projects p LEFT JOIN workflows w ON w.id = p.workflow_id LEFT JOIN teams tm ON tm.id = p.team_id
	    WHERE p.org_id = $1 AND p.deleted_at IS NULL AND ($2::uuid IS NULL OR p.id = $2)
	    ORDER BY p.key, p.id`, orgID, nilable(projectID))
}

// Members lists the user ids of a project's members.
func Members(ctx context.Context, q store.Querier, projectID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT pm.user_id FROM project_members pm
	    JOIN users u ON u.id = pm.user_id WHERE pm.project_id = $1 ORDER BY lower(u.email)`, projectID)
	if err != nil {
		return nil, store.Translate(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	return ids, store.Translate(err)
}

func nilable(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// Team is a team with its members' emails.
type Team struct {
	Name    string   `db:"name"`
	Members []string `db:"members"`
}

// Teams lists the org's teams by name with their active members' emails
// (projectID: only that project's team). Every org member is in the
// document's users, so each member email resolves.
func Teams(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]Team, error) {
	return store.SelectRaw[Team](ctx, q, `SELECT t.name,
	        COALESCE(array_agg(u.email ORDER BY lower(u.email)) FILTER (WHERE u.id IS NOT NULL), '{}') AS members
	    FROM teams t
	    LEFT JOIN team_members tm ON tm.team_id = t.id
	         AND EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = t.org_id AND m.user_id = tm.user_id AND m.suspended_at IS NULL)
	    LEFT JOIN users u ON u.id = tm.user_id
	    WHERE t.org_id = $1 AND ($2::uuid IS NULL OR t.id = (SELECT team_id FROM projects WHERE id = $2))
	    GROUP BY t.id, t.name ORDER BY lower(t.name), t.id`, orgID, nilable(projectID))
}
