// Package cascadedb holds the SQL of cascade purges: deleting the dependents
// of a soft-deleted project, sprint, ticket, label or custom field in small batches, leaf
// first, each batch its own transaction so a purge resumes where it stopped.
//
// A row is deleted only when nothing references it any more: every batch
// carries a NOT EXISTS guard for each RESTRICT / NO ACTION foreign key that
// points at its table, read from the catalog. So rows of tables this package
// does not know (approved time entries, a future feature's links) keep what
// they reference as a soft-deleted tombstone instead of failing the purge,
// and comment replies go before their parents.
package cascadedb

import (
	"context"
	"fmt"
	"strings"

	"tracker/store"
)

// ref is one single-column foreign key pointing at a table's id.
type ref struct {
	Table  string `db:"tbl"` // quoted, possibly schema-qualified (regclass text)
	Column string `db:"col"` // quoted
}

// refsTo reads the foreign keys that would block deleting rows of table.
// ON DELETE CASCADE / SET NULL keys are left to PostgreSQL, as their owners
// declared.
func refsTo(ctx context.Context, q store.Querier, table string) ([]ref, error) {
	return store.SelectRaw[ref](ctx, q, `
		SELECT c.conrelid::regclass::text AS tbl, quote_ident(a.attname) AS col
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		WHERE c.contype = 'f' AND c.confrelid = to_regclass($1)
		  AND cardinality(c.conkey) = 1 AND c.confdeltype IN ('a', 'r')
		ORDER BY 1, 2`, table)
}

// guard renders "nothing references alias.id" for table.
func guard(ctx context.Context, q store.Querier, table, alias string) (string, error) {
	refs, err := refsTo(ctx, q, table)
	if err != nil {
		return "", fmt.Errorf("foreign keys to %s: %w", table, err)
	}
	if len(refs) == 0 {
		return "true", nil
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s g WHERE g.%s = %s.id)", r.Table, r.Column, alias)
	}
	return strings.Join(parts, " AND "), nil
}

// hasTable reports whether a table exists (time_entries belongs to another
// migration; the purge works with or without it).
func hasTable(ctx context.Context, q store.Querier, table string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok)
	return ok, store.Translate(err)
}

// hasColumns reports whether table has every column.
func hasColumns(ctx context.Context, q store.Querier, table string, cols ...string) (bool, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name = ANY ($2)`, table, cols).Scan(&n)
	return n == len(cols), store.Translate(err)
}
