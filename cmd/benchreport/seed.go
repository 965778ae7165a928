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
		fmt.Printf("reusing the seeded org %s\n", w.orgID)
	} else {
		start := time.Now()
		if err := seed(ctx, pool, c, w.orgID); err != nil {
			return w, fmt.Errorf("seed: %w", err)
		}
		fmt.Printf("seeded in %s (org %s)\n", time.Since(start).Round(time.Millisecond), w.orgID)
	}
	if c.Policy {
		if err := adoptPolicy(ctx, c, w); err != nil {
			return w, fmt.Errorf("policy: %w", err)
		}
		fmt.Printf("policy in force: %s with %d rules\n", capex.FrameworkASU202506, len(benchRules()))
	}
	fmt.Println()
	return w, nil
}

// benchRules are the policy's 20 rules, as a finance team writes them:
// maintenance and support expensed, epics and product work capitalized,
// labels, epics (parent:) and priorities combined; most tickets are tested
// against many rules before one decides.
func benchRules() []map[string]string {
	matches := []struct{ match, class string }{
		{"label:bug OR label:support", "opex"},
		{"label:docs AND priority:low", "opex"},
	}
	for k := 1; k <= 12; k++ {
		if k%3 == 0 {
			matches = append(matches, struct{ match, class string }{fmt.Sprintf("label:feature AND parent:B%d-1", 7*k), "capex"})
			continue
		}
		matches = append(matches, struct{ match, class string }{fmt.Sprintf("parent:B%d-1", 7*k), "capex"})
	}
	matches = append(matches, []struct{ match, class string }{
		{"label:research", "opex"},
		{"label:platform OR label:infra", "capex"},
		{"label:feature AND priority:high", "capex"},
		{"priority:critical AND label:security", "opex"},
		{"label:ux OR label:perf", "capex"},
		{"label:security", "opex"},
	}...)
	out := make([]map[string]string, 0, len(matches))
	for i, m := range matches {
		out = append(out, map[string]string{"id": fmt.Sprintf("r%02d", i+1), "match": m.match,
			"classification": m.class, "reason": "bench rule " + fmt.Sprint(i+1)})
	}
	return out
}

// adoptPolicy puts an ASU 2025-06 policy with benchRules in force from the
// measured month (a new version when a -reuse run finds one).
func adoptPolicy(ctx context.Context, c config, w world) error {
	// A close a timed-out run left in force is lifted first (an error
	// here is the usual answer: the month is open).
	_, _, _ = benchkit.Send(ctx, c.URL, "POST", "/api/v1/orgs/"+w.orgID.String()+"/periods/"+c.Period+"/reopen", w.token,
		map[string]string{"reason": "benchmark"})
	return benchkit.Call(ctx, c.URL, "POST", "/api/v1/orgs/"+w.orgID.String()+"/capitalization/policies", w.token,
		map[string]any{"framework": capex.FrameworkASU202506, "effective_from": c.Period, "rules": benchRules()}, nil)
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
		// What the policy's framework (ASU 2025-06) and rules read: five
		// projects start capitalizing on the month's 11th (their month is
		// read by date), about a third are not capitalized (uncertainty
		// unresolved) and the rest are all month; one label per ticket,
		// weighted as a tracker's are (bug 15%, support 5%, feature 20%,
		// platform 25%, …); priorities; each project's ticket 1 is the
		// epic of its other nine; 20 overrides.
		{`UPDATE projects p SET funding_authorized_on = $1::date - 30, completion_probable = true,
		         significant_uncertainty_resolved_on = CASE WHEN b.n % 20 = 0 THEN $1::date + 10
		                                                    WHEN b.n % 3 = 2 THEN NULL ELSE $1::date - 5 END
		  FROM b_projects b WHERE p.id = b.id`, []any{period.Start()}},
		{`CREATE TEMP TABLE b_labels ON COMMIT DROP AS
		  SELECT gen_random_uuid() AS id, name
		  FROM unnest(ARRAY['bug', 'support', 'feature', 'infra', 'security', 'ux', 'perf', 'docs', 'research', 'platform']) name`, nil},
		{`INSERT INTO labels (id, org_id, name, color) SELECT id, $1, name, '#888888' FROM b_labels`, []any{orgID}},
		{`INSERT INTO ticket_labels (org_id, ticket_id, label_id)
		  SELECT $1::uuid, t.id, l.id FROM b_tickets t JOIN b_labels l ON l.name = (ARRAY['bug', 'bug', 'bug', 'support',
		      'feature', 'feature', 'feature', 'feature', 'infra', 'infra', 'security', 'ux', 'perf', 'docs', 'research',
		      'platform', 'platform', 'platform', 'platform', 'platform'])[1 + (t.n * 7) % 20]`, []any{orgID}},
		{`UPDATE tickets x SET priority = (ARRAY['None', 'Low', 'Medium', 'High', 'Critical'])[1 + t.n % 5],
		         parent_id = CASE WHEN t.number > 1 THEN (SELECT e.id FROM b_tickets e WHERE e.project_id = t.project_id AND e.number = 1) END
		  FROM b_tickets t WHERE x.id = t.id`, nil},
		{`INSERT INTO ticket_capitalization_overrides (ticket_id, org_id, classification, reason, set_at)
		  SELECT id, $1, CASE WHEN n % 100 = 7 THEN 'capex' ELSE 'opex' END, 'bench override', now()
		  FROM b_tickets WHERE n % 50 = 7`, []any{orgID}},
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
	for _, t := range []string{"time_entries", "capex_rollup", "capex_ticket_rollup", "labor_rates", "projects", "tickets", "entity_tags", "users", "teams",
		"ticket_labels", "labels", "ticket_capitalization_overrides"} {
		if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
			return err
		}
	}
	return nil
}
