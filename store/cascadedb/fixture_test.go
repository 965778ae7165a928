package cascadedb

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
)

// tree is one project's worth of rows, as the purge tests need them.
type tree struct {
	OrgID, UserID, ProjectID uuid.UUID
	Sprints                  []uuid.UUID
	Tickets                  []uuid.UUID // Tickets[0..1] in Sprints[0]
	Comments                 []uuid.UUID
	Approved                 uuid.UUID // ticket with an approved time entry (Tickets[1])
	LabelID                  uuid.UUID // org label used by every ticket
}

func exec(t *testing.T, q store.Querier, sql string, args ...any) {
	t.Helper()
	if _, err := q.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func hasTimeEntries(t *testing.T, db *store.DB) bool {
	ok, err := hasTable(context.Background(), db.Q(), "time_entries")
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// newOrg makes an org with one user.
func newOrg(t *testing.T, db *store.DB) (org, user uuid.UUID) {
	org, user = domain.NewID(), domain.NewID()
	exec(t, db.Q(), `INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, org, org.String())
	exec(t, db.Q(), `INSERT INTO users (id, email, display_name) VALUES ($1, $2, 'u')`, user, user.String()+"@x.test")
	exec(t, db.Q(), `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner')`, org, user)
	return org, user
}

// newLabel makes an org label.
func newLabel(t *testing.T, db *store.DB, org uuid.UUID) uuid.UUID {
	id := domain.NewID()
	exec(t, db.Q(), `INSERT INTO labels (id, org_id, name, color) VALUES ($1, $2, $3, '#fff')`, id, org, id.String())
	return id
}

// newTree makes a project with 2 sprints, n tickets (two in the first
// sprint), 3 comments per ticket (a reply chain), the label on every ticket,
// tags on tickets and project, a member, and time entries: Draft and
// Submitted on Tickets[0], Approved on Tickets[1].
func newTree(t *testing.T, db *store.DB, org, user, label uuid.UUID, key string, n int) tree {
	t.Helper()
	q := db.Q()
	tr := tree{OrgID: org, UserID: user, ProjectID: domain.NewID(), LabelID: label}
	exec(t, q, `INSERT INTO projects (id, org_id, key, name) VALUES ($1, $2, $3, 'p')`, tr.ProjectID, org, key)
	exec(t, q, `INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, $2, $3)`, org, tr.ProjectID, user)
	exec(t, q, `INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value) VALUES ($1, $2, 'project', $3, 'k', 'v')`,
		domain.NewID(), org, tr.ProjectID)
	for i := 0; i < 2; i++ {
		s := domain.NewID()
		exec(t, q, `INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date) VALUES ($1, $2, $3, 's', '2025-01-01', '2025-01-14')`,
			s, org, tr.ProjectID)
		tr.Sprints = append(tr.Sprints, s)
	}
	for i := 0; i < n; i++ {
		id := domain.NewID()
		var sprint *uuid.UUID
		if i < 2 {
			sprint = &tr.Sprints[0]
		}
		exec(t, q, `INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id, sprint_id)
			VALUES ($1, $2, $3, $4, 't', 'Todo', $5, $6)`, id, org, tr.ProjectID, i+1, user, sprint)
		tr.Tickets = append(tr.Tickets, id)
		var parent *uuid.UUID
		for j := 0; j < 3; j++ {
			c := domain.NewID()
			exec(t, q, `INSERT INTO comments (id, org_id, ticket_id, author_id, body, parent_comment_id) VALUES ($1, $2, $3, $4, 'b', $5)`,
				c, org, id, user, parent)
			tr.Comments = append(tr.Comments, c)
			parent = &c
		}
		exec(t, q, `INSERT INTO ticket_labels (org_id, ticket_id, label_id) VALUES ($1, $2, $3)`, org, id, label)
		exec(t, q, `INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value) VALUES ($1, $2, 'ticket', $3, 'k', 'v')`,
			domain.NewID(), org, id)
	}
	if hasTimeEntries(t, db) && n >= 2 {
		entry := func(ticket uuid.UUID, status string) uuid.UUID {
			id := domain.NewID()
			var by any
			var at any
			if status == "Approved" {
				by, at = user, "2025-01-02T00:00:00Z"
			}
			exec(t, q, `INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date, duration_minutes,
				activity_type, status, approved_by, approved_at) VALUES ($1, $2, $3, $4, $5, '2025-01-02', 60, 'Coding', $6, $7, $8)`,
				id, org, user, ticket, tr.ProjectID, status, by, at)
			exec(t, q, `INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value) VALUES ($1, $2, 'time_entry', $3, 'k', 'v')`,
				domain.NewID(), org, id)
			return id
		}
		entry(tr.Tickets[0], "Draft")
		entry(tr.Tickets[0], "Submitted")
		entry(tr.Tickets[1], "Approved")
		tr.Approved = tr.Tickets[1]
	}
	return tr
}

// counts is the number of rows per table that belong to project p.
func counts(t *testing.T, db *store.DB, p uuid.UUID) map[string]int {
	t.Helper()
	qs := map[string]string{
		"projects":        `SELECT count(*) FROM projects WHERE id = $1`,
		"project_members": `SELECT count(*) FROM project_members WHERE project_id = $1`,
		"sprints":         `SELECT count(*) FROM sprints WHERE project_id = $1`,
		"tickets":         `SELECT count(*) FROM tickets WHERE project_id = $1`,
		"comments":        `SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id WHERE t.project_id = $1`,
		"ticket_labels":   `SELECT count(*) FROM ticket_labels l JOIN tickets t ON t.id = l.ticket_id WHERE t.project_id = $1`,
		"ticket_tags": `SELECT count(*) FROM entity_tags e WHERE e.entity_type = 'ticket'
			AND e.entity_id IN (SELECT id FROM tickets WHERE project_id = $1)`,
		"project_tags": `SELECT count(*) FROM entity_tags WHERE entity_type = 'project' AND entity_id = $1`,
	}
	if hasTimeEntries(t, db) {
		qs["time_entries"] = `SELECT count(*) FROM time_entries WHERE project_id = $1`
		qs["entry_tags"] = `SELECT count(*) FROM entity_tags e WHERE e.entity_type = 'time_entry'
			AND e.entity_id IN (SELECT id FROM time_entries WHERE project_id = $1)`
	}
	out := map[string]int{}
	for name, sql := range qs {
		var n int
		if err := db.Q().QueryRow(context.Background(), sql, p).Scan(&n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = n
	}
	return out
}

// purge runs a root's whole plan with small batches, as the workflow does.
func purge(t *testing.T, db *store.DB, r Root) int64 {
	t.Helper()
	ctx := context.Background()
	if st, err := State(ctx, db.Q(), r); err != nil || st != RootDeleted {
		t.Fatalf("root state %v, %v; want deleted", st, err)
	}
	steps, err := Plan(r.Type)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range steps {
		for i := 0; ; i++ {
			if i > 10_000 {
				t.Fatalf("step %s does not finish", s)
			}
			var n int64
			err := db.InTx(ctx, func(q store.Querier) error {
				var err error
				n, err = Run(ctx, q, r, s, 7)
				return err
			})
			if err != nil {
				t.Fatalf("step %s: %v", s, err)
			}
			total += n
			if StepDone(s, n) {
				break
			}
		}
	}
	return total
}

func softDelete(t *testing.T, db *store.DB, table string, id uuid.UUID) {
	exec(t, db.Q(), fmt.Sprintf(`UPDATE %s SET deleted_at = now() WHERE id = $1`, table), id)
}
