package searchdb_test

import (
	"context"
	"testing"

	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// The page and count queries of a search run unprepared, so PostgreSQL
// plans them with their values every time: a cached prepared statement
// turns to a generic plan after five runs, whose estimate for an average
// tag value walked every ticket for a value no ticket has.
func TestSearchIsNeverAPreparedStatement(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedTickets(t, db, 30, "'Launch ' || g", "about the launch")
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, q := range []string{"tag:env=none", "launch", "label:bug status:Todo"} {
		s := newSearch(t, org, me, q, 20)
		for range 7 {
			if _, _, err := searchdb.List(ctx, conn.Conn(), s); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if _, err := searchdb.Count(ctx, conn.Conn(), s, 100); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	prepared := storetest.Lines(t, conn, `SELECT statement FROM pg_prepared_statements
		WHERE statement LIKE 'SELECT t.id, t.org_id,%' OR statement LIKE 'SELECT count(*) FROM (SELECT 1 FROM tickets t%'`)
	if len(prepared) > 0 {
		t.Errorf("%d search statements prepared on the connection, first: %s", len(prepared), prepared[0])
	}
}
