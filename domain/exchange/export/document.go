// Package export builds the portable export document of an organization
// (JSON, streamed; or a single-file SQLite database) and defines the
// document's shape, which the importer reads back.
//
// Relations inside the document use human-readable keys instead of ids:
// users by email, projects by key, labels and workflows by name, sprints by
// name within their project, tickets by number within their project, and a
// comment's parent by its position among the ticket's comments.
package export

import (
	"encoding/json"
	"strconv"
	"time"

	"tracker/store/commentdb"
	"tracker/store/labeldb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// Version is the only document version this service writes and reads.
const Version = 1

// Document is the export document. ExportedAt and the four arrays are
// required on import; everything inside is described on its type.
type Document struct {
	Version    *int       `json:"version"`
	Source     string     `json:"source"`
	ExportedAt time.Time  `json:"exported_at"`
	Users      []User     `json:"users"`
	Workflows  []Workflow `json:"workflows"`
	Labels     []Label    `json:"labels"`
	// Teams is an additive part of version 1: documents without it import
	// as before (no teams).
	Teams []Team `json:"teams"`
	// Fields (additive to version 1, left out when the org has none) are
	// the org's custom field definitions; tickets carry their values by
	// the field's key. Documents without it import as before.
	Fields   []CustomField `json:"fields,omitempty"`
	Projects []Project     `json:"projects"`
}

// CustomField is a custom field definition of the org. Projects are the
// keys of the projects it is enabled for (empty: every project); in a
// project's export only the fields enabled for that project, naming it.
type CustomField struct {
	Key      string              `json:"key"`
	Name     string              `json:"name"`
	Type     string              `json:"type"`
	Options  []CustomFieldOption `json:"options"`
	Projects []string            `json:"projects"`
	Required bool                `json:"required"`
}

// CustomFieldOption is an option of a select or multi_select field, named
// (values name it too).
type CustomFieldOption struct {
	Name     string  `json:"name"`
	Color    *string `json:"color"`
	Archived bool    `json:"archived"`
}

// Team is an org team; Members are user emails (members of the org).
type Team struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// User is a person the document mentions. Role is the membership role in
// the exported organization (Owner, Admin, Member, Reporter, Viewer), or
// null for someone who is referenced (an author, a former assignee) but no
// longer a member.
type User struct {
	Email       string  `json:"email"`
	DisplayName string  `json:"display_name"`
	Role        *string `json:"role"`
}

// Workflow is a workflow with its statuses and allowed transitions.
type Workflow struct {
	Name        string       `json:"name"`
	Statuses    []Status     `json:"statuses"`
	Transitions []Transition `json:"transitions"`
	Enforcement string       `json:"enforcement"`
}

// Status is one status of a workflow.
type Status struct {
	Name     string `json:"name"`
	Category string `json:"category"`
}

// Transition is an allowed move between two status names.
type Transition struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Label is an organization label: its own values (labeldb.Content), copied
// whole by the export, the SQLite file and the import.
type Label struct {
	labeldb.Content
}

// Project is a project with everything inside it. Workflow is a workflow
// name (or null); Members are user emails.
type Project struct {
	Key           string  `json:"key"`
	Name          string  `json:"name"`
	Description   *string `json:"description"`
	Workflow      *string `json:"workflow"`
	Team          *string `json:"team"` // a team name, or null
	TicketCounter int     `json:"ticket_counter"`
	// Content (capitalization_type … amortization_months) are the project's
	// own values as the row holds them, copied whole by the walk, the
	// SQLite file and the import.
	projectdb.Content
	BudgetCents  *int64  `json:"budget_cents"`
	BudgetPeriod *string `json:"budget_period"`
	// PlacedInService (YYYY-MM-DD or null) is additive to version 1.
	PlacedInService *string   `json:"placed_in_service,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	Members         []string  `json:"members"`
	Sprints         []Sprint  `json:"sprints"`
	Tickets         []Ticket  `json:"tickets"`
}

// Sprint is a sprint of its project; its name is its key within the
// project. The embedded sprintdb.Content are its own values, copied whole
// by the walk, the SQLite file and the import; StartDate and EndDate, its
// dates as text (YYYY-MM-DD), hide Content's from encoding/json (after
// Content, whose last fields they are, so the keys keep their order), so
// the import checks the text at its path.
type Sprint struct {
	sprintdb.Content
	StartDate string    `json:"start_date"`
	EndDate   string    `json:"end_date"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Ticket is a ticket of its project with its comments, labels (names) and
// time entries. Assignee and Reporter are emails; Sprint a sprint name of
// the same project.
//
// The embedded ticketdb.Content (title, description, status, priority) are
// the ticket's own values as the row holds them: the walk, the SQLite file
// (its columns are Content's `db` tags) and the import copy them whole.
type Ticket struct {
	Number int `json:"number"`
	ticketdb.Content
	Assignee    *string     `json:"assignee"`
	Reporter    string      `json:"reporter"`
	Sprint      *string     `json:"sprint"`
	Labels      []string    `json:"labels"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
	Comments    []Comment   `json:"comments"`
	TimeEntries []TimeEntry `json:"time_entries"`
	// Attachments list the ticket's files (metadata and storage key, not
	// the bytes); left out when there are none. Import accepts and ignores
	// them: the objects stay where they are and are not copied.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Parent (additive to version 1) is the parent ticket as KEY-NUMBER
	// (any project of the org); left out when the ticket has none.
	Parent *string `json:"parent,omitempty"`
	// Links (additive to version 1) are the links stored from this ticket
	// (blocks, duplicates, relates_to), each naming the other ticket as
	// KEY-NUMBER; the other end's blocked_by/duplicated_by is the same
	// link and is not repeated there. Left out when there are none.
	Links []Link `json:"links,omitempty"`
	// ExternalKey and ExternalURL (additive, left out when null) name the
	// ticket in the tracker it was first imported from.
	ExternalKey *string `json:"external_key,omitempty"`
	ExternalURL *string `json:"external_url,omitempty"`
	// ResolvedAt (additive, left out when null) is when the ticket reached
	// its done or cancelled status in the tracker it was imported from
	// (Jira's Resolved, Linear's Completed or Canceled, GitHub's
	// closed_at). Tracker keeps no such column: the import records it as
	// the ticket's status change to its status at that time, in the audit
	// trail that burndowns and velocity read. Export leaves it out.
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// CustomFields (additive to version 1, left out when the ticket has
	// none) are its custom values by field key, as the API answers them
	// except a user field's value, which is the user's email: text, url
	// and date as strings, number as a number, checkbox as a boolean,
	// select as the option's name, multi_select as a list of names.
	CustomFields map[string]json.RawMessage `json:"custom_fields,omitempty"`
}

// Link is a link from its ticket to another of the org: Type is blocks,
// duplicates or relates_to; Ticket the other ticket as KEY-NUMBER.
type Link struct {
	Type   string `json:"type"`
	Ticket string `json:"ticket"`
}

// Ref is a ticket's reference in the document: its project key and number.
func Ref(projectKey string, number int) string { return projectKey + "-" + strconv.Itoa(number) }

// Attachment is a file attached to its ticket; UploadedBy is an email.
type Attachment struct {
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	SizeBytes   int64     `json:"size_bytes"`
	StorageKey  string    `json:"storage_key"`
	UploadedBy  string    `json:"uploaded_by"`
	CreatedAt   time.Time `json:"created_at"`
}

// Comment is a comment on its ticket; Parent is the position (from 0) of
// an earlier comment of the same ticket that it answers, or null.
type Comment struct {
	Author string `json:"author"`
	// Content (body) are the comment's own values, copied whole by the
	// walk, the SQLite file and the import.
	commentdb.Content
	Parent    *int      `json:"parent"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TimeEntry is time logged on its ticket (its project is the ticket's).
// User and ApprovedBy are emails. The embedded timeentrydb.Content are the
// entry's own values, copied whole by the walk, the SQLite file and the
// import; Date, its date as text (YYYY-MM-DD), hides Content's from
// encoding/json, so the import checks the text at its path.
type TimeEntry struct {
	User string `json:"user"`
	Date string `json:"date"`
	timeentrydb.Content
	Status     string     `json:"status"`
	ApprovedBy *string    `json:"approved_by"`
	ApprovedAt *time.Time `json:"approved_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	// SourceApprovedBy (additive to version 1, left out when null) is the
	// approver named by the document the entry was imported from, as text:
	// ApprovedBy is then the admin who imported it.
	SourceApprovedBy *string `json:"source_approved_by,omitempty"`
}

// Source names the exporting service and organization; the importer keys
// the tickets it creates by it, so a document imported twice into the same
// organization creates its tickets once.
func Source(orgSlug string) string { return "tracker/" + orgSlug }
