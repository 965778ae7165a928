package searchdb_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// seed fills a fresh database with one org of 10 projects and 30,000
// tickets with skewed statuses, priorities, assignees, labels, tags,
// sprints, attachments and comments, then analyzes it.
const seed = `
INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-explain-' || gen_random_uuid());
INSERT INTO users (id, email, display_name) VALUES ($2, 'me@example.com', 'Me');
INSERT INTO users (id, email, display_name) SELECT md5('u' || g)::uuid, 'u' || g || '@example.com', 'U' || g FROM generate_series(1, 19) g;
INSERT INTO memberships (org_id, user_id, role) SELECT $1, id, 'member' FROM users;
INSERT INTO projects (id, org_id, key, name) SELECT md5('p' || g)::uuid, $1, 'P' || g, 'Project ' || g FROM generate_series(0, 9) g;
INSERT INTO project_members (org_id, project_id, user_id) SELECT $1, p.id, $2 FROM projects p WHERE p.key IN ('P0', 'P1');
INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date, status)
    SELECT md5('s' || p.key || g)::uuid, $1, p.id, 'Sprint ' || g, '2026-01-01', '2026-01-14', CASE g WHEN 3 THEN 'Active' ELSE 'Completed' END
    FROM projects p, generate_series(1, 3) g;
INSERT INTO labels (id, org_id, name, color) SELECT md5('l' || g)::uuid, $1, 'label' || g, '#000' FROM generate_series(1, 50) g;
CREATE TEMP TABLE u AS SELECT id, row_number() OVER (ORDER BY email) AS n FROM users;
CREATE TEMP TABLE pr AS SELECT id, row_number() OVER (ORDER BY key) - 1 AS n FROM projects;
INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, assignee_id, reporter_id, sprint_id, created_at, updated_at, due_date, estimate)
SELECT md5('t' || g)::uuid, $1, pr.id, g, (ARRAY['login','billing','export','search','report'])[1 + g % 5] || ' problem w' || g || ' x' || (g % 997),
       'Description of ticket ' || g,
       (ARRAY['Backlog','Backlog','Backlog','Todo','InProgress','InReview','Done','Done','Done','Cancelled'])[1 + g % 10],
       (ARRAY['None','None','None','Low','Medium','Medium','High','Critical'])[1 + (g / 7) % 8],
       CASE WHEN g % 5 = 0 THEN NULL ELSE (SELECT id FROM u WHERE u.n = 1 + (g * g) % 20) END,
       (SELECT id FROM u WHERE u.n = 1 + g % 20),
       CASE WHEN g % 4 = 0 THEN (SELECT s.id FROM sprints s WHERE s.project_id = pr.id ORDER BY s.name LIMIT 1 OFFSET g % 3) END,
       '2025-01-01'::timestamptz + (g % 365) * interval '1 day', '2025-06-01'::timestamptz + (g % 400) * interval '1 day',
       CASE WHEN g % 5 = 0 THEN DATE '2026-01-01' + (g * 37) % 120 END, CASE WHEN g % 10 < 3 THEN (g * 7) % 13 END
FROM generate_series(1, 30000) g JOIN pr ON pr.n = g % 10;
INSERT INTO ticket_labels (org_id, ticket_id, label_id)
    SELECT $1, t.id, l.id FROM tickets t JOIN labels l ON l.name = 'label' || (1 + t.ticket_number % 50) WHERE t.ticket_number % 3 = 0;
INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
    SELECT md5('e' || t.id)::uuid, $1, 'ticket', t.id, 'env', CASE WHEN t.ticket_number % 2 = 0 THEN 'prod' ELSE 'dev' END FROM tickets t WHERE t.ticket_number % 20 = 0;
INSERT INTO attachments (id, org_id, ticket_id, filename, content_type, size_bytes, storage_key, uploaded_by)
    SELECT md5('a' || t.id)::uuid, $1, t.id, 'f.txt', 'text/plain', 1, 'k/' || t.id, $2 FROM tickets t WHERE t.ticket_number % 50 = 0;
INSERT INTO ticket_links (id, org_id, source_id, target_id, type)
    SELECT md5('k' || a.id)::uuid, $1, a.id, b.id, 'blocks' FROM tickets a JOIN tickets b ON b.ticket_number = a.ticket_number + 1
    WHERE a.ticket_number % 200 = 0;
INSERT INTO comments (id, org_id, ticket_id, author_id, body)
    SELECT md5('c' || t.id)::uuid, $1, t.id, $2, 'comment about zeppelins ' || t.ticket_number FROM tickets t WHERE t.ticket_number % 100 = 0;
`

// seedPlans runs seed in db, with fixed ids (md5 of a name in the seed
// too: the same plans every run), and analyzes it.
func seedPlans(t *testing.T, db *store.DB) (org, me uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	org, me = uuid.MustParse("01900000-0000-7000-8000-000000000001"), uuid.MustParse("01900000-0000-7000-8000-000000000002")
	// Multiple statements run without bound arguments: the two ids (made
	// here) are written in.
	sqlText := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid").Replace(seed)
	if _, err := db.Pool.Exec(ctx, sqlText); err != nil {
		t.Fatalf("seed: %v", err)
	}
	// VACUUM flushes the GIN pending lists (autovacuum does on a live
	// table), so the planner costs the text indexes as they are.
	if _, err := db.Pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		t.Fatal(err)
	}
	return org, me
}

// TestEveryFilterUsesAnIndex runs EXPLAIN on the SQL the search generates
// for each filter of the grammar, within a project and org-wide, and fails
// on a sequential scan of tickets. The planner runs with its default
// settings: 30,000 tickets are enough for it to prefer an index whenever one
// serves the query.
func TestEveryFilterUsesAnIndex(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedPlans(t, db)
	var project uuid.UUID
	if err := db.Pool.QueryRow(ctx, `SELECT id FROM projects WHERE key = 'P0'`).Scan(&project); err != nil {
		t.Fatal(err)
	}
	statuses, _ := json.Marshal([]map[string]string{{"name": "Backlog", "category": "todo"}, {"name": "Done", "category": "done"}})
	env := searchdb.Env{OrgID: org, UserID: me, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DefaultStatuses: statuses}
	queries := []string{
		"", "status:InProgress", `status:"In Review"`, "category:done", "priority:High", "priority:>=High",
		"assignee:me", "assignee:u3@example.com", "assignee:none", "reporter:me", "label:label7", "-label:label7",
		"label:label50", "label:nosuchlabel", "-label:label50", "label:label7 label:label8",
		"sprint:current", `sprint:"Sprint 2"`, "sprint:none", "project:P1", "created:>2025-06-01", "created:2025-03-03",
		"updated:<7d", "updated:>30d", "tag:env=prod", "tag:env", "has:attachments", "has:labels", "has:assignee", "is:blocked",
		"login", `"login problem"`, "w4242", "logni", "problme", "zepelins", "sort:created billing", "zeppelins", "nothingmatches",
		"assignee:me status:Todo", "label:label7 status:Done", "sprint:current status:InProgress", "billing status:Done",
		"label:label3 OR label:label4", "(priority:High OR priority:Critical) category:todo",
		"sort:updated", "sort:created-asc", "sort:priority", "sort:number", "status:Done sort:updated-desc",
		"due:overdue", "due:<7d", "due:2026-03-05", "due:none", "estimate:>3", "estimate:none",
		"sort:due", "sort:estimate", "status:Todo sort:due", "due:overdue sort:due",
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, q := range queries {
		pq, err := searchquery.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, scope := range []string{"project", "org", "reporter"} {
			s := searchdb.Search{Env: env, Root: pq.Root, Sort: pq.Sort, Limit: 20}
			switch scope {
			case "project":
				s.ProjectID = &project
			case "reporter":
				s.AssignedTo = &me
			}
			// As List does: label and sprint names become constant ids.
			s, err := searchdb.Resolve(ctx, conn.Conn(), s)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			b, err := searchdb.Page(s)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			sql, args, err := b.ToSql()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if p := storetest.Explain(t, conn, "", sql, args...); strings.Contains(p, "Seq Scan on tickets") {
				t.Errorf("%q (%s) scans tickets sequentially:\n%s", q, scope, p)
			}
		}
	}
}
