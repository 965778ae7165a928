package tagdb

import (
	"context"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Search asks for the tags of an org with one key and value that the caller
// may see.
type Search struct {
	OrgID uuid.UUID
	Key   string
	Value string
	// AssignedTo hides tags of project-scoped entities outside the projects
	// this user is assigned to (Reporters).
	AssignedTo *uuid.UUID
	// OnlyProjects hides tags of project-scoped entities outside these
	// projects (API keys restricted to projects); nil means no restriction.
	OnlyProjects []uuid.UUID
}

// SearchPage pages the matching tags by id. Tags whose entity is gone or
// hidden (deleted, or its project deleted) are left out.
func SearchPage(ctx context.Context, q store.Querier, s Search, p store.Page) (store.Paged[Row], error) {
	teExists, teSoft, err := TimeEntries(ctx, q)
	if err != nil {
		return store.Paged[Row]{}, err
	}
	pv, pvArgs := projectVisible(s)
	vis := sq.Or{
		sq.Expr(`et.entity_type = 'project' AND EXISTS (SELECT 1 FROM projects p
			WHERE p.id = et.entity_id AND p.org_id = et.org_id AND p.deleted_at IS NULL AND `+pv+`)`, pvArgs...),
		sq.Expr(`et.entity_type = 'ticket' AND EXISTS (SELECT 1 FROM tickets t JOIN projects p ON p.id = t.project_id
			WHERE t.id = et.entity_id AND t.org_id = et.org_id AND t.deleted_at IS NULL AND p.deleted_at IS NULL AND `+pv+`)`, pvArgs...),
	}
	// User and team tags are org-level: a key restricted to projects does not
	// see them (it gets 403 reading them directly, too).
	if s.OnlyProjects == nil {
		vis = append(vis,
			sq.Expr(`et.entity_type = 'user' AND EXISTS (SELECT 1 FROM memberships m
			WHERE m.org_id = et.org_id AND m.user_id = et.entity_id)`),
			sq.Expr(`et.entity_type = 'team' AND EXISTS (SELECT 1 FROM teams tm
			WHERE tm.org_id = et.org_id AND tm.id = et.entity_id)`))
	}
	if teExists {
		live := ""
		if teSoft {
			live = " AND te.deleted_at IS NULL"
		}
		vis = append(vis, sq.Expr(`et.entity_type = 'time_entry' AND EXISTS (SELECT 1 FROM time_entries te
			JOIN projects p ON p.id = te.project_id
			WHERE te.id = et.entity_id AND p.org_id = et.org_id AND p.deleted_at IS NULL`+live+` AND `+pv+`)`, pvArgs...))
	}
	b := store.SQL.Select(Columns("et")...).From("entity_tags et").
		Where(sq.Eq{"et.org_id": s.OrgID, "et.key": s.Key, "et.value": s.Value}).Where(vis)
	return store.SelectPage(ctx, q, b, "et.id", p, func(r Row) uuid.UUID { return r.ID })
}

// projectVisible is the condition on a project row p that the caller may
// see it.
func projectVisible(s Search) (string, []any) {
	conds := []string{"TRUE"}
	var args []any
	if s.AssignedTo != nil {
		conds = append(conds, "EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = p.id AND pm.user_id = ?)")
		args = append(args, *s.AssignedTo)
	}
	if s.OnlyProjects != nil {
		conds = append(conds, "p.id = ANY(?)")
		args = append(args, s.OnlyProjects)
	}
	return "(" + strings.Join(conds, " AND ") + ")", args
}
