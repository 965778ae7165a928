package ticketdb_test

import (
	"context"
	"slices"
	"testing"

	"tracker/store"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
)

// Every column of the tickets table is a field of ticketdb.Row (or named in
// NotInRow): the create, read, export and import statements are built from
// Row, so a column added by a migration without its field would be dropped
// silently by export and import.
func TestRowHasEveryColumn(t *testing.T) {
	db := storetest.New(t)
	type column struct {
		Name string `db:"column_name"`
	}
	cols, err := store.SelectRaw[column](context.Background(), db.Q(), `SELECT column_name FROM information_schema.columns
	    WHERE table_schema = current_schema() AND table_name = 'tickets' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) == 0 {
		t.Fatal("no columns read for tickets")
	}
	have := ticketdb.Columns()
	for _, c := range cols {
		if !slices.Contains(have, c.Name) && !slices.Contains(ticketdb.NotInRow, c.Name) {
			t.Errorf("tickets.%s is not a field of ticketdb.Row: add it (db:%q), or to NotInRow if no read, export or import carries it", c.Name, c.Name)
		}
	}
	for _, c := range have {
		if !slices.ContainsFunc(cols, func(x column) bool { return x.Name == c }) {
			t.Errorf("ticketdb.Row has %s, which tickets has not", c)
		}
	}
}
