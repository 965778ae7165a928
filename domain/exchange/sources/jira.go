package sources

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/internal/civil"
	"tracker/store/commentdb"
	"tracker/store/labeldb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
)

// jiraColumns are the header names of Jira's "Export CSV (all fields)" by
// target field, as an English-speaking user's export writes them (matched
// ignoring case); mapping.columns names them in another language.
var jiraColumns = map[string][]string{
	"title":           {"Summary"},
	"external_key":    {"Issue key"},
	"id":              {"Issue id"},
	"type":            {"Issue Type"},
	"status":          {"Status"},
	"status_category": {"Status Category"},
	"project_key":     {"Project key"},
	"project_name":    {"Project name"},
	"priority":        {"Priority"},
	"assignee":        {"Assignee"},
	"assignee_id":     {"Assignee Id"},
	"reporter":        {"Reporter"},
	"reporter_id":     {"Reporter Id"},
	"created_at":      {"Created"},
	"updated_at":      {"Updated"},
	"resolved_at":     {"Resolved"},
	"due_date":        {"Due date", "Due Date"},
	"description":     {"Description"},
	"labels":          {"Labels"},
	"sprint":          {"Sprint", "Custom field (Sprint)"},
	"estimate":        {"Custom field (Story Points)", "Custom field (Story point estimate)"},
	"parent":          {"Parent", "Parent id"},
	"parent_key":      {"Parent key"},
	"epic_link":       {"Custom field (Epic Link)"},
	"comments":        {"Comment"},
	"links_inward":    {"Inward issue link"},
	"links_outward":   {"Outward issue link"},
}

// repeated are the fields Jira writes as one column per value.
var repeated = map[string]bool{"labels": true, "sprint": true, "comments": true}

var issueKey = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)-([0-9]{1,9})$`)

type jiraLink struct {
	kind    string // blocks, duplicates, relates_to
	outward bool
	other   string
}

type jiraRow struct {
	row                         int
	key, id, project, projectNm string
	number                      int
	title, desc, status, cat    string
	prio                        string
	assignee, assigneeID        string
	reporter, reporterID        string
	created, updated, due, est  string
	parent, parentKey, epic     string
	labels, sprints, comments   []string
	links                       []jiraLink
	custom                      map[string]string
	createdCol, updatedCol      string
	dueCol, estCol, commentsCol string
}

// jiraHeader finds the columns of each field.
type jiraHeader struct {
	single map[string]int
	multi  map[string][]int
	links  map[int]jiraLink // column → link kind and direction
	fields map[string]*string
	// custom are the custom fields mapping.columns names, by key.
	custom map[string]int
}

var customKey = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

func readJiraHeader(h []string, m Mapping, d dialect) (jiraHeader, error) {
	jh := jiraHeader{single: map[string]int{}, multi: map[string][]int{}, links: map[int]jiraLink{}, fields: map[string]*string{},
		custom: map[string]int{}}
	for _, name := range h {
		jh.fields[name] = nil
	}
	for field, defaults := range jiraColumns {
		names := defaults
		if d.columns != nil {
			names = d.columns[field]
		}
		if d.generic {
			names = nil // a generic CSV has only the columns its mapping names
		}
		if c, ok := m.Columns[field]; ok {
			names = []string{c}
		}
		if field == "links_inward" || field == "links_outward" {
			for _, prefix := range names {
				for i, name := range h {
					inner, ok := linkType(name, prefix)
					if ok {
						jh.links[i] = jiraLink{kind: inner, outward: field == "links_outward"}
						jh.fields[name] = strPtr("links")
					}
				}
			}
			continue
		}
		for _, want := range names {
			found := false
			for i, name := range h {
				if !strings.EqualFold(strings.TrimSpace(name), want) {
					continue
				}
				found = true
				jh.fields[name] = strPtr(field)
				if repeated[field] {
					jh.multi[field] = append(jh.multi[field], i)
					continue
				}
				if _, ok := jh.single[field]; !ok {
					jh.single[field] = i
				}
			}
			if found {
				break
			}
		}
	}
	for _, field := range sortedKeys(m.Columns) {
		col := m.Columns[field]
		key, isCustom := strings.CutPrefix(field, "custom_fields.")
		if _, known := jiraColumns[field]; !known && !isCustom {
			return jh, domain.Invalidf("mapping.columns.%s: is not a field (one of %s, or custom_fields.<key>)", field, strings.Join(sortedKeys(jiraColumns), ", "))
		}
		if !isCustom {
			continue
		}
		if !customKey.MatchString(key) {
			return jh, domain.Invalidf("mapping.columns.%s: a custom field key is 1-64 lowercase letters, digits or _", field)
		}
		found := false
		for i, name := range h {
			if strings.EqualFold(strings.TrimSpace(name), col) {
				jh.custom[key], found = i, true
				jh.fields[name] = strPtr(field)
				break
			}
		}
		if !found {
			return jh, domain.Invalidf("mapping.columns.%s: the file has no column %s", field, quote(col))
		}
	}
	need := []string{"title", "external_key"}
	if d.generic {
		need = need[:1]
	}
	for _, need := range need {
		if _, ok := jh.single[need]; !ok {
			if d.generic {
				return jh, domain.Invalidf("mapping.columns.%s: required for csv: the column of the %s", need, need)
			}
			want := jiraColumns[need][0]
			if d.columns != nil {
				want = d.columns[need][0]
			}
			return jh, domain.Invalidf("row 1: no %s column (%s); name it in mapping.columns.%s", need, quote(want), need)
		}
	}
	return jh, nil
}

// linkType reads "Outward issue link (Blocks)" as its link kind.
func linkType(name, prefix string) (string, bool) {
	rest, ok := cutPrefixFold(strings.TrimSpace(name), prefix)
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	t := strings.ToLower(rest[1 : len(rest)-1])
	switch {
	case strings.HasPrefix(t, "block"):
		return "blocks", true
	case strings.HasPrefix(t, "duplicat"):
		return "duplicates", true
	}
	return "relates_to", true
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return "", false
	}
	return s[len(prefix):], true
}

// get is a field's cell, copied: encoding/csv slices every cell of a record
// from one string, so a kept cell would keep the whole record (hundreds of
// unused columns in a real export) alive.
func (jh jiraHeader) get(rec []string, field string) string {
	i, ok := jh.single[field]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.Clone(strings.TrimSpace(rec[i]))
}

func (jh jiraHeader) all(rec []string, field string) []string {
	var out []string
	for _, i := range jh.multi[field] {
		if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
			out = append(out, strings.Clone(rec[i]))
		}
	}
	return out
}

func (jh jiraHeader) col(h []string, field string) string {
	if i, ok := jh.single[field]; ok {
		return h[i]
	}
	if is := jh.multi[field]; len(is) > 0 {
		return h[is[0]]
	}
	return field
}

// linearColumns are the columns of Linear's CSV export by field.
var linearColumns = map[string][]string{
	"title": {"Title"}, "external_key": {"ID"}, "description": {"Description"}, "status": {"Status"},
	"estimate": {"Estimate"}, "priority": {"Priority"}, "reporter": {"Creator"}, "assignee": {"Assignee"},
	"labels": {"Labels"}, "sprint": {"Cycle Name"}, "created_at": {"Created"}, "updated_at": {"Updated"},
	"due_date": {"Due Date"}, "parent_key": {"Parent issue"}, "project_name": {"Team"},
}

// dialect is a CSV format the converter reads.
type dialect struct {
	format string
	// columns are the format's default columns by field (nil: Jira's).
	columns map[string][]string
	// splitLabels: a labels cell lists several, comma-separated.
	splitLabels bool
	// generic: any CSV, whose columns the mapping names (no defaults),
	// keys of any form, numbered in file order into project_key.
	generic bool
}

// Jira converts a Jira "Export CSV (all fields)" file.
func Jira(in io.Reader, m Mapping, t Target) (Result, error) {
	return convertCSV(in, m, t, dialect{format: "jira_csv"})
}

// Linear converts Linear's CSV export: its issue ids (ENG-7) are keys
// like Jira's, the team key their project; labels are listed in one cell,
// the cycle is the sprint.
func Linear(in io.Reader, m Mapping, t Target) (Result, error) {
	return convertCSV(in, m, t, dialect{format: "linear_csv", columns: linearColumns, splitLabels: true})
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
			if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
				l.other = strings.ToUpper(strings.Clone(strings.TrimSpace(rec[i])))
				r.links = append(r.links, l)
			}
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
			if n := len(r.sprints); n > 0 {
				name := strings.TrimSpace(r.sprints[n-1])
				tk.Sprint = &name
				s, ok := sprints[name]
				if !ok {
					s = &export.Sprint{Content: sprintdb.Content{Name: name}, Status: "Completed", CreatedAt: tk.CreatedAt, UpdatedAt: tk.UpdatedAt}
					s.StartDate, s.EndDate = tk.CreatedAt.Format("2006-01-02"), tk.UpdatedAt.Format("2006-01-02")
					sprints[name] = s
					sprintOrder = append(sprintOrder, name)
				}
				if d := tk.CreatedAt.Format("2006-01-02"); d < s.StartDate {
					s.StartDate = d
				}
				if d := tk.UpdatedAt.Format("2006-01-02"); d > s.EndDate {
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

func (jh jiraHeader) colName(field string) string {
	for name, f := range jh.fields {
		if f != nil && *f == field {
			return name
		}
	}
	return field
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

// customCol is the column a custom field is read from.
func (jh jiraHeader) customCol(key string) string {
	for name, f := range jh.fields {
		if f != nil && *f == "custom_fields."+key {
			return name
		}
	}
	return key
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
