package sources

import (
	"regexp"
	"strings"

	"tracker/domain"
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
	"canceled_at":     {},
	"started_at":      {},
	"due_date":        {"Due date", "Due Date"},
	"description":     {"Description"},
	"labels":          {"Labels"},
	"sprint":          {"Sprint", "Custom field (Sprint)"},
	"sprint_number":   {},
	"sprint_start":    {},
	"sprint_end":      {},
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
	resolved, canceled, started string
	parent, parentKey, epic     string
	labels, sprints, comments   []string
	// sprintNumber, sprintStart and sprintEnd are Linear's cycle: its
	// number (the name when the cycle has none) and its dates.
	sprintNumber, sprintStart, sprintEnd string
	links                                []jiraLink
	custom                               map[string]string
	createdCol, updatedCol               string
	dueCol, estCol, commentsCol          string
	resolvedCol, canceledCol             string
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
	for i, name := range h {
		for col, l := range d.linkColumns {
			if strings.EqualFold(strings.TrimSpace(name), col) {
				jh.links[i] = l
				jh.fields[name] = strPtr("links")
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
	// The dialect's own custom fields, unless the mapping names the key or
	// reads the column otherwise.
	for _, key := range sortedKeys(d.custom) {
		if _, mapped := jh.custom[key]; mapped {
			continue
		}
		for i, name := range h {
			if strings.EqualFold(strings.TrimSpace(name), d.custom[key]) && jh.fields[name] == nil {
				jh.custom[key] = i
				jh.fields[name] = strPtr("custom_fields." + key)
				break
			}
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

// linearColumns are the columns of Linear's CSV export by field: the
// cycle is the sprint; Completed (else Canceled) the resolution date.
var linearColumns = map[string][]string{
	"title": {"Title"}, "external_key": {"ID"}, "description": {"Description"}, "status": {"Status"},
	"estimate": {"Estimate"}, "priority": {"Priority"}, "reporter": {"Creator"}, "assignee": {"Assignee"},
	"labels": {"Labels"}, "sprint": {"Cycle Name"}, "sprint_number": {"Cycle Number"},
	"sprint_start": {"Cycle Start"}, "sprint_end": {"Cycle End"}, "created_at": {"Created"}, "updated_at": {"Updated"},
	"started_at": {"Started"}, "resolved_at": {"Completed"}, "canceled_at": {"Canceled"},
	"due_date": {"Due Date"}, "parent_key": {"Parent issue"}, "project_name": {"Team"},
}

// linearLinks are the link columns of Linear's 34-column export: each
// cell lists the other issues' ids, comma-separated.
var linearLinks = map[string]jiraLink{
	"Related to":   {kind: "relates_to", outward: true},
	"Blocked by":   {kind: "blocks"}, // the other issue blocks this one
	"Duplicate of": {kind: "duplicates", outward: true},
}

// linearCustom: Linear's project (a grouping across teams, which Tracker
// has no field for) comes across as a text custom field.
var linearCustom = map[string]string{"linear_project": "Project"}

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
	// linkColumns are link columns by their whole name (Jira's are
	// prefixes with the type in parentheses).
	linkColumns map[string]jiraLink
	// custom are custom fields read by default: column by key.
	custom map[string]string
	// categoryFromDates: the file has no status category; a row's is read
	// from its dates (canceled, completed, started, else to do).
	categoryFromDates bool
}

func (jh jiraHeader) colName(field string) string {
	for name, f := range jh.fields {
		if f != nil && *f == field {
			return name
		}
	}
	return field
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
