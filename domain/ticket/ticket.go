// Package ticket holds the use cases of tickets: create, read, list, resolve,
// update and transition under the workflow's enforcement, delete, the batch
// operations and the activity feed. Every change writes its audit row and its
// outbox events in the change's own transaction.
package ticket

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Service runs the ticket use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock

	rules rulesCache
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Clock is the service's clock (other features built on it share it).
func (s *Service) Clock() domain.Clock { return s.clock }

// MaxBatch is the most ticket ids one batch call takes.
const MaxBatch = 500

// DefaultStatus is the status of a new ticket when none is given.
const DefaultStatus = "Backlog"

// Audit actions on a ticket's trail.
const (
	ActionCreated       = "created"
	ActionUpdated       = "updated"
	ActionStatusChanged = "status_changed"
	ActionDeleted       = "deleted"
)

// Priorities in rising order; None is the default.
var Priorities = ticketdb.Priorities

// Ticket is a ticket as the API renders it. Its JSON is its fields' `json`
// tags, encoded by AppendJSON, which go generate writes from them
// (json_gen.go); the embedded ticketdb.Content are the values it shares with
// the row, the export document and the import.
type Ticket struct {
	ID           uuid.UUID `json:"id"`
	ProjectID    uuid.UUID `json:"project_id"`
	TicketNumber int32     `json:"ticket_number"`
	ticketdb.Content
	AssigneeID *uuid.UUID `json:"assignee_id"`
	ReporterID uuid.UUID  `json:"reporter_id"`
	SprintID   *uuid.UUID `json:"sprint_id"`
	ParentID   *uuid.UUID `json:"parent_id"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	// ExternalKey and ExternalURL name an imported ticket in the tracker it
	// came from (null for one born here).
	ExternalKey *string `json:"external_key"`
	ExternalURL *string `json:"external_url"`
	// CustomFields are the ticket's custom values by field key ({} when
	// none): the row's rendered copy (ticketdb.CustomFields), handed
	// through as it is stored.
	CustomFields ticketdb.CustomFields `json:"custom_fields"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
	// Watching is whether the caller watches the ticket: set by Get and
	// Update (a transition too), the API adds it to those answers and
	// varies their ETag by it (lists and events have no caller).
	Watching *bool `json:"-"`
}

// RowVersion is the ticket's ETag version (domain.Versioned).
func (t Ticket) RowVersion() int64 { return t.Version }

// FromRow renders a tickets row as the API's Ticket, custom values
// included (the row's rendered copy).
func FromRow(r ticketdb.Row) Ticket { return toTicket(r) }

func toTicket(r ticketdb.Row) Ticket {
	return Ticket{ID: r.ID, ProjectID: r.ProjectID, TicketNumber: r.TicketNumber, Content: r.Content, AssigneeID: r.AssigneeID,
		ReporterID: r.ReporterID, SprintID: r.SprintID, ParentID: r.ParentID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ExternalKey: r.ExternalKey, ExternalURL: r.ExternalURL, Version: r.RowVersion, CustomFields: r.CustomFields}
}

// Result is a changed ticket and, under warn enforcement for an unlisted
// move, the warning the API adds to the response.
type Result struct {
	Ticket  Ticket
	Warning string
}

// Content are a ticket's own values (ticketdb.Content): what a create sets
// and a patch changes, field by field (domain.Patch).
type Content = ticketdb.Content

// checkContent applies the rules of a ticket's own values to those the
// patch sets (a new ticket's too, as domain.Filled) and spells the priority
// as canonical. A field without a rule needs no line here.
func checkContent(pt *domain.Patch[Content]) error {
	var probs domain.Problems
	if pt.Null("title") {
		probs.Add("title", "must not be null")
	} else if pt.Has("title") {
		CheckTitle(&probs, pt.Value.Title)
	}
	if pt.Has("status") && (pt.Null("status") || pt.Value.Status == "") {
		probs.Add("status", "must be a status of the project's workflow")
	}
	if pt.Has("priority") {
		pr, ok := ParsePriority(pt.Value.Priority)
		if pt.Null("priority") || !ok {
			probs.Add("priority", "must be one of "+prioritiesList)
		}
		pt.Value.Priority = pr
	}
	checkValues(&probs, pt.Value)
	return probs.Err()
}

// CheckImported holds an imported document's ticket to the rules of a
// request's own values that need neither its workflow nor a patch: the
// importer's one call, so a rule added to checkValues reaches imports too.
func CheckImported(p *domain.Problems, c Content) {
	CheckTitle(p, c.Title)
	checkValues(p, c)
}

// checkValues holds the values whose rule reads only the value itself (an
// absent one passes), a request's and an imported document's alike.
func checkValues(p *domain.Problems, c Content) {
	CheckEstimate(p, c.Estimate)
}

// MaxEstimate is the largest estimate, in either unit: far past any real one,
// well inside the column's numeric(12,2).
const MaxEstimate = civil.Decimal(1_000_000_00)

// CheckEstimate holds an estimate, when there is one, to 0-1,000,000 (the
// decoder has refused more than two decimals).
func CheckEstimate(p *domain.Problems, e *civil.Decimal) {
	switch {
	case e == nil:
	case *e < 0:
		p.Add("estimate", "must be at least 0")
	case *e > MaxEstimate:
		p.Add("estimate", "must be at most 1000000")
	}
}

// CheckTitle applies the spec's 1-500 characters (blank is empty): to a
// request and to an imported document's ticket alike.
func CheckTitle(p *domain.Problems, title string) {
	if strings.TrimSpace(title) == "" || utf8.RuneCountInString(title) > 500 {
		p.Add("title", "must be 1-500 characters")
	}
}

// ParsePriority reads a priority in any case and returns its canonical name.
func ParsePriority(s string) (string, bool) {
	for _, v := range Priorities {
		if strings.EqualFold(v, s) {
			return v, true
		}
	}
	return "", false
}

const prioritiesList = "None, Low, Medium, High, Critical"

// initialStatus is the status of a new ticket: the one asked for (as the
// workflow spells it), else Backlog, else the workflow's first status when it
// has no Backlog.
func initialStatus(r statusflow.Rules, asked string) (string, error) {
	if asked == "" {
		if st, ok := r.Status(DefaultStatus); ok {
			return st.Name, nil
		}
		if len(r.Statuses) > 0 {
			return r.Statuses[0].Name, nil
		}
		return "", domain.Invalidf("workflow %s defines no status", r.Name)
	}
	st, ok := r.Status(asked)
	if !ok {
		return "", domain.Invalid("status: " + quote(asked) + " is not a status of workflow " + quote(r.Name))
	}
	return st.Name, nil
}

func quote(s string) string { return `"` + s + `"` }
