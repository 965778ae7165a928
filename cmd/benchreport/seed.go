package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/cmd/internal/benchkit"
	"tracker/domain/capex"
)

// world is the seeded org and a token of its Owner.
type world struct {
	token string
	orgID uuid.UUID
	tag   string // a tag filter that matches about half the projects
	// ticketTag matches 5% of the tickets (and through them about 5% of
	// the month's entries) and a few single entries: the part of a tag
	// filter the rollup cannot answer.
	ticketTag string
}

func prepare(ctx context.Context, c config) (world, error) {
	var w world
	email := fmt.Sprintf("benchreport-%s@example.test", uuid.NewString()[:8])
	var auth struct {
		AccessToken string    `json:"access_token"`
		UserID      uuid.UUID `json:"user_id"`
	}
	if err := benchkit.Call(ctx, c.URL, "POST", "/api/v1/auth/register", "", map[string]any{
		"email": email, "password": "benchmark-password", "display_name": "Bench Owner"}, &auth); err != nil {
		return w, fmt.Errorf("register (is the API at %s?): %w", c.URL, err)
	}
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	if err := benchkit.Call(ctx, c.URL, "GET", "/api/v1/auth/me", auth.AccessToken, nil, &me); err != nil {
		return w, err
	}
	w.token, w.orgID, w.tag, w.ticketTag = auth.AccessToken, me.OrgID, "stream:core", "epic:payments"
	pool, err := pgxpool.New(ctx, c.DB)
	if err != nil {
		return w, err
	}
	defer pool.Close()
	if c.Reuse != "" {
		// The org a -keep run seeded (its bench projects are keyed B1…);
		// the new user joins it as an Owner and every request names it.
		if err := pool.QueryRow(ctx, `SELECT org_id FROM projects WHERE key = 'B1' AND name = 'Bench project 1'
		    ORDER BY created_at DESC LIMIT 1`).Scan(&w.orgID); err != nil {
			return w, fmt.Errorf("find the seeded org: %w", err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner')`,
			w.orgID, auth.UserID); err != nil {
			return w, err
		}
		fmt.Printf("reusing the seeded org %s\n\n", w.orgID)
		return w, nil
	}
	start := time.Now()
	if err := seed(ctx, pool, c, w.orgID); err != nil {
		return w, fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("seeded in %s (org %s)\n\n", time.Since(start).Round(time.Millisecond), w.orgID)
	return w, nil
}

// seed writes users, teams, projects, tickets, rates and entries in one
// transaction with set-based SQL, then ANALYZEs and VACUUMs so the planner
// sees the data as a settled production table would be.
func seed(ctx context.Context, pool *pgxpool.Pool, c config, orgID uuid.UUID) error {
	period, err := capex.ParsePeriod("period", c.Period)
	if err != nil {
		return err
	}
	days := int(period.End().Sub(period.Start()).Hours() / 24)
	mid := period.Start().AddDate(0, 0, days/2)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	stmts := []struct {
		sql  string
		args []any
	}{
		{`CREATE TEMP TABLE b_users ON COMMIT DROP AS
		  SELECT g AS n, gen_random_uuid() AS id FROM generate_series(1, $1) g`, []any{c.Users}},
		{`INSERT INTO users (id, email, display_name)
		  SELECT id, 'bench-' || id || '@example.test', 'Engineer ' || n FROM b_users`, nil},
		{`INSERT INTO memberships (org_id, user_id, role) SELECT $1, id, 'member' FROM b_users`, []any{orgID}},
		{`CREATE TEMP TABLE b_teams ON COMMIT DROP AS
		  SELECT g AS n, gen_random_uuid() AS id FROM generate_series(1, 10) g`, nil},
		{`INSERT INTO teams (id, org_id, name) SELECT id, $1, 'Team ' || n FROM b_teams`, []any{orgID}},
		{`CREATE TEMP TABLE b_projects ON COMMIT DROP AS
		  SELECT g AS n, gen_random_uuid() AS id FROM generate_series(1, $1) g`, []any{c.Projects}},
		{`INSERT INTO projects (id, org_id, team_id, key, name, development_phase, cost_center_id, budget_cents, budget_period)
		  SELECT p.id, $1, t.id, 'B' || p.n, 'Bench project ' || p.n,
		         (ARRAY['Preliminary', 'ApplicationDevelopment', 'ApplicationDevelopment', 'PostImplementation'])[1 + p.n % 4],
		         'CC-' || (p.n % 7), 1000000 + p.n * 1000,
		         (ARRAY['Monthly', 'Quarterly', 'Yearly', 'Fixed'])[1 + p.n % 4]
		  FROM b_projects p JOIN b_teams t ON t.n = 1 + p.n % 10`, []any{orgID}},
		{`INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		  SELECT gen_random_uuid(), $1, 'project', id, 'stream', CASE WHEN n % 2 = 0 THEN 'core' ELSE 'edge' END FROM b_projects`, []any{orgID}},
		{`CREATE TEMP TABLE b_tickets ON COMMIT DROP AS
		  SELECT row_number() OVER () AS n, gen_random_uuid() AS id, p.id AS project_id, k AS number
		  FROM b_projects p, generate_series(1, 10) k`, nil},
		{`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id)
		  SELECT t.id, $1, t.project_id, t.number, 'Bench ticket', 'Backlog', (SELECT id FROM b_users WHERE n = 1)
		  FROM b_tickets t`, []any{orgID}},
		{`INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		  SELECT gen_random_uuid(), $1, 'ticket', id, 'epic', 'payments' FROM b_tickets WHERE n % 20 = 0`, []any{orgID}},
		{`UPDATE projects SET ticket_counter = 10 WHERE id IN (SELECT id FROM b_projects)`, nil},
		// Two rates per user: one before the month, one from its middle.
		{`INSERT INTO labor_rates (id, org_id, user_id, loaded_rate_cents, effective_date)
		  SELECT gen_random_uuid(), $1::uuid, id, 8000 + n * 100, $2::date - 60 FROM b_users
		  UNION ALL
		  SELECT gen_random_uuid(), $1::uuid, id, 9000 + n * 100, $3::date FROM b_users`, []any{orgID, period.Start(), mid}},
		// The month's approved entries: user, ticket, day, activity type and
		// minutes drawn independently (random() after setseed, so every run
		// seeds the same data), as real time sheets spread.
		{`SELECT setseed(0.42)`, nil},
		{`INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date, duration_minutes, activity_type,
		                           status, approved_by, approved_at)
		  SELECT gen_random_uuid(), $1, u.id, t.id, t.project_id, $2::date + d, m,
		         (ARRAY['Coding', 'CodeReview', 'BugFixing', 'Testing', 'Documentation', 'Design', 'Meeting', 'Planning'])[1 + a],
		         'Approved', u.id, now()
		  FROM (SELECT 1 + floor(random() * $5)::int AS un, 1 + floor(random() * $6 * 10)::int AS tn,
		               floor(random() * $4)::int AS d, floor(random() * 8)::int AS a, 5 + floor(random() * 476)::int AS m
		        FROM generate_series(1, $3)) g
		  JOIN b_users u ON u.n = g.un
		  JOIN b_tickets t ON t.n = g.tn`,
			[]any{orgID, period.Start(), c.Entries, days, c.Users, c.Projects}},
		{`INSERT INTO entity_tags (id, org_id, entity_type, entity_id, key, value)
		  SELECT gen_random_uuid(), $1, 'time_entry', id, 'epic', 'payments'
		  FROM time_entries WHERE org_id = $1 ORDER BY id LIMIT 100`, []any{orgID}},
		// Noise the report must skip: the month before, and unapproved time.
		{`INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date, duration_minutes, activity_type, status)
		  SELECT gen_random_uuid(), $1, u.id, t.id, t.project_id, $2::date - 1 - (g % 28), 30, 'Coding',
		         CASE WHEN g % 3 = 0 THEN 'Draft' ELSE 'Submitted' END
		  FROM generate_series(1, $3 / 5) g
		  JOIN b_users u ON u.n = 1 + g % $4
		  JOIN b_tickets t ON t.n = 1 + (g * 13) % ($5 * 10)`,
			[]any{orgID, period.Start(), c.Entries, c.Users, c.Projects}},
		{`INSERT INTO time_entries (id, org_id, user_id, ticket_id, project_id, date, duration_minutes, activity_type,
		                           status, approved_by, approved_at)
		  SELECT gen_random_uuid(), $1, u.id, t.id, t.project_id, $2::date - 1 - (g % 28), 45, 'Testing', 'Approved', u.id, now()
		  FROM generate_series(1, $3 / 5) g
		  JOIN b_users u ON u.n = 1 + g % $4
		  JOIN b_tickets t ON t.n = 1 + (g * 17) % ($5 * 10)`,
			[]any{orgID, period.Start(), c.Entries, c.Users, c.Projects}},
	}
	for i, s := range stmts {
		if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("statement %d: %w", i+1, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	for _, t := range []string{"time_entries", "capex_rollup", "labor_rates", "projects", "tickets", "entity_tags", "users", "teams"} {
		if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
			return err
		}
	}
	return nil
}
