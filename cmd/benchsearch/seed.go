package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/cmd/internal/benchkit"
)

// world is the seeded org, a token of its Owner and what the filters name.
type world struct {
	token   string
	orgID   uuid.UUID
	tag     string // the suffix of the seeded users' emails
	tickets []uuid.UUID
	since   string // a date a month back (created:>since)
}

func prepare(ctx context.Context, c config) (world, error) {
	var w world
	email := fmt.Sprintf("benchsearch-%s@example.test", uuid.NewString()[:8])
	var auth struct {
		AccessToken string    `json:"access_token"`
		UserID      uuid.UUID `json:"user_id"`
	}
	if err := benchkit.Call(ctx, c.URL, "POST", "/api/v1/auth/register", "", map[string]any{
		"email": email, "password": "benchmark-password", "display_name": "Bench Owner"}, &auth); err != nil {
		return w, fmt.Errorf("register: %w", err)
	}
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	if err := benchkit.Call(ctx, c.URL, "GET", "/api/v1/auth/me", auth.AccessToken, nil, &me); err != nil {
		return w, err
	}
	w.token, w.orgID = auth.AccessToken, me.OrgID
	w.since = time.Now().UTC().AddDate(0, -1, 0).Format("2006-01-02")
	pool, err := pgxpool.New(ctx, c.DB)
	if err != nil {
		return w, err
	}
	defer pool.Close()
	if c.Reuse != "" {
		// The org of the earlier run; the new user joins it as an Owner.
		err := pool.QueryRow(ctx, `SELECT p.org_id, substring(u.email from '-([a-z0-9]+)@bench.test$') FROM projects p
		    JOIN memberships m ON m.org_id = p.org_id JOIN users u ON u.id = m.user_id
		    WHERE p.key = 'P1' AND u.email LIKE 'user1-%@bench.test' LIMIT 1`).Scan(&w.orgID, &w.tag)
		if err != nil {
			return w, fmt.Errorf("find the seeded org: %w", err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner')`, w.orgID, auth.UserID); err != nil {
			return w, err
		}
	} else {
		w.tag = uuid.NewString()[:8]
		var p struct {
			ID uuid.UUID `json:"id"`
		}
		if err := benchkit.Call(ctx, c.URL, "POST", "/api/v1/projects", w.token, map[string]any{"org_id": w.orgID, "key": "P0", "name": "Project 0"}, &p); err != nil {
			return w, err
		}
		if err := benchkit.Call(ctx, c.URL, "POST", "/api/v1/projects/"+p.ID.String()+"/tickets", w.token,
			map[string]any{"title": "First ticket, made through the API", "priority": "High"}, nil); err != nil {
			return w, err
		}
		start := time.Now()
		if err := seed(ctx, pool, c, w.orgID, auth.UserID, p.ID, w.tag); err != nil {
			return w, fmt.Errorf("seed: %w", err)
		}
		fmt.Printf("seeded %d tickets in %s (org %s)\n", c.Tickets, time.Since(start).Round(time.Second), w.orgID)
	}
	rows, err := pool.Query(ctx, `SELECT id FROM tickets WHERE org_id = $1 ORDER BY random() LIMIT 2000`, w.orgID)
	if err != nil {
		return w, err
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return w, err
		}
		w.tickets = append(w.tickets, id)
	}
	return w, rows.Err()
}

// seed writes the org's data with set-based SQL (random() after setseed,
// so every run of a size seeds the same shape), then VACUUM ANALYZEs.
// Skews: projects p = ⌊P·r²⌋ (the largest holds ~10%); assignees
// ⌊(U−1)·r³⌋ (the owner about a quarter, 15% unassigned, the last user
// none); labels ⌊(L−1)·r³⌋, 0–3 a ticket (the last label none); statuses
// Done 45%, Backlog 25%, Todo 12%, InProgress 12%, InReview 6%, Cancelled
// none; priorities None 40%, Low 22%, Medium 23%, High 12%, Critical 3%.
func seed(ctx context.Context, pool *pgxpool.Pool, c config, orgID, ownerID, projectID uuid.UUID, tag string) error {
	words := `ARRAY['login','billing','export','search','report','invoice','dashboard','upload','payment','email',
	                'profile','settings','api','mobile','sync','cache','timeout','crash','permission','notification']`
	stmts := []struct {
		sql  string
		args []any
	}{
		{`SELECT setseed(0.42)`, nil},
		{`CREATE TEMP TABLE b_users AS SELECT 0 AS n, $1::uuid AS id
		  UNION ALL SELECT g, gen_random_uuid() FROM generate_series(1, $2 - 1) g`, []any{ownerID, c.Users}},
		{`INSERT INTO users (id, email, display_name) SELECT id, 'user' || n || '-' || $1 || '@bench.test', 'User ' || n
		  FROM b_users WHERE n > 0`, []any{tag}},
		{`INSERT INTO memberships (org_id, user_id, role) SELECT $1, id, 'member' FROM b_users WHERE n > 0`, []any{orgID}},
		{`CREATE TEMP TABLE b_projects AS SELECT 0 AS n, $1::uuid AS id
		  UNION ALL SELECT g, gen_random_uuid() FROM generate_series(1, $2 - 1) g`, []any{projectID, c.Projects}},
		{`INSERT INTO projects (id, org_id, key, name) SELECT id, $1, 'P' || n, 'Project ' || n FROM b_projects WHERE n > 0`, []any{orgID}},
		{`INSERT INTO labels (id, org_id, name, color) SELECT gen_random_uuid(), $1, 'label' || g, '#336699'
		  FROM generate_series(1, $2) g`, []any{orgID, c.Labels}},
		{`INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date, status)
		  SELECT gen_random_uuid(), $1, p.id, 'Sprint ' || g, current_date - (12 - g) * 14 - 7, current_date - (12 - g) * 14 + 6,
		         CASE WHEN g = 12 THEN 'Active' ELSE 'Completed' END
		  FROM b_projects p, generate_series(1, 12) g`, []any{orgID}},
		{`CREATE TEMP TABLE b_sprints AS SELECT s.project_id, array_agg(s.id ORDER BY s.start_date) AS ids
		  FROM sprints s WHERE s.org_id = $1 GROUP BY s.project_id`, []any{orgID}},
		{`CREATE TEMP TABLE b_t AS SELECT g, floor($1 * power(random(), 2))::int AS p,
		         floor(($2 - 1) * power(random(), 3))::int AS a, floor(($2 - 1) * power(random(), 2))::int AS rep,
		         random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6, random() AS r7,
		         floor(random() * 20)::int AS w1, floor(random() * 20)::int AS w2, floor(random() * 20)::int AS w3
		  FROM generate_series(1, $3) g`, []any{c.Projects, c.Users, c.Tickets}},
		{`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority,
		                      assignee_id, reporter_id, sprint_id, created_at, updated_at, due_date, estimate)
		  SELECT gen_random_uuid(), $1, bp.id,
		         row_number() OVER (PARTITION BY t.p ORDER BY t.g) + CASE WHEN t.p = 0 THEN 1 ELSE 0 END,
		         initcap(w[1 + t.w1]) || ' ' || w[1 + t.w2] || ' issue ' || t.g,
		         'When I open the ' || w[1 + t.w3] || ' page the ' || w[1 + (t.w1 + 7) % 20] || ' fails. Ticket ' || t.g,
		         CASE WHEN t.r2 < 0.45 THEN 'Done' WHEN t.r2 < 0.70 THEN 'Backlog' WHEN t.r2 < 0.82 THEN 'Todo'
		              WHEN t.r2 < 0.94 THEN 'InProgress' ELSE 'InReview' END,
		         CASE WHEN t.r3 < 0.40 THEN 'None' WHEN t.r3 < 0.62 THEN 'Low' WHEN t.r3 < 0.85 THEN 'Medium'
		              WHEN t.r3 < 0.97 THEN 'High' ELSE 'Critical' END,
		         CASE WHEN t.r1 < 0.15 THEN NULL ELSE u.ids[1 + t.a] END, u.ids[1 + t.rep],
		         CASE WHEN t.r4 < 0.30 THEN s.ids[12 - floor(power(t.r5, 2) * 12)::int] END,
		         now() - t.r6 * interval '730 days', now() - t.r6 * t.r7 * interval '730 days',
		         CASE WHEN t.g % 5 = 0 THEN current_date + ((t.g * 37) % 120 - 60) END,
		         CASE WHEN t.g % 10 < 3 THEN ((t.g * 7) % 13) + (t.g % 4) * 0.25 END
		  FROM b_t t JOIN b_projects bp ON bp.n = t.p JOIN b_sprints s ON s.project_id = bp.id,
		       (SELECT array_agg(id ORDER BY n) AS ids FROM b_users) u, (SELECT ` + words + ` AS w) ws`, []any{orgID}},
		{`UPDATE projects p SET ticket_counter = m.n FROM (SELECT project_id, max(ticket_number) AS n FROM tickets
		  WHERE org_id = $1 GROUP BY project_id) m WHERE p.id = m.project_id`, []any{orgID}},
		{`INSERT INTO ticket_labels (org_id, ticket_id, label_id)
		  SELECT DISTINCT $1::uuid, t.id, l.ids[1 + floor(($2 - 1) * power(random() + k * 0, 3))::int]
		  FROM tickets t CROSS JOIN LATERAL generate_series(1, t.ticket_number % 4) k,
		       (SELECT array_agg(id ORDER BY length(name), name) AS ids FROM labels WHERE org_id = $1) l
		  WHERE t.org_id = $1`, []any{orgID, c.Labels}},
		{`INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		  SELECT gen_random_uuid(), $1, 'ticket', id, 'env', CASE WHEN ticket_number % 2 = 0 THEN 'prod' ELSE 'dev' END
		  FROM tickets WHERE org_id = $1 AND ticket_number % 20 IN (3, 4)`, []any{orgID}},
		{`INSERT INTO attachments (id, org_id, ticket_id, filename, content_type, size_bytes, storage_key, uploaded_by)
		  SELECT gen_random_uuid(), $1, id, 'screenshot.png', 'image/png', 1000, 'bench/' || id, $2
		  FROM tickets WHERE org_id = $1 AND ticket_number % 100 = 7`, []any{orgID, ownerID}},
		{`INSERT INTO comments (id, org_id, ticket_id, author_id, body)
		  SELECT gen_random_uuid(), $1, id, $2, 'Seen again on the zeppelin build ' || ticket_number
		  FROM tickets WHERE org_id = $1 AND ticket_number % 50 = 11`, []any{orgID, ownerID}},
		{`INSERT INTO ticket_links (id, org_id, source_id, target_id, type)
		  SELECT gen_random_uuid(), $1, a.id, b.id, 'blocks' FROM tickets a
		  JOIN tickets b ON b.project_id = a.project_id AND b.ticket_number = a.ticket_number + 1
		  WHERE a.org_id = $1 AND a.ticket_number % 200 = 5`, []any{orgID}},
		// Custom fields: a select "severity" on 1% of the tickets (its
		// options skewed: Blocker on 0.1%, Critical 0.2%, Major 0.3%, Minor 0.4%) and a number
		// "story_points" on 10% (0–20, halves).
		{`INSERT INTO custom_fields (id, org_id, key, name, type, options)
		  SELECT gen_random_uuid(), $1, 'severity', 'Severity', 'select',
		         jsonb_agg(jsonb_build_object('id', gen_random_uuid(), 'name', n, 'color', NULL, 'archived', false) ORDER BY o)
		  FROM unnest(ARRAY['Minor','Major','Critical','Blocker']) WITH ORDINALITY AS x(n, o)`, []any{orgID}},
		{`INSERT INTO custom_fields (id, org_id, key, name, type) VALUES (gen_random_uuid(), $1, 'story_points', 'Story points', 'number')`, []any{orgID}},
		{`INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, option_ids)
		  SELECT t.id, f.id, $1, ARRAY[(f.options -> CASE WHEN (t.ticket_number / 100) % 10 = 0 THEN 3
		                                                  WHEN (t.ticket_number / 100) % 10 < 3 THEN 2
		                                                  WHEN (t.ticket_number / 100) % 10 < 6 THEN 1 ELSE 0 END ->> 'id')::uuid]
		  FROM tickets t, custom_fields f
		  WHERE t.org_id = $1 AND f.org_id = $1 AND f.key = 'severity' AND t.ticket_number % 100 = 9`, []any{orgID}},
		{`INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, num_value)
		  SELECT t.id, f.id, $1, ((t.ticket_number * 7919) % 41) / 2.0
		  FROM tickets t, custom_fields f
		  WHERE t.org_id = $1 AND f.org_id = $1 AND f.key = 'story_points' AND t.ticket_number % 10 = 4`, []any{orgID}},
		// The tickets' rendered copies of their values (what a read answers).
		{`UPDATE tickets SET custom_fields = ticket_custom_fields_json(id)
		  WHERE id IN (SELECT ticket_id FROM ticket_custom_values WHERE org_id = $1)`, []any{orgID}},
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for i, s := range stmts {
		start := time.Now()
		if _, err := conn.Exec(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("statement %d: %w", i+1, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			fmt.Printf("  seed step %d: %s\n", i+1, d.Round(time.Second))
		}
	}
	for _, t := range []string{"tickets", "ticket_labels", "labels", "sprints", "projects", "users", "memberships",
		"entity_tags", "attachments", "comments", "ticket_links", "custom_fields", "ticket_custom_values"} {
		if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
			return err
		}
	}
	return nil
}
