package export_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"tracker/domain/exchange/export"
	"tracker/domain/ticket"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/ticketdb"
)

// Row columns that the API's ticket leaves out.
var notInAPI = []string{"org_id", "row_version"}

// Row columns that the export document (JSON and SQLite) carries under
// another name ("" = not at all): ids become the document's keys.
var inDocumentAs = map[string]string{
	"id": "", "org_id": "", "row_version": "", "project_id": "", // the enclosing project
	"ticket_number": "number", "assignee_id": "assignee", "reporter_id": "reporter", "sprint_id": "sprint",
	"parent_id": "parent", // JSON key; SQLite holds it in ticket_parents
}

func keysOf(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTicketFieldsAgree holds the lists that ticketdb.Row drives together:
// every column of Row is a key of the API's ticket JSON (the generated
// encoder), of the export document's ticket and a column of the SQLite
// file's tickets table, unless listed above. A column added to Row without
// reaching them (or a field added to ticketdb.Content, which reaches all of
// them) is caught here.
func TestTicketFieldsAgree(t *testing.T) {
	cols := ticketdb.Columns()
	for _, c := range ticketdb.ContentFields.Names() {
		if !slices.Contains(cols, c) {
			t.Errorf("Content column %s is not a column of Row", c)
		}
	}

	var want []string
	for _, c := range cols {
		if !slices.Contains(notInAPI, c) {
			want = append(want, c)
		}
	}
	sort.Strings(want)
	if api := keysOf(t, ticket.Ticket{}.AppendJSON(nil)); !slices.Equal(api, want) {
		t.Errorf("API ticket JSON keys %v, want Row's columns less %v: %v", api, notInAPI, want)
	}

	doc, err := json.Marshal(export.Ticket{})
	if err != nil {
		t.Fatal(err)
	}
	docKeys := keysOf(t, doc)
	sqliteCols := sqliteTicketColumns(t)
	for _, c := range cols {
		name, renamed := inDocumentAs[c]
		if !renamed {
			name = c
		}
		if name == "" {
			continue
		}
		if name != "parent" && !slices.Contains(docKeys, name) { // parent is omitempty
			t.Errorf("Row column %s is not in the export document's ticket (keys %v)", c, docKeys)
		}
		if c != "parent_id" && !slices.Contains(sqliteCols, name) {
			t.Errorf("Row column %s is not a column of the SQLite tickets table (%v)", c, sqliteCols)
		}
	}
}

// sqliteTicketColumns are the columns of the tickets table of a new export
// file.
func sqliteTicketColumns(t *testing.T) []string {
	path := filepath.Join(t.TempDir(), "x.sqlite")
	f, err := exportdb.CreateSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM pragma_table_info('tickets')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
