// Package ticketdb holds the SQL of tickets. A ticket is visible iff its own
// deleted_at and its project's deleted_at are NULL; every read here joins the
// project for that, and selects the caller's access (store.AccessColumns) and,
// for changes, the governing workflow in the same query: one round trip for
// read plus authorization.
package ticketdb

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/store"
)

// Content are a ticket's own values: the columns that the API's ticket
// (domain/ticket.Ticket), the export document's ticket (export.Ticket, JSON
// and SQLite) and the import carry unchanged, so each embeds Content instead
// of naming its fields. Its `db` tags are the columns, its `json` tags the
// API's and the document's keys. A new plain field of tickets (no id to map,
// no rule shared with another row) is a field here: Row, the JSON encoder
// (go generate ./domain/ticket), the create and PATCH bodies and inputs and
// the activity trail's changes (domain.Patch), the export (JSON and SQLite)
// and the import follow. domain/exchange/export's TestTicketFieldsAgree holds the lists together.
type Content struct {
	Title       string  `db:"title" json:"title"`
	Description *string `db:"description" json:"description"`
	Status      string  `db:"status" json:"status"`
	Priority    string  `db:"priority" json:"priority"`
	// DueDate and Estimate are nil for no value; the estimate counts in
	// its project's estimate_unit.
	DueDate  *civil.Date    `db:"due_date" json:"due_date"`
	Estimate *civil.Decimal `db:"estimate" json:"estimate"`
}

// ContentFields is Content's column list, for the export's SQLite table.
var ContentFields = store.FieldsOf[Content]()

// Row is a tickets row: the one definition of a ticket's columns. Columns,
// the scan targets, the create statement's named parameters, the export read
// and the import's unnest insert are all built from its `db` tags
// (store.FieldsOf, which flattens the embedded Content), so a new column is
// a field here (or on Content) and nothing else in this package.
// TestRowHasEveryColumn fails when the table has a column Row lacks.
type Row struct {
	ID           uuid.UUID `db:"id"`
	OrgID        uuid.UUID `db:"org_id"`
	ProjectID    uuid.UUID `db:"project_id"`
	TicketNumber int32     `db:"ticket_number"`
	Content
	AssigneeID *uuid.UUID `db:"assignee_id"`
	ReporterID uuid.UUID  `db:"reporter_id"`
	SprintID   *uuid.UUID `db:"sprint_id"`
	CreatedAt  time.Time  `db:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at"`
	ParentID   *uuid.UUID `db:"parent_id"`
	// ExternalKey and ExternalURL name the ticket in the tracker it was
	// imported from (PROJ-123, owner/repo#45); nil for a ticket born here.
	ExternalKey *string `db:"external_key"`
	ExternalURL *string `db:"external_url"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	RowVersion int64 `db:"row_version"`
	// CustomFields is the ticket's rendered copy of its custom values.
	CustomFields CustomFields `db:"custom_fields"`
}

// CustomFields is a ticket's custom_fields column: its custom values as the
// API's custom_fields object, byte for byte as the API writes it, so a read
// hands it through unparsed. Triggers keep it equal to the rendering of the
// ticket's ticket_custom_values (schema/migrations 060); empty means {}.
type CustomFields []byte

// AppendJSON appends the object as it is ({} when empty).
func (c CustomFields) AppendJSON(b []byte) []byte {
	if len(c) == 0 {
		return append(b, "{}"...)
	}
	return append(b, c...)
}

// MarshalJSON is AppendJSON for encoding/json.
func (c CustomFields) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON keeps the object as it comes (null: none).
func (c *CustomFields) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = nil
		return nil
	}
	*c = append((*c)[:0], b...)
	return nil
}

// PGType is the column's type (store.PGTyped).
func (CustomFields) PGType() string { return "json" }

// Value writes the copy ({} when empty).
func (c CustomFields) Value() (driver.Value, error) {
	if len(c) == 0 {
		return "{}", nil
	}
	return string(c), nil
}

// Scan reads the copy as it is stored.
func (c *CustomFields) Scan(src any) error {
	switch s := src.(type) {
	case string:
		*c = CustomFields(s)
	case []byte:
		*c = append(CustomFields(nil), s...)
	case nil:
		*c = nil
	default:
		return fmt.Errorf("custom_fields: cannot scan %T", src)
	}
	return nil
}

// NotInRow are the tickets columns Row leaves out on purpose: deleted_at is
// only ever a condition (a deleted ticket is never read), search_vector is
// kept by a trigger and read only by search.
var NotInRow = []string{"deleted_at", "search_vector"}

// fields is Row's column list.
var fields = store.FieldsOf[Row]()

// Columns is the column list of Row.
func Columns() []string { return fields.Names() }

// prefixed is Columns qualified by a table alias.
func prefixed(alias string) string { return strings.Join(store.Prefixed(alias, Columns()), ", ") }

// WorkflowRow is the governing workflow of a project, selected alongside: all
// NULL when the org has no workflow left (the caller falls back to the
// built-in Default rules).
type WorkflowRow struct {
	WorkflowName        *string `db:"wf_name"`
	WorkflowStatuses    []byte  `db:"wf_statuses"`
	WorkflowTransitions []byte  `db:"wf_transitions"`
	WorkflowEnforcement *string `db:"wf_enforcement"`
}

// workflowCols and workflowJoin select the WorkflowRow of the project aliased
// p: its own workflow, else the org's workflow named Default (unique index
// workflows_org_name_key).
const workflowCols = `w.name AS wf_name, w.statuses AS wf_statuses, w.transitions AS wf_transitions, w.enforcement AS wf_enforcement`

const workflowJoin = ` LEFT JOIN LATERAL (
	SELECT w.name, w.statuses, w.transitions, w.enforcement FROM workflows w
	WHERE w.id = COALESCE(p.workflow_id,
		(SELECT d.id FROM workflows d WHERE d.org_id = p.org_id AND d.name = 'Default'))) w ON true`

// accessCols selects the caller's access (user id bound as userParam) to the
// ticket aliased t.
func accessCols(userParam string) string {
	return store.Cols(store.AccessColumns("t.org_id", "t.project_id", userParam))
}

// visible is the WHERE fragment of a live ticket t of a live project p.
const visible = `t.deleted_at IS NULL AND p.deleted_at IS NULL`
