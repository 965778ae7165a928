package importer

import (
	"fmt"
	"strconv"
	"strings"

	"tracker/domain"
	"tracker/domain/comment"
	"tracker/domain/exchange/export"
	"tracker/domain/sprint"
	"tracker/domain/ticket"
	"tracker/domain/timeentry"
	"tracker/store/ticketdb"
)

// project checks a project and everything inside it.
func (c *checker) project(path string, p export.Project) {
	c.checkProjectFields(path, p)
	var statuses map[string]bool // nil: any status (no workflow, or one of the org's)
	if p.Workflow != nil {
		if s, ok := c.docWF[*p.Workflow]; ok {
			statuses = s
		} else {
			c.wfs[*p.Workflow] = append(c.wfs[*p.Workflow], path+".workflow")
		}
	}
	for i, m := range p.Members {
		c.email(fmt.Sprintf("%s.members[%d]", path, i), m)
	}
	if p.Team != nil && !c.teams[strings.ToLower(*p.Team)] {
		c.add(path+".team", "must be the name of a team in teams")
	}
	sprints := map[string]bool{}
	for i, s := range p.Sprints {
		sp := fmt.Sprintf("%s.sprints[%d]", path, i)
		c.date(sp+".start_date", s.StartDate)
		c.date(sp+".end_date", s.EndDate)
		c.rules(sp, func(p *domain.Problems) { sprint.CheckContent(p, sprintContent(s)) })
		if strings.TrimSpace(s.Name) != "" && sprints[s.Name] {
			c.add(sp+".name", "duplicate sprint name in the project")
		}
		sprints[s.Name] = true
		c.oneOf(sp+".status", s.Status, sprintStatuses)
	}
	if p.Tickets == nil {
		c.add(path+".tickets", "required")
	}
	numbers := map[int]int{}
	for i, t := range p.Tickets {
		tp := fmt.Sprintf("%s.tickets[%d]", path, i)
		if t.Number < 1 {
			c.add(tp+".number", "must be at least 1")
		} else if prev, dup := numbers[t.Number]; dup {
			c.add(tp+".number", fmt.Sprintf("duplicate ticket number in the project (also tickets[%d])", prev))
		}
		numbers[t.Number] = i
		c.ticket(tp, p.Key, t, statuses, sprints)
	}
}

func (c *checker) ticket(path, key string, t export.Ticket, statuses, sprints map[string]bool) {
	c.rules(path, func(p *domain.Problems) { ticket.CheckImported(p, t.Content) })
	if c.required(path+".status", t.Status) && statuses != nil && !statuses[t.Status] {
		c.add(path+".status", "must be a status of the project's workflow")
	}
	if t.Priority != "" {
		if _, ok := ticket.ParsePriority(t.Priority); !ok {
			c.add(path+".priority", "must be one of "+strings.Join(ticket.Priorities, ", "))
		}
	}
	c.email(path+".reporter", t.Reporter)
	c.optEmail(path+".assignee", t.Assignee)
	c.length(path+".external_key", t.ExternalKey, 1, 255)
	c.length(path+".external_url", t.ExternalURL, 1, 2048)
	if t.Sprint != nil && !sprints[*t.Sprint] {
		c.add(path+".sprint", "must be the name of a sprint of the project")
	}
	c.customValues(path, t.CustomFields)
	for i, l := range t.Labels {
		if !c.labels[strings.ToLower(l)] {
			c.add(fmt.Sprintf("%s.labels[%d]", path, i), "must be the name of a label in labels")
		}
	}
	if len(t.Comments) > MaxCommentsPerTicket {
		c.add(path+".comments", fmt.Sprintf("ticket %s has %d comments; at most %d per ticket",
			ticket.FormatRef(strings.ToUpper(key), int64(t.Number)), len(t.Comments), MaxCommentsPerTicket))
		t.Comments = nil // not checked one by one
	}
	for i, cm := range t.Comments {
		cp := fmt.Sprintf("%s.comments[%d]", path, i)
		c.email(cp+".author", cm.Author)
		c.rules(cp, func(p *domain.Problems) { comment.CheckContent(p, domain.Filled(cm.Content, "body")) })
		if cm.Parent != nil && (*cm.Parent < 0 || *cm.Parent >= i) {
			c.add(cp+".parent", "must be the position of an earlier comment of the ticket")
		}
	}
	for i, e := range t.TimeEntries {
		c.timeEntry(fmt.Sprintf("%s.time_entries[%d]", path, i), e)
	}
	c.relations(path, key, t)
}

// relations checks a ticket's parent and links: references KEY-NUMBER,
// never the ticket itself, links of the stored types, at most
// ticketdb.MaxLinks. The other tickets need not be in the document (a
// project's export names tickets of other projects): the import links
// what it can find and leaves out the rest.
func (c *checker) relations(path, key string, t export.Ticket) {
	self := strings.ToUpper(key) + "-" + strconv.Itoa(t.Number)
	ref := func(p, v string) bool {
		k, n, ok := ticket.ParseRef(v)
		if !ok || k == "" {
			c.add(p, "must be a ticket reference KEY-NUMBER")
			return false
		}
		if ticket.FormatRef(k, n) == self {
			c.add(p, "must name another ticket, not the ticket itself")
			return false
		}
		return true
	}
	if t.Parent != nil {
		ref(path+".parent", *t.Parent)
	}
	if len(t.Links) > ticketdb.MaxLinks {
		c.add(path+".links", fmt.Sprintf("at most %d links", ticketdb.MaxLinks))
		return
	}
	for i, l := range t.Links {
		lp := fmt.Sprintf("%s.links[%d]", path, i)
		c.oneOf(lp+".type", l.Type, linkTypes)
		ref(lp+".ticket", l.Ticket)
	}
}

// linkTypes are the stored directions of links (blocked_by and
// duplicated_by are the other end of blocks and duplicates).
var linkTypes = []string{ticket.LinkBlocks, ticket.LinkDuplicates, ticket.LinkRelatesTo}

func (c *checker) timeEntry(path string, e export.TimeEntry) {
	c.email(path+".user", e.User)
	c.date(path+".date", e.Date)
	c.rules(path, func(p *domain.Problems) {
		timeentry.CheckMinutes(p, e.DurationMinutes)
		timeentry.CheckActivity(p, e.ActivityType)
	})
	c.oneOf(path+".status", e.Status, entryStatuses)
	if e.Status == "Approved" {
		if e.ApprovedBy == nil {
			c.add(path+".approved_by", "required for an Approved entry")
		}
		if e.ApprovedAt == nil {
			c.add(path+".approved_at", "required for an Approved entry")
		}
	} else {
		if e.ApprovedBy != nil || e.ApprovedAt != nil {
			c.add(path+".approved_by", "must be null unless the entry is Approved")
		}
		if e.SourceApprovedBy != nil {
			c.add(path+".source_approved_by", "must be null unless the entry is Approved")
		}
	}
	// The approvers are text: the import records the approval as the
	// importing admin's.
	c.length(path+".approved_by", e.ApprovedBy, 1, MaxApprover)
	c.length(path+".source_approved_by", e.SourceApprovedBy, 1, MaxApprover)
}

// MaxApprover caps the text of a document's approver (an email address's
// length, as the column time_entries.source_approved_by).
const MaxApprover = 320
