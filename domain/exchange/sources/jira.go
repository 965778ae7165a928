package sources

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"tracker/domain"
	"tracker/domain/exchange/export"
)

// Jira converts a Jira "Export CSV (all fields)" file.
func Jira(in io.Reader, m Mapping, t Target) (Result, error) {
	return collect(in, "jira_csv", m, t)
}

// Linear converts Linear's CSV export: its issue ids (ENG-7) are keys
// like Jira's, the team key their project; labels are listed in one cell,
// the cycle is the sprint.
func Linear(in io.Reader, m Mapping, t Target) (Result, error) {
	return collect(in, "linear_csv", m, t)
}

// CSV converts any CSV file by its mapping: mapping.columns names the
// column of each field (title required; external_key, when named, keeps
// re-runs from duplicating and links parents), project_key is required.
func CSV(in io.Reader, m Mapping, t Target) (Result, error) {
	if err := csvNeeds(m, t); err != nil {
		return Result{}, err
	}
	return collect(in, "csv", m, t)
}

var (
	linearDialect = dialect{format: "linear_csv", columns: linearColumns, splitLabels: true,
		linkColumns: linearLinks, custom: linearCustom, categoryFromDates: true}
	genericDialect = dialect{format: "csv", generic: true, splitLabels: true}
)

func csvNeeds(m Mapping, t Target) error {
	if t.ProjectKey == "" {
		return domain.Invalid("project_key: required for csv")
	}
	if len(m.Columns) == 0 {
		return domain.Invalid("mapping.columns: required for csv (at least title)")
	}
	return nil
}

// convertCSV reads the file twice: the first pass indexes the rows that
// come in (their keys, target keys and links), the second converts and
// emits each ticket, resolving its parent and links through the index.
func convertCSV(open Opener, m Mapping, t Target, d dialect, emit Emit) (Converted, error) {
	var probs problems
	ix, err := indexCSV(open, m, t, d, &probs)
	if err != nil {
		return Converted{}, err
	}
	return emitCSV(open, m, t, d, ix, &probs, emit)
}

// csvIndex is what the ticket pass needs of the whole file: memory in
// proportion to the rows, never to their text.
type csvIndex struct {
	rows  map[string]indexed // source key → the row that comes in
	ids   map[string]string  // Jira's issue id → source key
	order []string           // target project keys, in file order
	names map[string]string  // target project key → name
	links map[string][]export.Link
	nLink int
}

// indexed is a row that comes in: its position, source project and the
// target project and number it takes.
type indexed struct {
	row     int
	number  int
	project string
	target  string
}

// newKey is the target key (NEW-15) of a source key.
func (ix *csvIndex) newKey(key string) (string, bool) {
	e, ok := ix.rows[key]
	if !ok {
		return "", false
	}
	return e.target + "-" + strconv.Itoa(e.number), true
}

// rowsIn iterates the file's data records as rows. An index pass (full
// false) reads no text it does not need: description, comments, labels,
// sprints and custom fields stay empty.
func rowsIn(open Opener, m Mapping, d dialect, full bool, each func(r *jiraRow, f *csvFile, jh jiraHeader) error) (jiraHeader, error) {
	rc, err := open()
	if err != nil {
		return jiraHeader{}, err
	}
	defer rc.Close()
	f, err := openCSV(rc)
	if err != nil {
		return jiraHeader{}, err
	}
	jh, err := readJiraHeader(f.Header, m, d)
	if err != nil {
		return jiraHeader{}, err
	}
	for {
		rec, err := f.next()
		if err == io.EOF {
			return jh, nil
		}
		if err != nil {
			return jh, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if !full {
			rec = indexCells(rec, jh)
		}
		if err := each(readRow(rec, f, jh, d), f, jh); err != nil {
			return jh, err
		}
	}
}

// indexCells blanks, in the reader's reused record, the cells an index
// pass does not read, so readRow copies none of them.
func indexCells(rec []string, jh jiraHeader) []string {
	blank := func(i int) {
		for f, j := range jh.single {
			if j == i && f != "description" {
				return // a column the index reads too (a mapping may name one twice)
			}
		}
		if i < len(rec) {
			rec[i] = ""
		}
	}
	if i, ok := jh.single["description"]; ok {
		blank(i)
	}
	for _, f := range []string{"comments", "labels", "sprint"} {
		for _, i := range jh.multi[f] {
			blank(i)
		}
	}
	for _, i := range jh.custom {
		blank(i)
	}
	return rec
}

// readRow reads a record's cells by field.
func readRow(rec []string, f *csvFile, jh jiraHeader, d dialect) *jiraRow {
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
	}
	return r
}

// indexCSV is the first pass: which rows come in (a key, a title, not a
// duplicate), their target keys, and the links between them.
func indexCSV(open Opener, m Mapping, t Target, d dialect, probs *problems) (*csvIndex, error) {
	ix := &csvIndex{rows: map[string]indexed{}, ids: map[string]string{}, names: map[string]string{}, links: map[string][]export.Link{}}
	byTarget := map[string][]string{}
	type linked struct {
		row   int
		key   string
		links []jiraLink
	}
	var withLinks []linked
	sm := newStatusMapper(m, t)
	scratch := newReport(d.format)
	admitted := 0
	_, err := rowsIn(open, m, d, false, func(r *jiraRow, f *csvFile, jh jiraHeader) error {
		if d.generic {
			// The number a key ends with (PROJ-123, #45; a row without a
			// key: its row), else the row's position.
			r.project, r.number = "", trailingNumber(r.key)
			if r.number == 0 {
				r.number = admitted + 1
			}
			if r.title == "" {
				probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "title"), Message: "empty title; the row is skipped"})
				return nil
			}
		} else {
			km := issueKey.FindStringSubmatch(r.key)
			if km == nil {
				probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "external_key"), Message: "not an issue key (KEY-123): " + quote(r.key) + "; the row is skipped"})
				return nil
			}
			r.number, _ = strconv.Atoi(km[2])
			if r.project == "" {
				r.project = km[1]
			}
			if r.title == "" {
				probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "title"), Message: "empty summary; the row is skipped"})
				return nil
			}
		}
		if first, dup := ix.rows[r.key]; dup {
			probs.add(Problem{Row: r.row, Column: jh.col(f.Header, "external_key"), Message: fmt.Sprintf("%s is also row %d; the later row is skipped", r.key, first.row)})
			return nil
		}
		admitted++
		// Target keys: the form's project key takes everything; else each
		// Jira project is its own.
		k := r.project
		if t.ProjectKey != "" {
			k = strings.ToUpper(t.ProjectKey)
		}
		if _, ok := byTarget[k]; !ok {
			ix.order = append(ix.order, k)
			ix.names[k] = r.projectNm
		}
		byTarget[k] = append(byTarget[k], r.key)
		ix.rows[r.key] = indexed{row: r.row, number: r.number, project: r.project, target: k}
		if r.id != "" {
			ix.ids[r.id] = r.key
		}
		// Links count from rows that come in whole (the ticket pass skips
		// a row whose date or status does not convert).
		if len(r.links) > 0 {
			var drop problems
			if _, ok := jiraTicket(r, m, t, sm, &scratch, &drop); ok {
				withLinks = append(withLinks, linked{r.row, r.key, r.links})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ix.rows) == 0 && len(probs.list) == 0 {
		return nil, domain.Invalid("file: has no issues")
	}
	ix.number(byTarget)
	seen := map[string]bool{}
	for _, w := range withLinks {
		for _, l := range w.links {
			from, to := w.key, l.other
			if !l.outward {
				from, to = to, from
			}
			nf, okf := ix.newKey(from)
			nt, okt := ix.newKey(to)
			if !okf || !okt {
				probs.add(Problem{Row: w.row, Message: "linked issue " + l.other + " is not in the file; the link is left out"})
				continue
			}
			if nf == nt {
				continue
			}
			id := l.kind + " " + nf + " " + nt
			if l.kind == "relates_to" && nt < nf {
				id = l.kind + " " + nt + " " + nf
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			ix.nLink++
			ix.links[nf] = append(ix.links[nf], export.Link{Type: l.kind, Ticket: nt})
		}
	}
	return ix, nil
}

// number settles the target numbers. They are kept whenever they are
// distinct — the source's own (TES-15 → NEW-15): a later export of the
// same issues then names the same tickets, which a re-run updates. Only
// issues of several source projects in one target, whose numbers collide,
// are numbered in order (project, number).
func (ix *csvIndex) number(byTarget map[string][]string) {
	for _, keys := range byTarget {
		seen := make(map[int]bool, len(keys))
		keep := true
		for _, k := range keys {
			n := ix.rows[k].number
			if seen[n] {
				keep = false
				break
			}
			seen[n] = true
		}
		if keep {
			continue
		}
		sort.SliceStable(keys, func(i, j int) bool {
			a, b := ix.rows[keys[i]], ix.rows[keys[j]]
			if a.project != b.project {
				return a.project < b.project
			}
			return a.number < b.number
		})
		for i, k := range keys {
			e := ix.rows[k]
			e.number = i + 1
			ix.rows[k] = e
		}
	}
}
