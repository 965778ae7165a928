package sources

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/store/labeldb"
	"tracker/store/sprintdb"
)

// Jira converts a Jira "Export CSV (all fields)" file.
func Jira(in io.Reader, m Mapping, t Target) (Result, error) {
	return convertCSV(in, m, t, dialect{format: "jira_csv"})
}

// Linear converts Linear's CSV export: its issue ids (ENG-7) are keys
// like Jira's, the team key their project; labels are listed in one cell,
// the cycle is the sprint.
func Linear(in io.Reader, m Mapping, t Target) (Result, error) {
	return convertCSV(in, m, t, dialect{format: "linear_csv", columns: linearColumns, splitLabels: true,
		linkColumns: linearLinks, custom: linearCustom, categoryFromDates: true})
}

// CSV converts any CSV file by its mapping: mapping.columns names the
// column of each field (title required; external_key, when named, keeps
// re-runs from duplicating and links parents), project_key is required.
func CSV(in io.Reader, m Mapping, t Target) (Result, error) {
	if t.ProjectKey == "" {
		return Result{}, domain.Invalid("project_key: required for csv")
	}
	if len(m.Columns) == 0 {
		return Result{}, domain.Invalid("mapping.columns: required for csv (at least title)")
	}
	return convertCSV(in, m, t, dialect{format: "csv", generic: true, splitLabels: true})
}

func convertCSV(in io.Reader, m Mapping, t Target, d dialect) (Result, error) {
	f, err := openCSV(in)
	if err != nil {
		return Result{}, err
	}
	jh, err := readJiraHeader(f.Header, m, d)
	if err != nil {
		return Result{}, err
	}
	rep := newReport(d.format)
	rep.Fields = jh.fields
	var probs problems
	var rows []*jiraRow
	seen := map[string]int{}
	for {
		rec, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		r := &jiraRow{row: f.row, key: strings.ToUpper(jh.get(rec, "external_key")), id: jh.get(rec, "id"),
			project: strings.ToUpper(jh.get(rec, "project_key")), projectNm: jh.get(rec, "project_name"),
			title: jh.get(rec, "title"), status: jh.get(rec, "status"), cat: jh.get(rec, "status_category"),
			prio: jh.get(rec, "priority"), assignee: jh.get(rec, "assignee"), assigneeID: jh.get(rec, "assignee_id"),
			reporter: jh.get(rec, "reporter"), reporterID: jh.get(rec, "reporter_id"), created: jh.get(rec, "created_at"),
			updated: jh.get(rec, "updated_at"), due: jh.get(rec, "due_date"), est: jh.get(rec, "estimate"),
			resolved: jh.get(rec, "resolved_at"), canceled: jh.get(rec, "canceled_at"), started: jh.get(rec, "started_at"),
			sprintNumber: jh.get(rec, "sprint_number"), sprintStart: jh.get(rec, "sprint_start"), sprintEnd: jh.get(rec, "sprint_end"),
			resolvedCol: jh.col(f.Header, "resolved_at"), canceledCol: jh.col(f.Header, "canceled_at"),
			parent: jh.get(rec, "parent"), parentKey: strings.ToUpper(jh.get(rec, "parent_key")), epic: strings.ToUpper(jh.get(rec, "epic_link")),
			labels: jh.all(rec, "labels"), sprints: jh.all(rec, "sprint"), comments: jh.all(rec, "comments"),
			createdCol: jh.col(f.Header, "created_at"), updatedCol: jh.col(f.Header, "updated_at"), dueCol: jh.col(f.Header, "due_date"),
			estCol: jh.col(f.Header, "estimate"), commentsCol: jh.col(f.Header, "comments")}
		if i, ok := jh.single["description"]; ok && i < len(rec) {
			r.desc = strings.Clone(rec[i])
		}
		for key, i := range jh.custom {
			if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
				if r.custom == nil {
					r.custom = map[string]string{}
				}
				r.custom[key] = strings.Clone(strings.TrimSpace(rec[i]))
			}
		}
		for i, l := range jh.links {
			if i >= len(rec) {
				continue
			}
			// A Jira cell names one issue, a Linear cell several.
			for _, other := range strings.Split(rec[i], ",") {
				if other = strings.TrimSpace(other); other != "" {
					l.other = strings.ToUpper(strings.Clone(other))
					r.links = append(r.links, l)
				}
			}
		}
		if d.categoryFromDates && r.cat == "" {
			r.cat = categoryFromDates(r)
		}
		if d.generic {
			if i, ok := jh.single["external_key"]; ok && i < len(rec) {
				r.key = strings.Clone(strings.TrimSpace(rec[i]))
			}
			if r.key == "" {
				r.key = "#" + strconv.Itoa(r.row)
			}
			// The number a key ends with (PROJ-123, #45; a row without a
			// key: its row), else the row's position.
			r.project, r.number = "", trailingNumber(r.key)
			if r.number == 0 {
				r.number = len(rows) + 1
			}
			if r.title == "" {
				probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "title"), Message: "empty title; the row is skipped"})
				continue
			}
			if first, dup := seen[r.key]; dup {
				probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "external_key"), Message: fmt.Sprintf("%s is also row %d; the later row is skipped", r.key, first)})
				continue
			}
			seen[r.key] = r.row
			rows = append(rows, r)
			continue
		}
		km := issueKey.FindStringSubmatch(r.key)
		if km == nil {
			probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "external_key"), Message: "not an issue key (KEY-123): " + quote(r.key) + "; the row is skipped"})
			continue
		}
		r.number, _ = strconv.Atoi(km[2])
		if r.project == "" {
			r.project = km[1]
		}
		if r.title == "" {
			probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "title"), Message: "empty summary; the row is skipped"})
			continue
		}
		if first, dup := seen[r.key]; dup {
			probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "external_key"), Message: fmt.Sprintf("%s is also row %d; the later row is skipped", r.key, first)})
			continue
		}
		seen[r.key] = r.row
		rows = append(rows, r)
	}
	if len(rows) == 0 && len(probs.list) == 0 {
		return Result{}, domain.Invalid("file: has no issues")
	}
	return buildJira(rows, m, t, rep, &probs, jh, d)
}

// buildJira turns the rows into the document.
func buildJira(rows []*jiraRow, m Mapping, t Target, rep Report, probs *problems, jh jiraHeader, d dialect) (Result, error) {
	ids := map[string]string{}
	for _, r := range rows {
		if r.id != "" {
			ids[r.id] = r.key
		}
	}
	// Target keys: the form's project key takes everything; else each
	// Jira project is its own. Tickets keep their numbers when the target
	// key is the source's, else are numbered in file order of their key.
	var order []string
	byTarget := map[string][]*jiraRow{}
	names := map[string]string{}
	for _, r := range rows {
		k := r.project
		if t.ProjectKey != "" {
			k = strings.ToUpper(t.ProjectKey)
		}
		if _, ok := byTarget[k]; !ok {
			order = append(order, k)
			names[k] = r.projectNm
		}
		byTarget[k] = append(byTarget[k], r)
	}
	newKey := map[string]string{}
	for _, k := range order {
		rs := byTarget[k]
		// Numbers are kept whenever they are distinct — the source's own
		// (TES-15 → NEW-15): a later export of the same issues then names
		// the same tickets, which a re-run updates. Only issues of several
		// source projects in one target, whose numbers collide, are
		// numbered in order (project, number).
		keep, seen := true, map[int]bool{}
		for _, r := range rs {
			if seen[r.number] {
				keep = false
			}
			seen[r.number] = true
		}
		if !keep {
			sort.SliceStable(rs, func(i, j int) bool {
				if rs[i].project != rs[j].project {
					return rs[i].project < rs[j].project
				}
				return rs[i].number < rs[j].number
			})
			for i, r := range rs {
				r.number = i + 1
			}
		}
		for _, r := range rs {
			newKey[r.key] = fmt.Sprintf("%s-%d", k, r.number)
		}
	}
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
	doc := newDocument(t)
	var sum Summary
	links := map[string]bool{}
	var pending []pendingLink
	for _, k := range order {
		rs := byTarget[k]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].number < rs[j].number })
		p := export.Project{Key: k, Name: names[k], CreatedAt: t.Now, UpdatedAt: t.Now, Members: []string{},
			Sprints: []export.Sprint{}, Tickets: []export.Ticket{}}
		if p.Name == "" {
			p.Name = k
		}
		sprints := map[string]*export.Sprint{}
		dated := map[string]bool{} // sprints with their own dates (Linear's cycles)
		var sprintOrder []string
		for _, r := range rs {
			tk, ok := jiraTicket(r, m, t, sm, &rep, probs)
			if strings.HasPrefix(r.key, "#") {
				tk.ExternalKey = nil // a generic CSV's row without a key
			}
			if !ok {
				continue
			}
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
				tk.Sprint = &name
				s, ok := sprints[name]
				if !ok {
					s = &export.Sprint{Content: sprintdb.Content{Name: name}, Status: "Completed", CreatedAt: tk.CreatedAt, UpdatedAt: tk.UpdatedAt}
					s.StartDate, s.EndDate = tk.CreatedAt.Format("2006-01-02"), tk.UpdatedAt.Format("2006-01-02")
					if start, end, ok := cycleDates(r, m); ok {
						s.StartDate, s.EndDate = start, end
						dated[name] = true
					}
					sprints[name] = s
					sprintOrder = append(sprintOrder, name)
				}
				if d := tk.CreatedAt.Format("2006-01-02"); d < s.StartDate && !dated[name] {
					s.StartDate = d
				}
				if d := tk.UpdatedAt.Format("2006-01-02"); d > s.EndDate && !dated[name] {
					s.EndDate = d
				}
				if tk.CreatedAt.Before(s.CreatedAt) {
					s.CreatedAt = tk.CreatedAt
				}
				if sm.categoryOf(tk.Status) != "done" && sm.categoryOf(tk.Status) != "cancelled" {
					s.Status = "Active"
				}
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
			parent := r.parentKey
			if parent == "" && r.parent != "" {
				if k, ok := ids[r.parent]; ok {
					parent = k
				} else if _, ok := newKey[r.parent]; ok {
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
			if parent != "" {
				if nk, ok := newKey[parent]; ok && parent != r.key {
					tk.Parent = &nk
					sum.Parents++
				} else if !ok {
					probs.add(Problem{Row: r.row, Column: jh.colName("parent"), Message: "parent " + parent + " is not in the file; the issue comes in without it"})
				}
			}
			for _, l := range r.links {
				from, to := r.key, l.other
				if !l.outward {
					from, to = to, from
				}
				nf, okf := newKey[from]
				nt, okt := newKey[to]
				if !okf || !okt {
					probs.add(Problem{Row: r.row, Message: "linked issue " + l.other + " is not in the file; the link is left out"})
					continue
				}
				if nf == nt {
					continue
				}
				id := l.kind + " " + nf + " " + nt
				if l.kind == "relates_to" && nt < nf {
					id = l.kind + " " + nt + " " + nf
				}
				if links[id] {
					continue
				}
				links[id] = true
				sum.Links++
				pending = append(pending, pendingLink{from: nf, link: export.Link{Type: l.kind, Ticket: nt}})
			}
			p.Tickets = append(p.Tickets, tk)
			if tk.Number > p.TicketCounter {
				p.TicketCounter = tk.Number
			}
		}
		for _, name := range sprintOrder {
			p.Sprints = append(p.Sprints, *sprints[name])
		}
		sum.Sprints += len(sprintOrder)
		sum.Tickets += len(p.Tickets)
		doc.Projects = append(doc.Projects, p)
	}
	attachLinks(&doc, pending)
	for _, key := range sortedKeys(jh.custom) {
		doc.Fields = append(doc.Fields, export.CustomField{Key: key, Name: jh.customCol(key), Type: customfield.Text,
			Options: []export.CustomFieldOption{}, Projects: order})
	}
	for _, name := range sortedKeys(labels) {
		doc.Labels = append(doc.Labels, export.Label{Content: labeldb.Content{Name: name, Color: "#64748b"}})
	}
	sum.Labels = len(labels)
	users, matched, invited := ppl.documentUsers(t.ImporterEmail)
	doc.Users = append(doc.Users, users...)
	sum.UsersMatched, sum.UsersInvited = matched, invited
	sum.UsersUnresolved = len(ppl.unresolved)
	keys := make([]string, len(order))
	copy(keys, order)
	sort.Strings(keys)
	doc.Source = d.format + "/" + strings.Join(keys, ",")
	rep.Summary = sum
	rep.Problems = probs.done()
	return Result{Doc: doc, Report: rep}, nil
}

type pendingLink struct {
	from string
	link export.Link
}

// attachLinks puts each link on the ticket it is stored from.
func attachLinks(doc *export.Document, pending []pendingLink) {
	at := map[string]*export.Ticket{}
	for pi := range doc.Projects {
		p := &doc.Projects[pi]
		for ti := range p.Tickets {
			at[fmt.Sprintf("%s-%d", p.Key, p.Tickets[ti].Number)] = &p.Tickets[ti]
		}
	}
	for _, l := range pending {
		if tk, ok := at[l.from]; ok {
			tk.Links = append(tk.Links, l.link)
		}
	}
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
