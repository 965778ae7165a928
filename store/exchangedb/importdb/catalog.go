package importdb

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
)

// pairs reads (text, uuid) rows into a map.
func pairs(ctx context.Context, q store.Querier, sql string, args ...any) (map[string]uuid.UUID, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, store.Translate(err)
	}
	out := map[string]uuid.UUID{}
	var k string
	var id uuid.UUID
	_, err = pgx.ForEachRow(rows, []any{&k, &id}, func() error {
		out[k] = id
		return nil
	})
	return out, store.Translate(err)
}

// UsersByEmail maps lower-cased emails to existing users.
func UsersByEmail(ctx context.Context, q store.Querier, emails []string) (map[string]uuid.UUID, error) {
	lower := make([]string, len(emails))
	for i, e := range emails {
		lower[i] = strings.ToLower(e)
	}
	return pairs(ctx, q, `SELECT lower(email), id FROM users WHERE lower(email) = ANY($1)`, lower)
}

// NewUser is a placeholder account an import creates for an unknown email:
// no password (it cannot log in), a member of nothing, marked placeholder so
// that registering with the email claims it (see accountdb.ClaimPlaceholder).
type NewUser struct {
	ID          uuid.UUID
	Email       string
	DisplayName string
}

// InsertUsers creates users; an email taken meanwhile is skipped. It
// returns the ids actually created.
func InsertUsers(ctx context.Context, q store.Querier, users []NewUser, at time.Time) ([]uuid.UUID, error) {
	if len(users) == 0 {
		return nil, nil
	}
	ids, emails, names := make([]uuid.UUID, len(users)), make([]string, len(users)), make([]string, len(users))
	for i, u := range users {
		ids[i], emails[i], names[i] = u.ID, u.Email, u.DisplayName
	}
	rows, err := q.Query(ctx, `INSERT INTO users (id, email, display_name, password_hash, active, placeholder, created_at, updated_at)
	    SELECT u.id, u.email, u.name, NULL, true, true, $4, $4 FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, email, name)
	    ON CONFLICT DO NOTHING RETURNING id`, ids, emails, names, at)
	if err != nil {
		return nil, store.Translate(err)
	}
	created, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	return created, store.Translate(err)
}

// Invite is a pending invite an import makes for a person it names who is
// not a member of the org.
type Invite struct {
	ID     uuid.UUID
	Code   string
	Email  string
	UserID uuid.UUID
	Role   string
}

// InsertInvites makes pending invites to the org, skipping the users who are
// already members and the emails that already have a pending invite. It
// returns the ids of the invites it made.
func InsertInvites(ctx context.Context, q store.Querier, orgID, createdBy uuid.UUID, invites []Invite, expires, at time.Time) ([]uuid.UUID, error) {
	if len(invites) == 0 {
		return nil, nil
	}
	n := len(invites)
	ids, codes, emails, users, roles := make([]uuid.UUID, n), make([]string, n), make([]string, n), make([]uuid.UUID, n), make([]string, n)
	for i, v := range invites {
		ids[i], codes[i], emails[i], users[i], roles[i] = v.ID, v.Code, v.Email, v.UserID, v.Role
	}
	rows, err := q.Query(ctx, `INSERT INTO invites (id, org_id, code, email, role, created_by, expires_at, created_at)
	    SELECT v.id, $1, v.code, v.email, v.role, $2, $3, $4
	    FROM unnest($5::uuid[], $6::text[], $7::text[], $8::uuid[], $9::text[]) AS v(id, code, email, user_id, role)
	    WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = $1 AND m.user_id = v.user_id)
	      AND NOT EXISTS (SELECT 1 FROM invites i WHERE i.org_id = $1 AND lower(i.email) = lower(v.email)
	          AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $4)
	    RETURNING id`,
		orgID, createdBy, expires, at, ids, codes, emails, users, roles)
	if err != nil {
		return nil, store.Translate(err)
	}
	made, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	return made, store.Translate(err)
}

// WorkflowsByName maps the org's workflow names to ids.
func WorkflowsByName(ctx context.Context, q store.Querier, orgID uuid.UUID) (map[string]uuid.UUID, error) {
	return pairs(ctx, q, `SELECT name, id FROM workflows WHERE org_id = $1`, orgID)
}

// LabelsByName maps the org's live labels (lower-cased names) to ids.
func LabelsByName(ctx context.Context, q store.Querier, orgID uuid.UUID) (map[string]uuid.UUID, error) {
	return pairs(ctx, q, `SELECT lower(name), id FROM labels WHERE org_id = $1 AND deleted_at IS NULL`, orgID)
}

// ProjectsByKey maps the org's live projects (upper-cased keys) to ids.
func ProjectsByKey(ctx context.Context, q store.Querier, orgID uuid.UUID) (map[string]uuid.UUID, error) {
	return pairs(ctx, q, `SELECT upper(key), id FROM projects WHERE org_id = $1 AND deleted_at IS NULL`, orgID)
}

// LiveSprint is a live sprint of a project.
type LiveSprint struct {
	ProjectID uuid.UUID `db:"project_id"`
	ID        uuid.UUID `db:"id"`
	Name      string    `db:"name"`
}

// LiveSprints lists the live sprints of the projects, each project's in
// creation order.
func LiveSprints(ctx context.Context, q store.Querier, projectIDs []uuid.UUID) ([]LiveSprint, error) {
	return store.SelectRaw[LiveSprint](ctx, q, `SELECT project_id, id, name FROM sprints
	    WHERE project_id = ANY($1) AND deleted_at IS NULL ORDER BY project_id, id`, projectIDs)
}

// InsertWorkflow creates a workflow (statuses and transitions as JSON).
func InsertWorkflow(ctx context.Context, q store.Querier, orgID, id uuid.UUID, name string, statuses, transitions []byte, enforcement string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO workflows (id, org_id, name, statuses, transitions, enforcement, created_at, updated_at)
	    VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, id, orgID, name, string(statuses), string(transitions), enforcement, at)
	return store.Translate(err)
}

// AddProjectMembers adds those of userIDs who are members of the org to a
// project (an import only invites the others); existing ones stay.
func AddProjectMembers(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, userIDs []uuid.UUID, at time.Time) error {
	if len(userIDs) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO project_members (org_id, project_id, user_id, created_at)
	    SELECT $1, $2, m.user_id, $4 FROM memberships m WHERE m.org_id = $1 AND m.user_id = ANY($3)
	    ON CONFLICT DO NOTHING`, orgID, projectID, userIDs, at)
	return store.Translate(err)
}

// MemberEmails tells which of the (lower-cased) emails belong to members of
// the org.
func MemberEmails(ctx context.Context, q store.Querier, orgID uuid.UUID, emails []string) (map[string]bool, error) {
	m, err := pairs(ctx, q, `SELECT lower(u.email), u.id FROM users u
	    JOIN memberships m ON m.user_id = u.id AND m.org_id = $1 WHERE lower(u.email) = ANY($2)`, orgID, emails)
	return keysOf(m), err
}

// WorkflowNames tells which of the names are workflows of the org.
func WorkflowNames(ctx context.Context, q store.Querier, orgID uuid.UUID, names []string) (map[string]bool, error) {
	m, err := pairs(ctx, q, `SELECT name, id FROM workflows WHERE org_id = $1 AND name = ANY($2)`, orgID, names)
	return keysOf(m), err
}

func keysOf(m map[string]uuid.UUID) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// TeamsByName maps the org's teams (lower-cased names) to ids.
func TeamsByName(ctx context.Context, q store.Querier, orgID uuid.UUID) (map[string]uuid.UUID, error) {
	return pairs(ctx, q, `SELECT lower(name), id FROM teams WHERE org_id = $1`, orgID)
}

// InsertTeam creates a team.
func InsertTeam(ctx context.Context, q store.Querier, orgID, id uuid.UUID, name string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO teams (id, org_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`,
		id, orgID, name, at)
	return store.Translate(err)
}

// AddTeamMembers adds those of userIDs who are active members of the org to
// a team; existing team members stay.
func AddTeamMembers(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID, userIDs []uuid.UUID, at time.Time) error {
	if len(userIDs) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO team_members (org_id, team_id, user_id, created_at)
	    SELECT $1, $2, m.user_id, $4 FROM memberships m
	    WHERE m.org_id = $1 AND m.user_id = ANY($3) AND m.suspended_at IS NULL
	    ON CONFLICT DO NOTHING`, orgID, teamID, userIDs, at)
	return store.Translate(err)
}
