package ticketdb

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tracker/store"
)

// rowScan scans a Row by position into binary uuid targets. The list and
// read paths use it instead of pgx's by-name reflection and google/uuid's
// sql.Scanner (a text round trip per uuid column): per row that was most of
// the API's CPU on a 20-ticket page.
type rowScan struct {
	id, org, project, assignee, reporter, sprint, parent pgtype.UUID
	r                                                    Row
}

// targets are in Columns() order.
func (s *rowScan) targets() []any {
	return []any{&s.id, &s.org, &s.project, &s.r.TicketNumber, &s.r.Title, &s.r.Description, &s.r.Status,
		&s.r.Priority, &s.assignee, &s.reporter, &s.sprint, &s.r.CreatedAt, &s.r.UpdatedAt, &s.parent, &s.r.RowVersion}
}

func (s *rowScan) row() Row {
	r := s.r
	r.ID, r.OrgID, r.ProjectID, r.ReporterID = s.id.Bytes, s.org.Bytes, s.project.Bytes, s.reporter.Bytes
	r.AssigneeID, r.SprintID, r.ParentID = nullable(s.assignee), nullable(s.sprint), nullable(s.parent)
	return r
}

// valid reports whether the ticket columns were not all NULL (outer join).
func (s *rowScan) valid() bool { return s.id.Valid }

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
		rs    rowScan
		found bool
	)
	if err := scanAll(rows, func() ([]any, func()) { return rs.targets(), func() { found = true } }); err != nil {
		return Row{}, err
	}
	if !found {
		return Row{}, store.ErrNotFound
	}
	return rs.row(), nil
}
