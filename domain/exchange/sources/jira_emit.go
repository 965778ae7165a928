package sources

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/store/labeldb"
	"tracker/store/sprintdb"
)

// csvProject is what the ticket pass keeps of a target project: its
// sprints (dated by their tickets) and its highest number.
type csvProject struct {
	sprints map[string]*export.Sprint
	dated   map[string]bool // sprints with their own dates (Linear's cycles)
	order   []string
	counter int
	tickets int
}

// emitCSV is the second pass: each row that came in, converted, to emit;
// then the catalog and the report.
func emitCSV(open Opener, m Mapping, t Target, d dialect, ix *csvIndex, probs *problems, emit Emit) (Converted, error) {
	rep := newReport(d.format)
	sm := newStatusMapper(m, t)
	ppl := newPeople(m, t)
	fallback := func() string { ppl.note(strings.ToLower(t.ImporterEmail), ""); return strings.ToLower(t.ImporterEmail) }
	unresolvedSeen := map[string]bool{}
	person := func(r *jiraRow, name, id, col, role string) (string, bool) {
		e, ok := ppl.resolve(name, id)
		if !ok {
			who := name
			if who == "" {
				who = id
			}
			if !unresolvedSeen[who] {
				unresolvedSeen[who] = true
				probs.add(Problem{Row: r.row, Column: col, Message: fmt.Sprintf("%s %s has no email: name them in mapping.users; %s", role, quote(who), map[string]string{"assignee": "left unassigned", "reporter": "the importer reports instead", "comment author": "the importer writes instead"}[role])})
			}
		}
		return e, ok
	}
	labels := map[string]bool{}
	projects := map[string]*csvProject{}
	for _, k := range ix.order {
		projects[k] = &csvProject{sprints: map[string]*export.Sprint{}, dated: map[string]bool{}}
	}
	var sum Summary
	jh, err := rowsIn(open, m, d, true, func(r *jiraRow, _ *csvFile, jh jiraHeader) error {
		e, ok := ix.rows[r.key]
		if !ok || e.row != r.row {
			return nil // skipped by the index pass, which said why
		}
		r.number = e.number
		tk, ok := jiraTicket(r, m, t, sm, &rep, probs)
		if strings.HasPrefix(r.key, "#") {
			tk.ExternalKey = nil // a generic CSV's row without a key
		}
		if !ok {
			return nil
		}
		p := projects[e.target]
		if e, ok := person(r, r.reporter, r.reporterID, jh.colName("reporter"), "reporter"); ok && e != "" {
			tk.Reporter = e
		} else {
			tk.Reporter = fallback()
		}
		if e, _ := person(r, r.assignee, r.assigneeID, jh.colName("assignee"), "assignee"); e != "" {
			tk.Assignee = &e
		}
		for _, l := range r.labels {
			for _, name := range labelNames(l, d) {
				if !contains(tk.Labels, name) {
					tk.Labels = append(tk.Labels, name)
					labels[name] = true
				}
			}
		}
		if name := sprintName(r); name != "" {
			p.sprint(&tk, name, r, m, sm)
		}
		for i, c := range r.comments {
			cm, ok := jiraComment(c, m)
			if !ok {
				probs.add(Problem{Row: r.row, Column: r.commentsCol, Message: fmt.Sprintf("comment %d is not date;author;body; it is skipped", i+1)})
				continue
			}
			if e, ok := person(r, cm.Author, "", r.commentsCol, "comment author"); ok && e != "" {
				cm.Author = e
			} else {
				cm.Author = fallback()
			}
			tk.Comments = append(tk.Comments, cm)
		}
		sum.Comments += len(tk.Comments)
		for key, v := range r.custom {
			if len(v) > customfield.MaxText {
				probs.add(Problem{Row: r.row, Column: jh.customCol(key), Message: fmt.Sprintf("custom field %s: over %d characters; left out", key, customfield.MaxText)})
				continue
			}
			if tk.CustomFields == nil {
				tk.CustomFields = map[string]json.RawMessage{}
			}
			b, _ := json.Marshal(v)
			tk.CustomFields[key] = b
		}
		if ix.parent(r, &tk, jh, probs) {
			sum.Parents++
		}
		nk, _ := ix.newKey(r.key)
		tk.Links = ix.links[nk]
		delete(ix.links, nk)
		p.tickets++
		p.counter = max(p.counter, tk.Number)
		return emit(e.target, tk)
	})
	if err != nil {
		return Converted{}, err
	}
	doc := newDocument(t)
	for _, k := range ix.order {
		st := projects[k]
		p := export.Project{Key: k, Name: ix.names[k], CreatedAt: t.Now, UpdatedAt: t.Now, Members: []string{},
			Sprints: []export.Sprint{}, Tickets: []export.Ticket{}, TicketCounter: st.counter}
		if p.Name == "" {
			p.Name = k
		}
		for _, name := range st.order {
			p.Sprints = append(p.Sprints, *st.sprints[name])
		}
		sum.Sprints += len(st.order)
		sum.Tickets += st.tickets
		doc.Projects = append(doc.Projects, p)
	}
	rep.Fields = jh.fields
	for _, key := range sortedKeys(jh.custom) {
		doc.Fields = append(doc.Fields, export.CustomField{Key: key, Name: jh.customCol(key), Type: customfield.Text,
			Options: []export.CustomFieldOption{}, Projects: ix.order})
	}
	for _, name := range sortedKeys(labels) {
		doc.Labels = append(doc.Labels, export.Label{Content: labeldb.Content{Name: name, Color: "#64748b"}})
	}
	sum.Labels = len(labels)
	sum.Links = ix.nLink
	users, matched, invited := ppl.documentUsers(t.ImporterEmail)
	doc.Users = append(doc.Users, users...)
	sum.UsersMatched, sum.UsersInvited = matched, invited
	sum.UsersUnresolved = len(ppl.unresolved)
	keys := make([]string, len(ix.order))
	copy(keys, ix.order)
	sort.Strings(keys)
	doc.Source = d.format + "/" + strings.Join(keys, ",")
	rep.Summary = sum
	rep.Problems = probs.done()
	return Converted{Catalog: doc, Report: rep}, nil
}

// sprint puts the ticket in the named sprint, which spans its tickets'
// dates and is active while any of them is open.
func (p *csvProject) sprint(tk *export.Ticket, name string, r *jiraRow, m Mapping, sm statusMapper) {
	tk.Sprint = &name
	s, ok := p.sprints[name]
	if !ok {
		s = &export.Sprint{Content: sprintdb.Content{Name: name}, Status: "Completed", CreatedAt: tk.CreatedAt, UpdatedAt: tk.UpdatedAt}
		s.StartDate, s.EndDate = tk.CreatedAt.Format("2006-01-02"), tk.UpdatedAt.Format("2006-01-02")
		if start, end, ok := cycleDates(r, m); ok {
			s.StartDate, s.EndDate = start, end
			p.dated[name] = true
		}
		p.sprints[name] = s
		p.order = append(p.order, name)
	}
	if d := tk.CreatedAt.Format("2006-01-02"); d < s.StartDate && !p.dated[name] {
		s.StartDate = d
	}
	if d := tk.UpdatedAt.Format("2006-01-02"); d > s.EndDate && !p.dated[name] {
		s.EndDate = d
	}
	if tk.CreatedAt.Before(s.CreatedAt) {
		s.CreatedAt = tk.CreatedAt
	}
	if sm.categoryOf(tk.Status) != "done" && sm.categoryOf(tk.Status) != "cancelled" {
		s.Status = "Active"
	}
}

// parent sets the ticket's parent (Jira's Parent id or key, else its epic
// link) when it is in the file; true when it did.
func (ix *csvIndex) parent(r *jiraRow, tk *export.Ticket, jh jiraHeader, probs *problems) bool {
	parent := r.parentKey
	if parent == "" && r.parent != "" {
		if k, ok := ix.ids[r.parent]; ok {
			parent = k
		} else if _, ok := ix.rows[r.parent]; ok {
			parent = r.parent
		} else if issueKey.MatchString(strings.ToUpper(r.parent)) {
			parent = strings.ToUpper(r.parent)
		} else {
			probs.add(Problem{Row: r.row, Column: jh.colName("parent"), Message: "parent " + r.parent + " is not in the file; the issue comes in without it"})
		}
	}
	if parent == "" {
		parent = r.epic
	}
	if parent == "" {
		return false
	}
	nk, ok := ix.newKey(parent)
	if !ok {
		probs.add(Problem{Row: r.row, Column: jh.colName("parent"), Message: "parent " + parent + " is not in the file; the issue comes in without it"})
		return false
	}
	if parent == r.key {
		return false
	}
	tk.Parent = &nk
	return true
}

func (sm statusMapper) categoryOf(status string) string {
	for c, first := range sm.first {
		if first == status {
			return c
		}
	}
	for _, s := range sm.statuses {
		if s.Name == status {
			return s.Category
		}
	}
	return ""
}

func ptrInt(n int) *int { return &n }

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
