// Package timeentry holds the use cases of time entries: logging time on a
// ticket, editing it while it is a Draft or Submitted, and the
// Draft → Submitted → Approved moves. Approved entries are immutable: they
// are the financial records the capitalization report prices.
package timeentry

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/civil"
	"tracker/store/timeentrydb"
)

// Statuses of a time entry.
const (
	StatusDraft     = "Draft"
	StatusSubmitted = "Submitted"
	StatusApproved  = "Approved"
)

// ActivityTypes are the spec's eight activity types.
var ActivityTypes = []string{"Coding", "CodeReview", "BugFixing", "Testing", "Documentation", "Design", "Meeting", "Planning"}

// Limits of one entry.
const (
	MinMinutes = 1
	MaxMinutes = 1440 // one day
	// FutureDays is how far ahead of today (UTC) an entry may be dated.
	FutureDays = 1
)

// DateLayout is how dates travel in the API.
const DateLayout = "2006-01-02"

// Entry is a time entry as the API renders it.
type Entry struct {
	ID        uuid.UUID `json:"id"`
	UserID    uuid.UUID `json:"user_id"`
	TicketID  uuid.UUID `json:"ticket_id"`
	ProjectID uuid.UUID `json:"project_id"`
	Content
	Status     string     `json:"status"`
	ApprovedBy *uuid.UUID `json:"approved_by"`
	ApprovedAt *time.Time `json:"approved_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	// SourceApprovedBy is the approver an imported document named, as text:
	// an import records the approval as the importing admin's (ApprovedBy).
	SourceApprovedBy *string `json:"source_approved_by"`
	// RejectionReason is why an Admin rejected the entry (back to Draft),
	// until it is submitted again.
	RejectionReason *string `json:"rejection_reason"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the entry's ETag version (domain.Versioned).
func (e Entry) RowVersion() int64 { return e.Version }

func toEntry(r timeentrydb.Row) Entry {
	e := Entry{
		ID: r.ID, UserID: r.UserID, TicketID: r.TicketID, ProjectID: r.ProjectID,
		Content: r.Content, Status: r.Status, ApprovedBy: r.ApprovedBy,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), SourceApprovedBy: r.SourceApprovedBy, RejectionReason: r.RejectionReason, Version: r.RowVersion,
	}
	if r.ApprovedAt != nil {
		t := r.ApprovedAt.UTC()
		e.ApprovedAt = &t
	}
	return e
}

// ParseDate reads a YYYY-MM-DD date as midnight UTC.
func ParseDate(s string) (time.Time, bool) {
	d, err := time.Parse(DateLayout, strings.TrimSpace(s))
	return d, err == nil
}

// ValidActivity reports whether s is one of the eight activity types.
func ValidActivity(s string) bool { return slices.Contains(ActivityTypes, s) }

// Content are a time entry's own values (timeentrydb.Content): what a create
// sets and a patch changes, field by field (domain.Patch).
type Content = timeentrydb.Content

// checkContent applies the rules of an entry's own values to those the patch
// sets (a new entry's too, as domain.Filled), reading the date from date, the
// text the request sent, into the patch's value. A field without a rule
// needs no line here.
func checkContent(pt *domain.Patch[Content], date string, now time.Time) error {
	var probs domain.Problems
	set := func(key string) bool {
		if pt.Null(key) {
			probs.Add(key, "must not be null")
		}
		return pt.Has(key) && !pt.Null(key)
	}
	if set("date") {
		pt.Value.Date = checkDate(&probs, date, now)
	}
	if set("duration_minutes") {
		CheckMinutes(&probs, pt.Value.DurationMinutes)
	}
	if set("activity_type") {
		CheckActivity(&probs, pt.Value.ActivityType)
	}
	return probs.Err()
}

// checkDate adds the problems of an entry date relative to now.
func checkDate(p *domain.Problems, s string, now time.Time) civil.Date {
	d, ok := ParseDate(s)
	if !ok {
		p.Add("date", "must be a date in the form YYYY-MM-DD")
	} else if d.After(now.UTC().Truncate(24*time.Hour).AddDate(0, 0, FutureDays)) {
		p.Add("date", "must not be more than 1 day in the future")
	}
	return civil.DateOf(d)
}

// CheckMinutes is the 1-1440 minutes of one entry (a request's or an
// imported one's).
func CheckMinutes(p *domain.Problems, m int) {
	if m < MinMinutes || m > MaxMinutes {
		p.Add("duration_minutes", "must be between 1 and 1440")
	}
}

// CheckActivity is one of the eight activity types.
func CheckActivity(p *domain.Problems, s string) {
	if !ValidActivity(s) {
		p.Add("activity_type", "must be one of "+strings.Join(ActivityTypes, ", "))
	}
}

// stateConflict is the 409 of a move or edit the entry's state forbids; it
// names the current state.
func stateConflict(current, msg string) error {
	return domain.Conflict("time entry is "+current+": "+msg, "status: "+current)
}
