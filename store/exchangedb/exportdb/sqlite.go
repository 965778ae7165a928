package exportdb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"

	"tracker/store/commentdb"
	"tracker/store/labeldb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// Table is one table of the sqlite export: its name and columns, in the
// order Insert takes values. Relations use the document's keys (emails,
// project keys, names, numbers, positions), never ids.
type Table struct {
	Name    string
	Columns []string
	Key     string // PRIMARY KEY column list
}

// Tables are the eleven tables of the spec, the two of teams, the one of
// attachments and the two of ticket relations, in the order they are
// filled. Those of projects, tickets and time entries take the columns of
// the row's Content in place (projectdb's, ticketdb's, timeentrydb's
// ContentFields), so a field added to a Content is a column here.
var Tables = []Table{
	{"export_meta", []string{"key", "value"}, "key"},
	{"users", []string{"email", "display_name", "role"}, "email"},
	{"labels", labeldb.ContentFields.Names(), "name"},
	{"workflows", []string{"name", "statuses", "transitions", "enforcement"}, "name"},
	{"projects", slices.Concat([]string{"key", "name", "description", "workflow", "ticket_counter"}, projectdb.ContentFields.Names(),
		[]string{"budget_cents", "budget_period", "created_at", "updated_at", "team", "placed_in_service"}), "key"},
	{"project_members", []string{"project_key", "user_email"}, "project_key, user_email"},
	{"sprints", slices.Concat([]string{"project_key", "position"}, sprintdb.ContentFields.Names(),
		[]string{"status", "created_at", "updated_at"}), "project_key, position"},
	{"tickets", slices.Concat([]string{"project_key", "number"}, ticketdb.ContentFields.Names(),
		[]string{"assignee", "reporter", "sprint", "created_at", "updated_at"}), "project_key, number"},
	{"ticket_labels", []string{"project_key", "ticket_number", "label"}, "project_key, ticket_number, label"},
	{"comments", slices.Concat([]string{"project_key", "ticket_number", "position", "author"}, commentdb.ContentFields.Names(),
		[]string{"parent", "created_at", "updated_at"}), "project_key, ticket_number, position"},
	// source_approved_by is additive to version 1 (files written before
	// read it as NULL).
	{"time_entries", slices.Concat([]string{"project_key", "ticket_number", "position", "user"}, timeentrydb.ContentFields.Names(),
		[]string{"status", "approved_by", "approved_at", "created_at", "updated_at", "source_approved_by"}),
		"project_key, ticket_number, position"},
	// Additive to version 1: teams and their members (projects.team names one).
	{"teams", []string{"name"}, "name"},
	{"team_members", []string{"team", "user_email"}, "team, user_email"},
	// Additive to version 1: each ticket's attachments (metadata and
	// storage key, never the bytes), in upload order.
	{"attachments", []string{"project_key", "ticket_number", "position", "filename", "content_type", "size_bytes",
		"storage_key", "uploaded_by", "created_at"}, "project_key, ticket_number, position"},
	// Additive to version 1: each ticket's parent and the links stored from
	// it, the other ticket named KEY-NUMBER. Files written before have
	// neither table; ReadSQLite reads them as no relations.
	{"ticket_parents", []string{"project_key", "ticket_number", "parent"}, "project_key, ticket_number"},
	{"ticket_links", []string{"project_key", "ticket_number", "position", "type", "target"},
		"project_key, ticket_number, position"},
	// Additive to version 1: the org's custom field definitions (options
	// and project keys as JSON text) and each ticket's values by field key
	// (the value as JSON text, as the JSON document carries it). Files
	// written before have neither table; ReadSQLite reads them as none.
	{"custom_fields", []string{"key", "name", "type", "options", "projects", "required"}, "key"},
	{"ticket_custom_values", []string{"project_key", "ticket_number", "field_key", "value"}, "project_key, ticket_number, field_key"},
}

// integerColumns are stored as INTEGER; every other column is TEXT
// (timestamps RFC 3339, dates YYYY-MM-DD, workflow statuses as JSON).
// The integer and boolean columns of the Contents (ticketdb's, projectdb's,
// timeentrydb's) join them.
var integerColumns = func() map[string]bool {
	m := map[string]bool{
		"ticket_counter": true, "amortization_months": true, "budget_cents": true, "position": true,
		"number": true, "ticket_number": true, "parent": true, "size_bytes": true, "required": true,
	}
	for _, f := range []interface {
		Names() []string
		Types() []string
	}{ticketdb.ContentFields, projectdb.ContentFields, timeentrydb.ContentFields} {
		for i, t := range f.Types() {
			if t == "int" || t == "bigint" || t == "bool" {
				m[f.Names()[i]] = true
			}
		}
	}
	return m
}()

func ddl(t Table) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		typ := "TEXT"
		if integerColumns[c] {
			typ = "INTEGER"
		}
		cols[i] = fmt.Sprintf("%q %s", c, typ)
	}
	return fmt.Sprintf("CREATE TABLE %s (%s, PRIMARY KEY (%s))", t.Name, strings.Join(cols, ", "), t.Key)
}

// SQLiteFile is a sqlite export being written: one transaction with one
// prepared insert per table.
type SQLiteFile struct {
	db    *sql.DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// CreateSQLite creates the database file at path (which must not exist)
// with the export tables and opens the transaction that fills them.
func CreateSQLite(ctx context.Context, path string) (*SQLiteFile, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db.SetMaxOpenConns(1)
	f := &SQLiteFile{db: db, stmts: map[string]*sql.Stmt{}}
	if err := f.init(ctx); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func (f *SQLiteFile) init(ctx context.Context) error {
	for _, t := range Tables {
		if _, err := f.db.ExecContext(ctx, ddl(t)); err != nil {
			return fmt.Errorf("create table %s: %w", t.Name, err)
		}
	}
	var err error
	if f.tx, err = f.db.BeginTx(ctx, nil); err != nil {
		return fmt.Errorf("begin sqlite: %w", err)
	}
	for _, t := range Tables {
		quoted := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			quoted[i] = fmt.Sprintf("%q", c)
		}
		q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.Name, strings.Join(quoted, ", "),
			strings.TrimSuffix(strings.Repeat("?, ", len(t.Columns)), ", "))
		if f.stmts[t.Name], err = f.tx.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("prepare %s: %w", t.Name, err)
		}
	}
	return nil
}

// Insert adds one row to table; values follow the table's Columns (nil
// pointers are NULL).
func (f *SQLiteFile) Insert(ctx context.Context, table string, values ...any) error {
	st, ok := f.stmts[table]
	if !ok {
		return fmt.Errorf("sqlite export: unknown table %s", table)
	}
	if _, err := st.ExecContext(ctx, values...); err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	return nil
}

// Commit commits the rows and closes the file.
func (f *SQLiteFile) Commit() error {
	err := f.tx.Commit()
	f.tx = nil
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close abandons an uncommitted transaction and closes the file.
func (f *SQLiteFile) Close() error {
	for _, st := range f.stmts {
		_ = st.Close()
	}
	f.stmts = map[string]*sql.Stmt{}
	if f.tx != nil {
		_ = f.tx.Rollback()
		f.tx = nil
	}
	return f.db.Close()
}

// ReadTable calls fn with each row of an export file's table in insertion
// order (document order); values are string, int64 or nil. A column the
// file's table lacks (added to the format after the file was written) reads
// as nil.
func ReadTable(ctx context.Context, path, table string, fn func(vals []any) error) error {
	var t *Table
	for i := range Tables {
		if Tables[i].Name == table {
			t = &Tables[i]
		}
	}
	if t == nil {
		return fmt.Errorf("sqlite export: unknown table %s", table)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	have, err := columnNames(ctx, db, t.Name)
	if err != nil {
		return err
	}
	quoted := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		quoted[i] = fmt.Sprintf("%q", c)
		if !have[c] {
			quoted[i] = "NULL"
		}
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s ORDER BY rowid", strings.Join(quoted, ", "), t.Name))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(t.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TableNames lists the tables of an export file (tests check there are
// exactly the spec's eleven plus the additive teams and attachments ones).
func TableNames(ctx context.Context, path string) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// columnNames are the columns of a file's table.
func columnNames(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}
