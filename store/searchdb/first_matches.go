package searchdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

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
