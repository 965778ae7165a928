package ticketdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"tracker/store"
)

// Filter narrows a project's ticket list; zero values do not filter.
type Filter struct {
	Status     string
	Priority   string
	AssigneeID uuid.UUID
}

// ListPage reads one page of a live project's visible tickets (keyset by id,
// index tickets_project_idx) with the caller's access in each row: one round
// trip. The tickets are read only for a member of the project's org; the
// caller still authorizes the access row. An empty page (or a non-member)
// reads the access on its own. A project that is gone is store.ErrNotFound.
func ListPage(ctx context.Context, q store.Querier, projectID, userID uuid.UUID, f Filter, p store.Page) (store.AccessRow, store.Paged[Row], error) {
	sql, args := listPageSQL(projectID, userID, f, p)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return store.AccessRow{}, store.Paged[Row]{}, store.Translate(err)
	}
	var (
		acc accessScan
		rs  = newRowScan()
		out = store.Paged[Row]{Items: make([]Row, 0, p.Limit+1)}
	)
	targets := append(acc.targets(), rs.targets...)
	err = scanAll(rows, func() ([]any, func()) {
		rs.next()
		return targets, func() { out.Items = append(out.Items, rs.r) }
	})
	if err != nil {
		return store.AccessRow{}, store.Paged[Row]{}, err
	}
	if len(out.Items) == 0 {
		a, err := store.ProjectMembership(ctx, q, projectID, userID)
		return a, out, err
	}
	if len(out.Items) > p.Limit {
		out.Items = out.Items[:p.Limit]
		next := out.Items[p.Limit-1].ID
		out.Next = &next
	}
	return acc.access(), out, nil
}

// listPageSQL is ListPage's statement and its arguments.
func listPageSQL(projectID, userID uuid.UUID, f Filter, p store.Page) (string, []any) {
	args := []any{projectID, userID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	where := []string{"t.project_id = $1", "t.deleted_at IS NULL", "a.access_role <> ''"}
	// Status and priority are compared as the project's indexes hold them
	// (tickets_project_status_idx on lower(status), tickets_project_priority_idx
	// on PriorityRank), each with the exact comparison as well: without an
	// index condition a value no ticket has would read the whole project.
	if f.Status != "" {
		v := arg(f.Status)
		where = append(where, "lower(t.status) = lower("+v+")", "t.status = "+v)
	}
	if f.Priority != "" {
		where = append(where, PriorityRank+" = "+arg(PriorityRankOf(f.Priority)), "t.priority = "+arg(f.Priority))
	}
	if f.AssigneeID != uuid.Nil {
		where = append(where, "t.assignee_id = "+arg(f.AssigneeID))
	}
	if p.After != uuid.Nil {
		where = append(where, "t.id > "+arg(p.After))
	}
	// The limit is written into the SQL, not bound: with LIMIT $n PostgreSQL
	// estimates a generic plan as costlier and re-plans every execution
	// (planning cost more than running the query).
	limit := strconv.Itoa(p.Limit + 1)
	sql := `WITH a AS MATERIALIZED (
	            SELECT ` + store.Cols(store.AccessColumns("p.org_id", "p.id", "$2")) + `
	            FROM projects p WHERE p.id = $1 AND p.deleted_at IS NULL)
	        SELECT a.*, t.* FROM a CROSS JOIN LATERAL (
	            SELECT ` + prefixed("t") + ` FROM tickets t
	            WHERE ` + strings.Join(where, " AND ") + `
	            ORDER BY t.id LIMIT ` + limit + `) t
	        ORDER BY t.id`
	return sql, args
}

// Keyed is a visible ticket with the caller's access and its project's key.
type Keyed struct {
	Row
	store.AccessRow
	ProjectKey string `db:"project_key"`
}

func keyedSQL(from, where string) string {
	return `SELECT ` + prefixed("t") + `, ` + accessCols("$2") + `, p.key AS project_key
	        FROM ` + from + ` WHERE ` + where + ` AND ` + visible
}

// KeyedByID reads a visible ticket by id.
func KeyedByID(ctx context.Context, q store.Querier, id, userID uuid.UUID) (Keyed, error) {
	return store.GetRaw[Keyed](ctx, q, keyedSQL("tickets t JOIN projects p ON p.id = t.project_id", "t.id = $1"), id, userID)
}

// KeyedByNumber reads a visible ticket by its number in a project (unique
// index tickets_project_number_key).
func KeyedByNumber(ctx context.Context, q store.Querier, projectID, userID uuid.UUID, number int64) (Keyed, error) {
	return store.GetRaw[Keyed](ctx, q, keyedSQL("tickets t JOIN projects p ON p.id = t.project_id",
		"t.project_id = $1 AND t.ticket_number = $3"), projectID, userID, number)
}

// KeyedByKey reads a visible ticket by project key (any case) and number in
// an org (index projects_org_key_key, then tickets_project_number_key).
func KeyedByKey(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, key string, number int64) (Keyed, error) {
	return store.GetRaw[Keyed](ctx, q, keyedSQL("projects p JOIN tickets t ON t.project_id = p.id",
		"p.org_id = $1 AND upper(p.key) = upper($3) AND t.ticket_number = $4"), orgID, userID, key, number)
}

// KeyedByExternal reads a visible ticket of an org by the key it had in
// the tracker it was imported from (any case; the newest when several
// projects imported it).
func KeyedByExternal(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, ref string) (Keyed, error) {
	return store.GetRaw[Keyed](ctx, q, keyedSQL("tickets t JOIN projects p ON p.id = t.project_id",
		"t.org_id = $1 AND upper(t.external_key) = upper($3)")+` ORDER BY t.created_at DESC LIMIT 1`, orgID, userID, ref)
}

// KeyedByIDs reads the visible tickets of ids (live, in a live project), in
// the order of ids; an id not found is left out.
func KeyedByIDs(ctx context.Context, q store.Querier, ids []uuid.UUID, userID uuid.UUID) ([]Keyed, error) {
	if len(ids) == 0 {
		return []Keyed{}, nil
	}
	ks, err := store.SelectRaw[Keyed](ctx, q, keyedSQL("tickets t JOIN projects p ON p.id = t.project_id",
		"t.id = ANY($1)")+` ORDER BY array_position($1, t.id)`, ids, userID)
	if err != nil {
		return nil, err
	}
	return ks, nil
}

// PriorityRank is the SQL rank of t.priority (None 0 … Critical 4): the
// expression of the priority indexes (tickets_project_priority_idx,
// tickets_org_priority_idx, migration 018), which a comparison must spell
// exactly so to use them.
const PriorityRank = `(CASE t.priority WHEN 'None' THEN 0 WHEN 'Low' THEN 1 WHEN 'Medium' THEN 2 WHEN 'High' THEN 3 ELSE 4 END)`

// Priorities are the priorities tickets store, in the rising order of
// PriorityRank (and of the tickets_priority_check constraint's values).
var Priorities = []string{"None", "Low", "Medium", "High", "Critical"}

// PriorityRankOf is PriorityRank's value for a priority as stored.
func PriorityRankOf(priority string) int {
	return slices.Index(Priorities, priority)
}
