package searchdb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

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

// Key is a row's position in a sort: its sort key and id.
type Key struct {
	ID   uuid.UUID
	Time time.Time // created, updated
	Int  int64     // number, priority rank, due, estimate, a date field's days
	Rank float32   // relevance
	Num  string    // a number field's value (numeric text; ±Infinity: none)
}

// KeyOf is the position of r in sort s (relevance: rank is the row's).
func KeyOf(r ticketdb.Row, rank float32, s searchquery.Sort) Key {
	return keyOf(r, rank, nil, s)
}

// keyOf is KeyOf with the row's value of the sort's custom field as the
// page query read it (its sort expression as text).
func keyOf(r ticketdb.Row, rank float32, custom *string, s searchquery.Sort) Key {
	k := Key{ID: r.ID, Rank: rank}
	if s.Key == searchquery.SortCustom && custom != nil {
		if s.CustomType == "number" {
			k.Num = *custom
		} else {
			k.Int, _ = strconv.ParseInt(*custom, 10, 64)
		}
	}
	switch s.Key {
	case searchquery.SortCreated:
		k.Time = r.CreatedAt
	case searchquery.SortUpdated:
		k.Time = r.UpdatedAt
	case searchquery.SortNumber:
		k.Int = int64(r.TicketNumber)
	case searchquery.SortPriority:
		for i, p := range searchquery.Priorities {
			if p == r.Priority {
				k.Int = int64(i)
			}
		}
	case searchquery.SortDue:
		k.Int = NoDue(s.Desc)
		if r.DueDate != nil {
			k.Int = int64(r.DueDate.Time().Unix() / 86400)
		}
	case searchquery.SortEstimate:
		k.Int = NoEstimate(s.Desc)
		if r.Estimate != nil {
			k.Int = int64(*r.Estimate)
		}
	}
	return k
}

// NoDue and NoEstimate are the sort keys of a ticket without a due date or
// an estimate: past every value in the sort's direction, so those tickets
// come last either way (due: days since 1970-01-01; estimate: hundredths).
func NoDue(desc bool) int64 {
	if desc {
		return math.MinInt32
	}
	return math.MaxInt32
}

// NoNumber is the sort key of a ticket without a value of the number field
// sort:cf.<key> sorts by: past every value in the sort's direction.
func NoNumber(desc bool) string {
	if desc {
		return "-Infinity"
	}
	return "Infinity"
}

// NoEstimate: see NoDue.
func NoEstimate(desc bool) int64 {
	if desc {
		return -1
	}
	return math.MaxInt64
}

// RankWindow is how many matches a relevance sort ranks: the most recently
// updated ones (pages continue within them; sort:updated reaches the rest).
const RankWindow = 200

// rankExpr is the relevance of t to the rank text (bound once per use).
const rankExpr = "ts_rank(t.search_vector, websearch_to_tsquery('" + TextConfig + "', ?))"

// sortExpr is the SQL of a sort key (relevance: rankExpr, one argument);
// field is the field of a sort:cf.<key>.
func sortExpr(s searchquery.Sort, field uuid.UUID) string {
	switch s.Key {
	case searchquery.SortCustom:
		// The value row joined by Page's valued branch (customPage).
		if s.CustomType == "number" {
			return "cv.num_value"
		}
		return "cv.date_value"
	case searchquery.SortRelevance:
		return rankExpr
	case searchquery.SortCreated:
		return "t.created_at"
	case searchquery.SortUpdated:
		return "t.updated_at"
	case searchquery.SortNumber:
		return "t.ticket_number"
	case searchquery.SortPriority:
		return PriorityRank
	case searchquery.SortDue:
		return fmt.Sprintf("COALESCE(t.due_date - DATE '1970-01-01', %d)", NoDue(s.Desc))
	case searchquery.SortEstimate:
		return fmt.Sprintf("COALESCE((t.estimate * 100)::bigint, %d)", NoEstimate(s.Desc))
	}
	return ""
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
		SELECT cs.value->>'category' AS cat FROM projects cp
		LEFT JOIN workflows cw ON cw.id = COALESCE(cp.workflow_id,
			(SELECT d.id FROM workflows d WHERE d.org_id = cp.org_id AND d.name = 'Default'))
		CROSS JOIN LATERAL jsonb_array_elements(COALESCE(cw.statuses, ?::jsonb)) cs
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

// RootError is an error of one of FirstMatches' searches, with its index.
type RootError struct {
	Index int
	Err   error
}

func (e *RootError) Error() string { return fmt.Sprintf("search %d: %v", e.Index, e.Err) }
func (e *RootError) Unwrap() error { return e.Err }

// FirstMatches runs searches as one query over the tickets whose ids among
// selects (a query of one column), read once as a materialized set rather
// than once per search: for each ticket some search matches, the index of
// the first that does. An error of one search is a *RootError naming it.
func FirstMatches(ctx context.Context, q store.Querier, searches []Search, among sq.Sqlizer) (map[uuid.UUID]int, error) {
	out := map[uuid.UUID]int{}
	if len(searches) == 0 {
		return out, nil
	}
	sql, args, err := among.ToSql()
	if err != nil {
		return nil, err
	}
	parts := make([]string, 0, len(searches))
	for i, s := range searches {
		if s, err = Resolve(ctx, q, s); err != nil {
			return nil, &RootError{Index: i, Err: err}
		}
		s.Among = sq.Expr("t.id IN (SELECT id FROM among)")
		b, err := base(s, "t.id", strconv.Itoa(i)+" AS i")
		if err != nil {
			return nil, &RootError{Index: i, Err: err}
		}
		part, a, err := b.PlaceholderFormat(sq.Question).ToSql()
		if err != nil {
			return nil, &RootError{Index: i, Err: err}
		}
		parts = append(parts, "("+part+")")
		args = append(args, a...)
	}
	full, err := sq.Dollar.ReplacePlaceholders(`WITH among (id) AS MATERIALIZED (` + sql + `)
		SELECT DISTINCT ON (x.id) x.id, x.i FROM (` + strings.Join(parts, "\nUNION ALL\n") + `) x ORDER BY x.id, x.i`)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, full, args...)
	if err != nil {
		return nil, store.Translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var i int
		if err := rows.Scan(&id, &i); err != nil {
			return nil, store.Translate(err)
		}
		out[id] = i
	}
	return out, store.Translate(rows.Err())
}
