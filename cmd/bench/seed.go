package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// world is what the runs work on.
type world struct {
	token    string
	userID   uuid.UUID
	orgID    uuid.UUID
	projects []uuid.UUID
	tickets  []uuid.UUID
	pool     *pgxpool.Pool
}

// prepare registers a user and creates an org through the API, then seeds
// the projects and tickets of that org straight into PostgreSQL.
func prepare(ctx context.Context, c *client, cfg config) (*world, error) {
	w := &world{}
	tag := uuid.NewString()[:8]
	var auth struct {
		AccessToken string    `json:"access_token"`
		UserID      uuid.UUID `json:"user_id"`
	}
	if err := c.call(ctx, "POST", "/api/v1/auth/register", "", map[string]any{
		"email": "bench-" + tag + "@example.test", "password": "bench-password-1", "display_name": "Bench " + tag,
	}, 201, &auth); err != nil {
		return nil, fmt.Errorf("register (is the API up at %s?): %w", cfg.URL, err)
	}
	w.token, w.userID = auth.AccessToken, auth.UserID
	var org struct {
		ID uuid.UUID `json:"id"`
	}
	if err := c.call(ctx, "POST", "/api/v1/orgs", w.token, map[string]any{"name": "Bench " + tag, "slug": "bench-" + tag}, 201, &org); err != nil {
		return nil, fmt.Errorf("create org: %w", err)
	}
	w.orgID = org.ID
	pool, err := pgxpool.New(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	w.pool = pool
	if err := seed(ctx, w, cfg.Projects, cfg.Tickets); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	// The API must see the seeded data: read one ticket back through it.
	if err := c.call(ctx, "GET", "/api/v1/tickets/"+w.tickets[0].String(), w.token, nil, 200, nil); err != nil {
		return nil, fmt.Errorf("the API does not serve the seeded database (BENCH_DATABASE_URL?): %w", err)
	}
	return w, nil
}

// seed inserts the projects (ticket_counter set to their ticket count, as if
// numbered by the API) and COPYs the tickets, numbered 1..n per project, in
// one transaction.
func seed(ctx context.Context, w *world, projects, tickets int) error {
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	per := tickets / projects
	now := time.Now().UTC()
	prows := make([][]any, 0, projects)
	for i := range projects {
		id := uuid.Must(uuid.NewV7())
		w.projects = append(w.projects, id)
		prows = append(prows, []any{id, w.orgID, fmt.Sprintf("B%03d", i), fmt.Sprintf("Bench project %d", i), per, now, now})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"projects"},
		[]string{"id", "org_id", "key", "name", "ticket_counter", "created_at", "updated_at"}, pgx.CopyFromRows(prows)); err != nil {
		return fmt.Errorf("projects: %w", err)
	}
	statuses := []string{"Backlog", "Todo", "InProgress", "InReview", "Done"}
	priorities := []string{"None", "Low", "Medium", "High", "Critical"}
	w.tickets = make([]uuid.UUID, 0, per*projects)
	n := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if n == per*projects {
			return nil, nil
		}
		p, num := n%projects, n/projects+1 // interleaved: ids of one project spread over time, as in real use
		n++
		id := uuid.Must(uuid.NewV7())
		w.tickets = append(w.tickets, id)
		return []any{id, w.orgID, w.projects[p], int32(num), fmt.Sprintf("Seeded ticket %d of B%03d", num, p),
			statuses[n%len(statuses)], priorities[n%len(priorities)], w.userID, now, now}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tickets"}, []string{"id", "org_id", "project_id", "ticket_number",
		"title", "status", "priority", "reporter_id", "created_at", "updated_at"}, src); err != nil {
		return fmt.Errorf("tickets: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	_, err = w.pool.Exec(ctx, "ANALYZE projects; ANALYZE tickets")
	return err
}

// verify checks what the benchmark relies on: every project's counter equals
// its ticket count and its numbers are exactly 1..counter (gap-free, unique).
func verify(ctx context.Context, w *world) error {
	defer w.pool.Close()
	var bad int
	err := w.pool.QueryRow(ctx, `
		SELECT count(*) FROM (
			SELECT p.id FROM projects p LEFT JOIN tickets t ON t.project_id = p.id
			WHERE p.org_id = $1
			GROUP BY p.id, p.ticket_counter
			HAVING p.ticket_counter <> count(t.id) OR p.ticket_counter <> coalesce(max(t.ticket_number), 0)
		) x`, w.orgID).Scan(&bad)
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d projects have ticket numbers that are not 1..ticket_counter", bad)
	}
	fmt.Println("\nticket numbers: every project numbered 1..ticket_counter without gaps or duplicates")
	return nil
}
