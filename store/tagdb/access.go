package tagdb

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"tracker/store"
)

// TimeEntries reports whether the time_entries table exists (it arrives with
// a later migration) and whether it soft-deletes (has deleted_at), so that
// queries name it only when they can.
func TimeEntries(ctx context.Context, q store.Querier) (exists, soft bool, err error) {
	err = q.QueryRow(ctx, `SELECT to_regclass('time_entries') IS NOT NULL,
		EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('time_entries')
		        AND attname = 'deleted_at' AND NOT attisdropped)`).Scan(&exists, &soft)
	return exists, soft, store.Translate(err)
}

// EntityAccess finds a live entity of org and the caller's standing toward
// it: project-scoped entities (project, ticket, time_entry) carry their
// project, so that Reporter assignment and API key project limits apply.
// An entity that does not exist in org is store.ErrNotFound.
func EntityAccess(ctx context.Context, q store.Querier, e Entity, userID uuid.UUID) (store.AccessRow, error) {
	var from string
	var access []string
	switch e.Type {
	case "project":
		access = store.AccessColumns("p.org_id", "p.id", "$1")
		from = `projects p WHERE p.id = $3 AND p.org_id = $2 AND p.deleted_at IS NULL`
	case "ticket":
		access = store.AccessColumns("t.org_id", "t.project_id", "$1")
		from = `tickets t JOIN projects p ON p.id = t.project_id
			WHERE t.id = $3 AND t.org_id = $2 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	case "user":
		// Not "m": AccessColumns' own subquery names memberships m.
		access = store.AccessColumns("um.org_id", "", "$1")
		from = `memberships um WHERE um.user_id = $3 AND um.org_id = $2`
	case "team":
		access = store.AccessColumns("tm.org_id", "", "$1")
		from = `teams tm WHERE tm.id = $3 AND tm.org_id = $2`
	case "time_entry":
		exists, soft, err := TimeEntries(ctx, q)
		if err != nil || !exists {
			return store.AccessRow{}, firstErr(err, store.ErrNotFound)
		}
		access = store.AccessColumns("p.org_id", "te.project_id", "$1")
		from = `time_entries te JOIN projects p ON p.id = te.project_id
			WHERE te.id = $3 AND p.org_id = $2 AND p.deleted_at IS NULL`
		if soft {
			from += ` AND te.deleted_at IS NULL`
		}
	default:
		return store.AccessRow{}, store.ErrNotFound
	}
	sql := `SELECT ` + strings.Join(access, ", ") + ` FROM ` + from
	return store.GetRaw[store.AccessRow](ctx, q, sql, userID, e.OrgID, e.ID)
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
