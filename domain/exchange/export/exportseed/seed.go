// Package exportseed fills an organization with every kind of data the
// export covers, directly in PostgreSQL (COPY for the bulk), for export and
// import tests and for the export benchmark.
package exportseed

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/domain"
	"tracker/store"
)

// Options size the seeded data.
type Options struct {
	Projects          int
	TicketsPerProject int
	CommentsPerTicket int // every second comment answers the one before it
	EntriesPerTicket  int // time entries: Draft, Submitted and Approved in turn
	Suffix            string
}

// Seeded is what Seed created, for assertions.
type Seeded struct {
	Users       []uuid.UUID // extra members: admin, member, viewer; then a former member (not a member any more)
	Emails      []string
	ProjectKeys []string
	Tickets     int // live tickets
	Comments    int
	Entries     int
	Links       int // links between live tickets (one more joins a deleted ticket)
	Parents     int // tickets with a live parent
}

// Seed fills org (owned by ownerID) with users, a custom workflow, labels
// (one deleted), projects with members, sprints (two with the same name),
// tickets with labels, comments and time entries, plus one soft-deleted
// ticket that the export must leave out.
func Seed(ctx context.Context, db *store.DB, orgID, ownerID uuid.UUID, o Options) (Seeded, error) {
	if o.Suffix == "" {
		o.Suffix = uuid.NewString()[:8]
	}
	var s Seeded
	err := db.InTx(ctx, func(q store.Querier) error {
		return seed(ctx, q, orgID, ownerID, o, &s)
	})
	return s, err
}

func exec(ctx context.Context, q store.Querier, sql string, args ...any) error {
	_, err := q.Exec(ctx, sql, args...)
	return store.Translate(err)
}

func seed(ctx context.Context, q store.Querier, orgID, ownerID uuid.UUID, o Options, s *Seeded) error {
	base := time.Date(2024, 3, 1, 9, 0, 0, 123456000, time.UTC)
	for i, role := range []string{"admin", "member", "viewer", ""} {
		id := domain.NewID()
		email := fmt.Sprintf("seed%d-%s@example.test", i, o.Suffix)
		if err := exec(ctx, q, `INSERT INTO users (id, email, display_name, password_hash, active) VALUES ($1, $2, $3, NULL, true)`,
			id, email, fmt.Sprintf("Seed User %d", i)); err != nil {
			return err
		}
		if role != "" {
			if err := exec(ctx, q, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)`, orgID, id, role); err != nil {
				return err
			}
		}
		s.Users, s.Emails = append(s.Users, id), append(s.Emails, email)
	}
	people := append([]uuid.UUID{ownerID}, s.Users...)
	statuses, _ := json.Marshal([]map[string]string{{"name": "Open", "category": "todo"}, {"name": "Doing", "category": "in_progress"}, {"name": "Closed", "category": "done"}})
	transitions, _ := json.Marshal([]map[string]string{{"from": "Open", "to": "Doing"}, {"from": "Doing", "to": "Closed"}})
	wfID := domain.NewID()
	if err := exec(ctx, q, `INSERT INTO workflows (id, org_id, name, statuses, transitions, enforcement) VALUES ($1, $2, 'Kanban', $3, $4, 'warn')`,
		wfID, orgID, string(statuses), string(transitions)); err != nil {
		return err
	}
	labels := []uuid.UUID{domain.NewID(), domain.NewID(), domain.NewID()}
	for i, name := range []string{"bug", "Feature", "gone"} {
		if err := exec(ctx, q, `INSERT INTO labels (id, org_id, name, color) VALUES ($1, $2, $3, '#a1b2c3')`, labels[i], orgID, name); err != nil {
			return err
		}
	}
	if err := exec(ctx, q, `UPDATE labels SET deleted_at = now() WHERE id = $1`, labels[2]); err != nil {
		return err
	}
	// A team with two members; the first project belongs to it.
	teamID := domain.NewID()
	if err := exec(ctx, q, `INSERT INTO teams (id, org_id, name) VALUES ($1, $2, 'Platform')`, teamID, orgID); err != nil {
		return err
	}
	if err := exec(ctx, q, `INSERT INTO team_members (org_id, team_id, user_id) VALUES ($1, $2, $3), ($1, $2, $4)`,
		orgID, teamID, s.Users[0], s.Users[1]); err != nil {
		return err
	}
	for p := 0; p < o.Projects; p++ {
		if err := seedProject(ctx, q, orgID, p, o, base, people, wfID, labels, s); err != nil {
			return err
		}
	}
	if err := exec(ctx, q, `UPDATE projects SET team_id = $2 WHERE org_id = $1 AND key = 'P0'`, orgID, teamID); err != nil {
		return err
	}
	if o.Projects >= 2 && o.TicketsPerProject >= 3 {
		if err := seedRelations(ctx, q, orgID, o.TicketsPerProject, s); err != nil {
			return err
		}
	}
	// The former member leaves after having worked: referenced, not a member.
	return exec(ctx, q, `DELETE FROM memberships WHERE org_id = $1 AND user_id = $2`, orgID, s.Users[3])
}

func seedProject(ctx context.Context, q store.Querier, orgID uuid.UUID, p int, o Options, base time.Time,
	people []uuid.UUID, wfID uuid.UUID, labels []uuid.UUID, s *Seeded) error {
	pid := domain.NewID()
	key := fmt.Sprintf("P%d", p)
	var wf *uuid.UUID
	status := []string{"Backlog", "Todo", "Done"}
	if p%2 == 1 {
		wf, status = &wfID, []string{"Open", "Doing", "Closed"}
	}
	n := o.TicketsPerProject
	if err := exec(ctx, q, `INSERT INTO projects (id, org_id, workflow_id, key, name, description, ticket_counter,
	        capitalization_type, budget_cents, budget_period, created_at, updated_at, amortization_months, placed_in_service)
	    VALUES ($1, $2, $3, $4, $5, $6, $7, 'Capex', $8, 'Monthly', $9, $9, $10, $11)`,
		pid, orgID, wf, key, "Project "+key, "About "+key, n+1, int64(100000*(p+1)), base, inService(p).months, inService(p).date); err != nil {
		return err
	}
	s.ProjectKeys = append(s.ProjectKeys, key)
	if err := exec(ctx, q, `INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, $2, $3), ($1, $2, $4)`,
		orgID, pid, people[1], people[2]); err != nil {
		return err
	}
	sprints := []uuid.UUID{domain.NewID(), domain.NewID(), domain.NewID()}
	for i, name := range []string{"Sprint 1", "Sprint 1", "Sprint 2"} {
		if err := exec(ctx, q, `INSERT INTO sprints (id, org_id, project_id, name, goal, start_date, end_date, status)
		    VALUES ($1, $2, $3, $4, $5, $6::date, $7::date, $8)`, sprints[i], orgID, pid, name,
			"goal", base.AddDate(0, 0, 14*i).Format("2006-01-02"), base.AddDate(0, 0, 14*i+13).Format("2006-01-02"),
			[]string{"Completed", "Active", "Planned"}[i]); err != nil {
			return err
		}
	}
	return seedTickets(ctx, q, orgID, pid, n, o, base, people, sprints, status, labels, s)
}

func seedTickets(ctx context.Context, q store.Querier, orgID, pid uuid.UUID, n int, o Options, base time.Time,
	people, sprints []uuid.UUID, status []string, labels []uuid.UUID, s *Seeded) error {
	var tickets, links, comments, entries [][]any
	for t := 1; t <= n+1; t++ {
		id := domain.NewID()
		at := base.Add(time.Duration(t) * time.Minute)
		var assignee, sprint any
		if t%3 != 0 {
			assignee = people[t%len(people)]
		}
		if t%4 != 0 {
			sprint = sprints[t%3]
		}
		var deleted any
		if t == n+1 { // the last ticket is soft-deleted: never exported
			deleted = at
		}
		var desc any = fmt.Sprintf("Description of ticket %d\nwith \"quotes\" and ünïcode", t)
		if t%5 == 0 {
			desc = nil
		}
		tickets = append(tickets, []any{id, orgID, pid, t, fmt.Sprintf("Ticket %d", t), desc, status[t%len(status)],
			[]string{"None", "Low", "High"}[t%3], assignee, people[(t+1)%len(people)], sprint, at, at.Add(time.Hour), deleted})
		if deleted != nil {
			continue
		}
		s.Tickets++
		for l := 0; l < 3 && l <= t%3; l++ { // the deleted label too: left out of the export
			links = append(links, []any{orgID, id, labels[l]})
		}
		var prev uuid.UUID
		for c := 0; c < o.CommentsPerTicket; c++ {
			cid := domain.NewID()
			var parent any
			if c%2 == 1 {
				parent = prev
			}
			comments = append(comments, []any{cid, orgID, id, people[(t+c)%len(people)], fmt.Sprintf("Comment %d on %d", c, t),
				parent, at.Add(time.Duration(c+1) * time.Second), at.Add(time.Duration(c+1) * time.Second)})
			prev = cid
			s.Comments++
		}
		for e := 0; e < o.EntriesPerTicket; e++ {
			st := []string{"Draft", "Submitted", "Approved"}[(t+e)%3]
			var by, byAt any
			if st == "Approved" {
				by, byAt = people[0], at.Add(48*time.Hour)
			}
			entries = append(entries, []any{domain.NewID(), orgID, people[(t+e)%len(people)], id, pid,
				base.AddDate(0, 0, t%28), 30 + e, "work", "Coding", st, by, byAt, at, at})
			s.Entries++
		}
	}
	c, ok := q.(interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	})
	if !ok {
		return fmt.Errorf("seed needs a transaction that supports COPY")
	}
	copies := []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"tickets", []string{"id", "org_id", "project_id", "ticket_number", "title", "description", "status", "priority",
			"assignee_id", "reporter_id", "sprint_id", "created_at", "updated_at", "deleted_at"}, tickets},
		{"ticket_labels", []string{"org_id", "ticket_id", "label_id"}, links},
		{"comments", []string{"id", "org_id", "ticket_id", "author_id", "body", "parent_comment_id", "created_at", "updated_at"}, comments},
		{"time_entries", []string{"id", "org_id", "user_id", "ticket_id", "project_id", "date", "duration_minutes",
			"description", "activity_type", "status", "approved_by", "approved_at", "created_at", "updated_at"}, entries},
	}
	for _, cp := range copies {
		if _, err := c.CopyFrom(ctx, pgx.Identifier{cp.table}, cp.cols, pgx.CopyFromRows(cp.rows)); err != nil {
			return fmt.Errorf("copy %s: %w", cp.table, store.Translate(err))
		}
	}
	return nil
}

// inService gives the first project an amortization period and a
// placed_in_service date (the others none), so exports carry both states.
func inService(p int) struct {
	months *int64
	date   *string
} {
	if p != 0 {
		return struct {
			months *int64
			date   *string
		}{}
	}
	m, d := int64(36), "2026-02-20"
	return struct {
		months *int64
		date   *string
	}{&m, &d}
}

// seedRelations links tickets within and across the first two projects
// (P0-1 blocks P1-2, P1-3 relates to P0-2, P0-3 duplicates P0-1), gives
// P0-2 the parent P0-1 and P0-3 the parent P1-1 (another project), and
// links P0-1 to the soft-deleted last ticket of P0 (never exported).
func seedRelations(ctx context.Context, q store.Querier, orgID uuid.UUID, n int, s *Seeded) error {
	const id = `(SELECT t.id FROM tickets t JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND p.key = $%d AND t.ticket_number = $%d)`
	link := fmt.Sprintf(`INSERT INTO ticket_links (id, org_id, source_id, target_id, type) VALUES ($6, $1, `+id+`, `+id+`, $7)`, 2, 3, 4, 5)
	for _, l := range []struct {
		from    string
		fromN   int
		to      string
		toN     int
		typ     string
		counted bool
	}{{"P0", 1, "P1", 2, "blocks", true}, {"P1", 3, "P0", 2, "relates_to", true}, {"P0", 3, "P0", 1, "duplicates", true},
		{"P0", 1, "P0", n + 1, "relates_to", false}} {
		if err := exec(ctx, q, link, orgID, l.from, l.fromN, l.to, l.toN, domain.NewID(), l.typ); err != nil {
			return fmt.Errorf("seed link: %w", err)
		}
		if l.counted {
			s.Links++
		}
	}
	parent := fmt.Sprintf(`UPDATE tickets SET parent_id = `+id+` WHERE id = `+id, 4, 5, 2, 3)
	for _, p := range [][4]any{{"P0", 2, "P0", 1}, {"P0", 3, "P1", 1}} {
		if err := exec(ctx, q, parent, orgID, p[0], p[1], p[2], p[3]); err != nil {
			return fmt.Errorf("seed parent: %w", err)
		}
		s.Parents++
	}
	return nil
}
