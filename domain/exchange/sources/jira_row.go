package sources

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/internal/civil"
	"tracker/store/commentdb"
	"tracker/store/ticketdb"
)

// jiraTicket reads a row's own values; false when the row is skipped.
func jiraTicket(r *jiraRow, m Mapping, t Target, sm statusMapper, rep *Report, probs *problems) (export.Ticket, bool) {
	ext := r.key
	tk := export.Ticket{Number: r.number, Labels: []string{}, Comments: []export.Comment{}, TimeEntries: []export.TimeEntry{},
		ExternalKey: &ext}
	created, ok := parseDate(r.created, m.DateFormat)
	if !ok {
		if r.created == "" {
			created = t.Now
		} else {
			probs.add(Problem{Row: r.row, Column: r.createdCol, Message: "unparsable date " + quote(r.created) + "; the row is skipped (set mapping.date_format)"})
			return tk, false
		}
	}
	tk.CreatedAt = created
	tk.UpdatedAt = created
	if r.updated != "" {
		if u, ok := parseDate(r.updated, m.DateFormat); ok && !u.Before(created) {
			tk.UpdatedAt = u
		} else if !ok {
			probs.add(Problem{Row: r.row, Column: r.updatedCol, Message: "unparsable date " + quote(r.updated) + "; the creation date stands"})
		}
	}
	st, why := sm.target(r.status, r.cat)
	if _, seen := rep.Statuses[r.status]; !seen || rep.Statuses[r.status] == nil {
		if st == "" {
			rep.Statuses[r.status] = nil
		} else {
			rep.Statuses[r.status] = strPtr(st)
		}
	}
	if st == "" {
		probs.add(Problem{Row: r.row, Column: "Status", Message: why + "; the row is skipped"})
		return tk, false
	}
	prio, ok := mapPriority(m, r.prio)
	if ok {
		rep.Priorities[r.prio] = strPtr(prio)
	} else {
		rep.Priorities[r.prio] = nil
		probs.add(Problem{Row: r.row, Column: "Priority", Message: "priority " + quote(r.prio) + " has no target: name it in mapping.priorities; None instead"})
		prio = "None"
	}
	tk.ResolvedAt = resolvedAt(r, m, created, sm.categoryOf(st), probs)
	tk.Content = ticketdb.Content{Title: r.title, Status: st, Priority: prio}
	tk.Title, _ = clip(tk.Title, 500)
	if strings.TrimSpace(r.desc) != "" {
		d, cut := clip(r.desc, domain.MaxFreeText)
		if cut {
			probs.add(Problem{Row: r.row, Column: "Description", Message: fmt.Sprintf("over %d characters; cut", domain.MaxFreeText)})
		}
		tk.Description = &d
	}
	if r.due != "" {
		if d, ok := parseDate(r.due, m.DateFormat); ok {
			cd, err := civil.ParseDate(d.Format("2006-01-02"))
			if err == nil {
				tk.DueDate = &cd
			}
		} else {
			probs.add(Problem{Row: r.row, Column: r.dueCol, Message: "unparsable date " + quote(r.due) + "; no due date"})
		}
	}
	if r.est != "" {
		if v, err := civil.ParseDecimal(strings.TrimSuffix(strings.TrimSuffix(r.est, ".0"), ".00")); err == nil {
			tk.Estimate = &v
		} else {
			probs.add(Problem{Row: r.row, Column: r.estCol, Message: "estimate " + quote(r.est) + " is not a number; no estimate"})
		}
	}
	return tk, true
}

// jiraComment reads Jira's "date;author;body" comment cell.
func jiraComment(c string, m Mapping) (export.Comment, bool) {
	parts := strings.SplitN(c, ";", 3)
	if len(parts) != 3 {
		return export.Comment{}, false
	}
	at, ok := parseDate(parts[0], m.DateFormat)
	body := strings.TrimSpace(parts[2])
	if !ok || body == "" {
		return export.Comment{}, false
	}
	body, _ = clip(body, domain.MaxFreeText)
	return export.Comment{Author: strings.TrimSpace(parts[1]), Content: commentdb.Content{Body: body}, CreatedAt: at, UpdatedAt: at}, true
}

// labelNames splits a labels cell: Jira writes one label a column (a label
// has no spaces); a generic CSV may list several, separated by commas or
// semicolons.
func labelNames(cell string, d dialect) []string {
	if !d.splitLabels {
		return strings.Fields(cell)
	}
	var out []string
	for _, l := range strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ';' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

var trailingDigits = regexp.MustCompile(`([0-9]{1,9})$`)

// trailingNumber is the number a key ends with, 0 for none.
func trailingNumber(key string) int {
	m := trailingDigits.FindString(key)
	n, _ := strconv.Atoi(m)
	return n
}

// resolvedAt is when a done or cancelled issue was resolved: Jira's
// "Resolved", Linear's "Completed", else its "Canceled". An issue in an
// open status has none (Jira keeps the date of a reopened issue's old
// resolution), nor has one whose date comes before its creation.
func resolvedAt(r *jiraRow, m Mapping, created time.Time, category string, probs *problems) *time.Time {
	s, col := r.resolved, r.resolvedCol
	if s == "" {
		s, col = r.canceled, r.canceledCol
	}
	if s == "" || (category != "done" && category != "cancelled") {
		return nil
	}
	at, ok := parseDate(s, m.DateFormat)
	if !ok {
		probs.add(Problem{Row: r.row, Column: col, Message: "unparsable date " + quote(s) + "; no resolution date"})
		return nil
	}
	if at.Before(created) {
		return nil
	}
	return &at
}

// categoryFromDates is the status category of a Linear issue, whose export
// names no category: cancelled, done or in progress by the date it
// reached one, else to do (Triage, Backlog, Todo).
func categoryFromDates(r *jiraRow) string {
	switch {
	case r.canceled != "":
		return "canceled"
	case r.resolved != "":
		return "completed"
	case r.started != "":
		return "started"
	}
	return "todo"
}

// sprintName is the row's sprint: Jira's last Sprint cell, Linear's cycle
// name, else "Cycle <number>".
func sprintName(r *jiraRow) string {
	if n := len(r.sprints); n > 0 {
		if name := strings.TrimSpace(r.sprints[n-1]); name != "" {
			return name
		}
	}
	if r.sprintNumber != "" {
		return "Cycle " + r.sprintNumber
	}
	return ""
}

// cycleDates are a Linear cycle's start and end days, when both read and
// the end is not before the start.
func cycleDates(r *jiraRow, m Mapping) (string, string, bool) {
	start, ok1 := parseDate(r.sprintStart, m.DateFormat)
	end, ok2 := parseDate(r.sprintEnd, m.DateFormat)
	if !ok1 || !ok2 || end.Before(start) {
		return "", "", false
	}
	return start.Format("2006-01-02"), end.Format("2006-01-02"), true
}
