package ticketdb

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tracker/store"
)

// rowScan scans a Row by position (Columns order) straight into its fields:
// the list and read paths use it instead of pgx's by-name reflection; the
// pool's binary uuid codec (store.RegisterUUID) fills the uuid fields.
type rowScan struct {
	r       Row
	targets []any
}

func newRowScan() *rowScan {
	s := &rowScan{}
	s.targets = fields.Targets(&s.r)
	return s
}

// next zeroes the row (nullable fields are scanned into in place) and
// returns the targets.
func (s *rowScan) next() []any {
	s.r = Row{}
	return s.targets
}

func nullable(u pgtype.UUID) *uuid.UUID {
	if !u.Valid {
		return nil
	}
	id := uuid.UUID(u.Bytes)
	return &id
}

// accessScan scans the four columns of store.AccessColumns by position.
type accessScan struct {
	org, project pgtype.UUID
	a            store.AccessRow
}

func (s *accessScan) targets() []any {
	return []any{&s.org, &s.a.Role, &s.project, &s.a.Assigned}
}

func (s *accessScan) access() store.AccessRow {
	a := s.a
	a.OrgID = s.org.Bytes
	a.ProjectID = nullable(s.project)
	return a
}

// scanAll runs sql and scans each row with the targets made by next, which
// is called once per row and returns the function that keeps the row.
func scanAll(rows pgx.Rows, next func() ([]any, func())) error {
	defer rows.Close()
	for rows.Next() {
		targets, keep := next()
		if err := rows.Scan(targets...); err != nil {
			return store.Translate(err)
		}
		keep()
	}
	return store.Translate(rows.Err())
}

// getRow runs sql returning exactly one Row (no row: store.ErrNotFound).
func getRow(ctx context.Context, q store.Querier, sql string, args ...any) (Row, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return Row{}, store.Translate(err)
	}
	var (
		rs    = newRowScan()
		found bool
	)
	if err := scanAll(rows, func() ([]any, func()) { return rs.next(), func() { found = true } }); err != nil {
		return Row{}, err
	}
	if !found {
		return Row{}, store.ErrNotFound
	}
	return rs.r, nil
}
