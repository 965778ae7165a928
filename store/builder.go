package store

import (
	"context"
	"fmt"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"
)

// SQL is the one squirrel builder of the service, preset to $ placeholders.
var SQL = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// Sqlizer is anything squirrel can render.
type Sqlizer = sq.Sqlizer

// Exec runs a built statement and returns the number of affected rows.
func Exec(ctx context.Context, q Querier, b Sqlizer) (int64, error) {
	query, args, err := b.ToSql()
	if err != nil {
		return 0, fmt.Errorf("build sql: %w", err)
	}
	tag, err := q.Exec(ctx, query, args...)
	if err != nil {
		return 0, translate(err)
	}
	return tag.RowsAffected(), nil
}

// Get runs a built query that returns one row, scanned by column name into T.
// No row is ErrNotFound.
func Get[T any](ctx context.Context, q Querier, b Sqlizer) (T, error) {
	var zero T
	query, args, err := b.ToSql()
	if err != nil {
		return zero, fmt.Errorf("build sql: %w", err)
	}
	return GetRaw[T](ctx, q, query, args...)
}

// GetRaw is Get for hand-written SQL.
func GetRaw[T any](ctx context.Context, q Querier, query string, args ...any) (T, error) {
	var zero T
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return zero, translate(err)
	}
	v, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[T])
	if err != nil {
		return zero, translate(err)
	}
	return v, nil
}

// Select runs a built query and scans every row by column name into T.
func Select[T any](ctx context.Context, q Querier, b Sqlizer) ([]T, error) {
	query, args, err := b.ToSql()
	if err != nil {
		return nil, fmt.Errorf("build sql: %w", err)
	}
	return SelectRaw[T](ctx, q, query, args...)
}

// SelectRaw is Select for hand-written SQL.
func SelectRaw[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	v, err := pgx.CollectRows(rows, pgx.RowToStructByName[T])
	if err != nil {
		return nil, translate(err)
	}
	return v, nil
}

// Column runs hand-written SQL and returns its rows' one column.
func Column[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	v, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil {
		return nil, translate(err)
	}
	return v, nil
}

// Scalar runs a built query returning one value.
func Scalar[T any](ctx context.Context, q Querier, b Sqlizer) (T, error) {
	var v T
	query, args, err := b.ToSql()
	if err != nil {
		return v, fmt.Errorf("build sql: %w", err)
	}
	if err := q.QueryRow(ctx, query, args...).Scan(&v); err != nil {
		return v, translate(err)
	}
	return v, nil
}

// Cols renders a column list for hand-written SQL (RETURNING, CTEs).
func Cols(c []string) string { return strings.Join(c, ", ") }

// Prefixed qualifies columns with a table alias ("t.id", ...), for joins.
func Prefixed(alias string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return out
}
