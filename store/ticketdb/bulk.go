package ticketdb

import (
	"context"
	"fmt"

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
// is 1) and their search vectors from the title, the description and one
// more array: each ticket's comment text.
var insertManySQL = func() string {
	names, types := fields.Names(), fields.Types()
	sel, arrays := make([]string, len(names)), make([]string, len(names))
	for i, c := range names {
		sel[i], arrays[i] = "u."+c, fmt.Sprintf("$%d::%s[]", i+1, types[i])
		if c == "row_version" {
			sel[i] = "1"
		}
	}
	return `INSERT INTO tickets (` + store.Cols(names) + `, search_vector)
	    SELECT ` + store.Cols(sel) + `, ticket_text_vector(u.title, u.description, u.comment_text)
	    FROM unnest(` + store.Cols(arrays) + fmt.Sprintf(", $%d::text[]", len(names)+1) + `) AS u(` + store.Cols(names) + `, comment_text)
	    ON CONFLICT (project_id, ticket_number) DO NOTHING RETURNING id`
}()

// InsertMany inserts rows (an import's batch) whose numbers are free and
// returns the ids inserted; a row whose number its project already uses is
// left out. Each row's search vector is computed here from its title, its
// description and commentText[i], its comments' bodies joined by a space in
// id order (what ticket_search_vector reads back once they are in): the
// caller writes those comments in the same transaction with
// GiveSearchVectors on, so the ticket row is written once.
func InsertMany(ctx context.Context, q store.Querier, rs []Row, commentText []string) (map[uuid.UUID]bool, error) {
	rows, err := q.Query(ctx, insertManySQL, append(fields.Arrays(rs), commentText)...)
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

// GiveSearchVectors turns on (or off) for the rest of the transaction the
// setting under which the tickets' insert trigger keeps the search vector
// InsertMany gives, and the comments' insert trigger leaves the tickets'
// vectors alone (schema/migrations 062): on only while a batch writes new
// tickets and their own comments.
func GiveSearchVectors(ctx context.Context, q store.Querier, on bool) error {
	v := ""
	if on {
		v = "on"
	}
	_, err := q.Exec(ctx, `SELECT set_config('tracker.search_vector_given', $1, true)`, v)
	return store.Translate(err)
}
