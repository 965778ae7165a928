package ticketdb

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
)

// exportSQL reads Row's columns, the sprint only while it is live (an
// export names live sprints only).
var exportSQL = func() string {
	cols := Columns()
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "t." + c
		if c == "sprint_id" {
			sel[i] = "(SELECT s.id FROM sprints s WHERE s.id = t.sprint_id AND s.deleted_at IS NULL) AS sprint_id"
		}
	}
	return `SELECT ` + store.Cols(sel) + `
	    FROM tickets t WHERE t.project_id = $1 AND t.ticket_number > $2 AND t.deleted_at IS NULL
	    ORDER BY t.ticket_number LIMIT $3`
}()

// ExportAfter reads up to limit live tickets of a project numbered above
// after, in number order (keyset on the project's unique number index);
// SprintID is set only for a live sprint.
func ExportAfter(ctx context.Context, q store.Querier, projectID uuid.UUID, after, limit int) ([]Row, error) {
	rows, err := q.Query(ctx, exportSQL, projectID, after, limit)
	if err != nil {
		return nil, store.Translate(err)
	}
	var out []Row
	rs := newRowScan()
	err = scanAll(rows, func() ([]any, func()) { return rs.next(), func() { out = append(out, rs.r) } })
	return out, err
}

// insertManySQL inserts Rows from one array per column (a new row's version
// is 1, whatever the Row says).
var insertManySQL = `INSERT INTO tickets (` + store.Cols(Columns()) + `)
	    SELECT ` + func() string {
	cols := Columns()
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "u." + c
		if c == "row_version" {
			sel[i] = "1"
		}
	}
	return store.Cols(sel)
}() + ` FROM ` + fields.Unnest("u", 1) + `
	    ON CONFLICT (project_id, ticket_number) DO NOTHING RETURNING id`

// InsertMany inserts rows (an import's batch) whose numbers are free and
// returns the ids inserted; a row whose number its project already uses is
// left out.
func InsertMany(ctx context.Context, q store.Querier, rs []Row) (map[uuid.UUID]bool, error) {
	rows, err := q.Query(ctx, insertManySQL, fields.Arrays(rs)...)
	if err != nil {
		return nil, store.Translate(err)
	}
	out := make(map[uuid.UUID]bool, len(rs))
	var id uuid.UUID
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		out[id] = true
		return nil
	})
	return out, store.Translate(err)
}
