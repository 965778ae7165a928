package searchdb

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Search is one page of a query over the tickets a caller may see.
type Search struct {
	Env
	// ProjectID narrows to one (live, authorized) project; nil: the org.
	ProjectID *uuid.UUID
	// AssignedTo hides projects this user is not assigned to (Reporters).
	AssignedTo *uuid.UUID
	// OnlyProjects hides other projects (API keys restricted to projects);
	// nil means no restriction.
	OnlyProjects []uuid.UUID
	Root         searchquery.Node // nil: every visible ticket
	Sort         searchquery.Sort
	// RankText is the websearch text of sort relevance (searchquery.RankText).
	RankText string
	// AssigneeID narrows to one assignee (the list's assignee_id).
	AssigneeID uuid.UUID
	// ParentID narrows to the children of a ticket.
	ParentID *uuid.UUID
	// SprintID narrows to the tickets of a sprint.
	SprintID *uuid.UUID
	// Among narrows to the tickets this condition on t selects (the
	// tickets with approved time in a month, for a policy's rules).
	Among sq.Sqlizer
	After *Key // keyset: continue after this row
	Limit int
}

// base selects the visible tickets matching s, without order or keyset.
func base(s Search, cols ...string) (sq.SelectBuilder, error) {
	b := store.SQL.Select(cols...).From("tickets t").
		Where("t.org_id = ?", s.OrgID).Where("t.deleted_at IS NULL")
	if s.ProjectID != nil {
		b = b.Where("t.project_id = ?", *s.ProjectID)
	} else {
		b = b.Where("t.project_id IN (SELECT vp.id FROM projects vp WHERE vp.org_id = ? AND vp.deleted_at IS NULL)", s.OrgID)
	}
	if s.AssignedTo != nil {
		b = b.Where("t.project_id IN (SELECT pm.project_id FROM project_members pm WHERE pm.user_id = ?)", *s.AssignedTo)
	}
	if s.OnlyProjects != nil {
		b = b.Where("t.project_id = ANY(?)", s.OnlyProjects)
	}
	if s.SprintID != nil {
		b = b.Where("t.sprint_id = ?", *s.SprintID)
	}
	if s.ParentID != nil {
		b = b.Where("t.parent_id = ?", *s.ParentID)
	}
	if s.AssigneeID != uuid.Nil {
		b = b.Where("t.assignee_id = ?", s.AssigneeID)
	}
	if s.Among != nil {
		b = b.Where(s.Among)
	}
	if s.Root != nil {
		w, err := Where(s.Root, s.Env)
		if err != nil {
			return b, err
		}
		b = b.Where(w)
	}
	return b, nil
}

// pageColumns are the ticket's columns of a page query.
func pageColumns() []string {
	cols := make([]string, 0, 16)
	for _, c := range ticketdb.Columns() {
		cols = append(cols, "t."+c)
	}
	return cols
}

// Page builds the page query of s: the matches in sort order after the
// keyset position, one row more than the limit (sort:cf.<key>: the matches
// with a value; List reads the others after them).
func Page(s Search) (sq.SelectBuilder, error) {
	cols := pageColumns()
	rel := s.Sort.Key == searchquery.SortRelevance
	if !rel {
		cols = append(cols, "0::real AS rank")
	}
	if s.Sort.Key == searchquery.SortCustom {
		return customPage(s, cols)
	}
	expr := sortExpr(s.Sort, s.Env.SortField)
	cols = append(cols, "NULL::text AS sort_value")
	b, err := base(s, cols...)
	if err != nil {
		return b, err
	}
	if rel {
		// Rank only the RankWindow most recently updated matches: a
		// common word matches a good part of the tickets, and ranking
		// them all reads and ranks every one for each page. The window
		// is read in the order of an index (org or project, updated_at),
		// or from the text index when the words are rare.
		inner := b.Column("t.search_vector").OrderBy("t.updated_at DESC", "t.id DESC").Limit(RankWindow)
		b = store.SQL.Select(cols...).Column(sq.Expr(rankExpr+" AS rank", s.RankText)).FromSelect(inner, "t")
	}
	dir, cmp := " ASC", ">"
	if s.Sort.Desc {
		dir, cmp = " DESC", "<"
	}
	if s.After != nil {
		switch s.Sort.Key {
		case searchquery.SortID:
			b = b.Where("t.id "+cmp+" ?", s.After.ID)
		case searchquery.SortCreated, searchquery.SortUpdated:
			b = b.Where("("+expr+", t.id) "+cmp+" (?, ?)", s.After.Time, s.After.ID)
		case searchquery.SortRelevance:
			b = b.Where("("+expr+", t.id) "+cmp+" (?::real, ?)", s.RankText, s.After.Rank, s.After.ID)
		default:
			b = b.Where("("+expr+", t.id) "+cmp+" (?, ?)", s.After.Int, s.After.ID)
		}
	}
	switch {
	case rel:
		b = b.OrderByClause(expr+dir, s.RankText)
	case expr != "":
		b = b.OrderBy(expr + dir)
	}
	return b.OrderBy("t.id" + dir).Limit(uint64(s.Limit) + 1), nil
}

// customPlan runs a search statement unprepared (pgx's describe-exec mode,
// the unnamed statement): PostgreSQL plans it with the values of its
// parameters each time. A cached prepared statement switches to a generic
// plan after five runs when its estimate looks no worse, and the generic
// plan of a tag, label or sprint comparison assumes an average value, with
// which a rare value (`tag:env=none`) walks every ticket probing a hashed
// subplan where its own plan finds no row in the tag index.
func customPlan(args []any) []any {
	return append([]any{pgx.QueryExecModeDescribeExec}, args...)
}

type rankedRow struct {
	ticketdb.Row
	Rank      float32 `db:"rank"`
	SortValue *string `db:"sort_value"`
}

// List reads one page of s, in its sort order, and the key to continue
// after when there is more.
func List(ctx context.Context, q store.Querier, s Search) ([]ticketdb.Row, *Key, error) {
	s, err := Resolve(ctx, q, s)
	if err != nil {
		return nil, nil, err
	}
	var ranked []rankedRow
	if sortsByCustom(s) {
		ranked, err = listCustom(ctx, q, s)
	} else {
		var b sq.SelectBuilder
		if b, err = Page(s); err == nil {
			ranked, err = selectRanked(ctx, q, b)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	rows := make([]ticketdb.Row, 0, len(ranked))
	for _, r := range ranked {
		rows = append(rows, r.Row)
	}
	if len(rows) <= s.Limit {
		return rows, nil, nil
	}
	rows = rows[:s.Limit]
	k := keyOf(rows[s.Limit-1], ranked[s.Limit-1].Rank, ranked[s.Limit-1].SortValue, s.Sort)
	return rows, &k, nil
}

// Count counts the matches of s, up to limit: it returns limit+1 when there
// are more (the caller reports the count as capped).
func Count(ctx context.Context, q store.Querier, s Search, limit int) (int, error) {
	s, err := Resolve(ctx, q, s)
	if err != nil {
		return 0, err
	}
	b, err := base(s, "1")
	if err != nil {
		return 0, err
	}
	sql, args, err := store.SQL.Select("count(*)").FromSelect(b.Limit(uint64(limit)+1), "c").ToSql()
	if err != nil {
		return 0, err
	}
	var n int
	err = q.QueryRow(ctx, sql, customPlan(args)...).Scan(&n)
	return n, err
}

// Progress counts the matches of s by the category of their status in their
// project's workflow ("unknown" for a status the workflow no longer has).
func Progress(ctx context.Context, q store.Querier, s Search) (map[string]int, error) {
	s, err := Resolve(ctx, q, s)
	if err != nil {
		return nil, err
	}
	b, err := base(s, "COALESCE(pc.cat, 'unknown') AS category", "count(*) AS n")
	if err != nil {
		return nil, err
	}
	b = b.JoinClause(sq.Expr(`LEFT JOIN LATERAL (
		SELECT cs.value->>'category' AS cat FROM `+projectStatuses+`
		WHERE cp.id = t.project_id AND cs.value->>'name' = t.status LIMIT 1) pc ON true`, string(s.DefaultStatuses))).
		GroupBy("1")
	type row struct {
		Category string `db:"category"`
		N        int    `db:"n"`
	}
	rows, err := store.Select[row](ctx, q, b)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Category] = r.N
	}
	return out, nil
}

// All reads the matches of s by ticket number, at most max (a sprint board).
func All(ctx context.Context, q store.Querier, s Search, max int) ([]ticketdb.Row, error) {
	s, err := Resolve(ctx, q, s)
	if err != nil {
		return nil, err
	}
	cols := make([]string, 0, 14)
	for _, c := range ticketdb.Columns() {
		cols = append(cols, "t."+c)
	}
	b, err := base(s, cols...)
	if err != nil {
		return nil, err
	}
	return store.Select[ticketdb.Row](ctx, q, b.OrderBy("t.ticket_number", "t.id").Limit(uint64(max)))
}
