package importer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/period"
	"tracker/domain/exchange/export"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/exchangedb/importdb"
	"tracker/store/timeentrydb"
)

// MaxClosedPaths caps the entries a refused import lists in its 409.
const MaxClosedPaths = 20

// periodsOpen refuses a document that would write a time entry into a
// closed month of the org, as the time-entry routes refuse one: 409 naming
// the month (its close's message and details), then the paths of the
// entries dated in closed months; nothing is recorded. Entries of tickets
// the import would skip as already there (imported from the same source
// before, or the same ticket in its project) write nothing and do not
// count, so a document imported again after a close still completes. The
// batch that writes entries checks their months again under the months'
// locks (batchRun.periodsOpen): a close that lands after this check fails
// the import instead.
func periodsOpen(ctx context.Context, q store.Querier, orgID uuid.UUID, doc export.Document) error {
	// The document's entries by month (year*12 + month): formatting a
	// path or a period for each of a large document's entries would cost
	// more than the check; only the refused ones are named.
	type dated struct {
		p, t, e int // project, ticket, entry
		ticket  int // index in refs
		month   int
	}
	var (
		refs    []importdb.TicketRef
		entries []dated
		months  = map[int]bool{}
	)
	for i, p := range doc.Projects {
		for j, t := range p.Tickets {
			ticket := -1
			for k, e := range t.TimeEntries {
				day, err := time.Parse(time.DateOnly, e.Date)
				if err != nil {
					continue // validation reported it
				}
				if ticket < 0 {
					ref := importdb.TicketRef{ProjectKey: p.Key, Number: t.Number}
					if !t.CreatedAt.IsZero() {
						at := t.CreatedAt
						ref.CreatedAt = &at
					}
					ticket, refs = len(refs), append(refs, ref)
				}
				m := day.Year()*12 + int(day.Month()) - 1
				months[m] = true
				entries = append(entries, dated{i, j, k, ticket, m})
			}
		}
	}
	if len(months) == 0 {
		return nil
	}
	periodOf := map[int]string{}
	names := make([]string, 0, len(months))
	for m := range months {
		periodOf[m] = period.Of(time.Date(m/12, time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC))
		names = append(names, periodOf[m])
	}
	slices.Sort(names)
	closes, err := capexdb.InForceAmong(ctx, q, orgID, names)
	if err != nil || len(closes) == 0 {
		return err
	}
	closed := map[string]capexdb.Close{}
	for _, c := range closes {
		closed[c.Period] = c
	}
	present, err := importdb.Present(ctx, q, orgID, doc.Source, refs)
	if err != nil {
		return err
	}
	var first *capexdb.Close
	var paths []string
	for _, e := range entries {
		per := periodOf[e.month]
		c, ok := closed[per]
		if !ok || present[e.ticket] {
			continue
		}
		if first == nil || c.Period < first.Period {
			first = &c
		}
		if len(paths) < MaxClosedPaths {
			paths = append(paths, fmt.Sprintf("projects[%d].tickets[%d].time_entries[%d]: dated in closed period %s", e.p, e.t, e.e, per))
		}
	}
	if first == nil {
		return nil
	}
	err = period.ClosedError(first.Period, "time entry", first.ClosedAt)
	if first.Status == capexdb.StatusPending {
		err = period.PendingError(first.Period, "time entry")
	}
	var de *domain.Error
	if errors.As(err, &de) {
		de.Details = append(de.Details, paths...)
	}
	return err
}

// periodsOpen takes the shared lock of the month of every entry the batch
// writes (a close waits for the batch) and, when one of them is closed,
// fails the import with the close's message: the batch writes nothing.
func (b *batchRun) periodsOpen(es []timeentrydb.Row) error {
	days := make([]time.Time, 0, len(es))
	for _, e := range es {
		days = append(days, e.Date.Time())
	}
	// One lock order for every batch and close.
	slices.SortFunc(days, func(a, c time.Time) int { return a.Compare(c) })
	err := period.EnsureOpen(b.ctx, b.q, b.row.OrgID, "time entry", days...)
	var de *domain.Error
	if errors.As(err, &de) && de.Kind == domain.KindConflict {
		return permanent("%s", de.Message)
	}
	return err
}

// approval is how an imported entry's approval is recorded: by the
// importing admin, who vouches for it in this org (a document's word cannot
// make anyone an approver here), with the document's approver
// (source_approved_by, else approved_by) kept as text, unless that is the
// importing admin.
func (b *batchRun) approval(e export.TimeEntry) (*uuid.UUID, *string, error) {
	if e.Status != "Approved" {
		return nil, nil, nil
	}
	if b.row.RequestedBy == nil {
		return nil, nil, permanent("the import has no requesting admin to record as the approver of its approved time entries")
	}
	if b.requester == "" {
		email, err := importdb.Email(b.ctx, b.q, *b.row.RequestedBy)
		if err != nil {
			return nil, nil, err
		}
		b.requester = email
	}
	source := e.SourceApprovedBy
	if source == nil {
		source = e.ApprovedBy
	}
	if source != nil && equalEmail(*source, b.requester) {
		source = nil
	}
	by := *b.row.RequestedBy
	return &by, source, nil
}

// equalEmail compares email addresses as the importer matches users: by
// lower case.
func equalEmail(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), b) }
