// Package sources turns other trackers' exports (Jira's CSV, GitHub's REST
// issues) into the export document the importer runs, with a report of
// what would come across: the dry run's answer and the problems a real
// run records. It reads no database: the caller passes the target (the
// workflow's statuses, the org's members, the importer's email).
package sources

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"tracker/domain"
	"tracker/domain/exchange/export"
)

// Formats are the import formats the multipart route accepts.
var Formats = []string{"tracker_json", "jira_csv", "github_json", "linear_csv", "csv"}

// Mapping is the optional guide of a conversion: which source column feeds
// which field, and how statuses, priorities and people translate.
type Mapping struct {
	Columns    map[string]string `json:"columns"`
	Statuses   map[string]string `json:"statuses"`
	Priorities map[string]string `json:"priorities"`
	Users      map[string]string `json:"users"`
	DateFormat string            `json:"date_format"`
}

// ParseMapping reads the mapping form field ("" is no mapping).
func ParseMapping(s string) (Mapping, error) {
	var m Mapping
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, domain.Invalid("mapping: must be a JSON object with columns, statuses, priorities, users and date_format (" + err.Error() + ")")
	}
	return m, nil
}

// Status is a status of the target workflow.
type Status struct {
	Name     string
	Category string // todo, in_progress, done, cancelled
}

// Target is what a conversion needs to know of where it imports.
type Target struct {
	// ProjectKey is the target project ("" takes the file's own keys).
	ProjectKey string
	// Statuses are the target workflow's statuses, in order.
	Statuses []Status
	// Members are the emails (lower case) of the org's members.
	Members map[string]bool
	// ImporterEmail authors what the file attributes to nobody it can name.
	ImporterEmail string
	// Now dates what the file leaves undated.
	Now time.Time
}

// Problem is a row (or JSON path) the conversion skips or changes, and why.
type Problem struct {
	Row     int    `json:"row,omitempty"`
	Path    string `json:"path,omitempty"`
	Column  string `json:"column,omitempty"`
	Message string `json:"message"`
}

// Summary counts what the conversion would write.
type Summary struct {
	Tickets         int `json:"tickets"`
	Comments        int `json:"comments"`
	Labels          int `json:"labels"`
	Sprints         int `json:"sprints"`
	Parents         int `json:"parents"`
	Links           int `json:"links"`
	UsersMatched    int `json:"users_matched"`
	UsersInvited    int `json:"users_invited"`
	UsersUnresolved int `json:"users_unresolved"`
}

// Report is the dry run's answer.
type Report struct {
	Status     string             `json:"status"`
	Format     string             `json:"format"`
	Summary    Summary            `json:"summary"`
	Statuses   map[string]*string `json:"statuses"`
	Priorities map[string]*string `json:"priorities"`
	Fields     map[string]*string `json:"fields"`
	Problems   []Problem          `json:"problems"`
}

// Result is a converted file: the document and its report.
type Result struct {
	Doc    export.Document
	Report Report
}

// MaxProblems caps the problems a report lists; the last one says how
// many more there were.
const MaxProblems = 1000

func newReport(format string) Report {
	return Report{Status: "dry_run", Format: format, Statuses: map[string]*string{}, Priorities: map[string]*string{},
		Fields: map[string]*string{}, Problems: []Problem{}}
}

type problems struct {
	list  []Problem
	extra int
}

func (p *problems) add(pr Problem) {
	if len(p.list) >= MaxProblems {
		p.extra++
		return
	}
	p.list = append(p.list, pr)
}

func (p *problems) done() []Problem {
	out := p.list
	sort.SliceStable(out, func(i, j int) bool { return out[i].Row < out[j].Row })
	if out == nil {
		out = []Problem{}
	}
	if p.extra > 0 {
		out = append(out, Problem{Message: "… and " + itoa(p.extra) + " more problems"})
	}
	return out
}

// normName compares status names: any case, ignoring spaces, '-' and '_'.
func normName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' || r == '\t' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// categoryWords name the source status categories (Jira's "Status
// Category" in the exporting user's language) by the workflow's category.
var categoryWords = map[string]string{
	"todo": "todo", "new": "todo", "porhacer": "todo", "àfaire": "todo", "afaire": "todo", "zuerledigen": "todo",
	"afazer": "todo", "dafare": "todo", "open": "todo",
	"inprogress": "in_progress", "encurso": "in_progress", "encours": "in_progress", "inarbeit": "in_progress",
	"emandamento": "in_progress", "incorso": "in_progress", "started": "in_progress",
	"done": "done", "listo": "done", "hecho": "done", "terminé": "done", "termine": "done", "fertig": "done",
	"concluído": "done", "concluido": "done", "completato": "done", "completed": "done", "closed": "done",
	"cancelled": "cancelled", "canceled": "cancelled",
}

// statusMapper maps source statuses to the target workflow's.
type statusMapper struct {
	explicit map[string]string
	byNorm   map[string]string
	exact    map[string]bool
	first    map[string]string // category → first status
	statuses []Status
}

func newStatusMapper(m Mapping, t Target) statusMapper {
	sm := statusMapper{explicit: m.Statuses, byNorm: map[string]string{}, exact: map[string]bool{}, first: map[string]string{}, statuses: t.Statuses}
	for _, s := range t.Statuses {
		sm.exact[s.Name] = true
		if _, ok := sm.byNorm[normName(s.Name)]; !ok {
			sm.byNorm[normName(s.Name)] = s.Name
		}
		if _, ok := sm.first[s.Category]; !ok {
			sm.first[s.Category] = s.Name
		}
	}
	return sm
}

// target answers the target status of a source status and its category
// ("" when unknown), or "" with the reason.
func (sm statusMapper) target(status, category string) (string, string) {
	if strings.TrimSpace(status) == "" && strings.TrimSpace(category) == "" {
		// No status in the file: the workflow's first to-do status, as a
		// ticket created here without one.
		if n, ok := sm.first["todo"]; ok {
			return n, ""
		}
	}
	if to, ok := sm.explicit[status]; ok {
		if sm.exact[to] {
			return to, ""
		}
		if n, ok := sm.byNorm[normName(to)]; ok {
			return n, ""
		}
		return "", "mapping.statuses names " + quote(to) + ", which is not a status of the project's workflow"
	}
	if n, ok := sm.byNorm[normName(status)]; ok {
		return n, ""
	}
	if c, ok := categoryWords[normName(category)]; ok {
		if n, ok := sm.first[c]; ok {
			return n, ""
		}
	}
	if c, ok := categoryWords[normName(status)]; ok {
		if n, ok := sm.first[c]; ok {
			return n, ""
		}
	}
	return "", "status " + quote(status) + " has no target: name it in mapping.statuses"
}

// priorityWords are the sources' priorities by the spec's five.
var priorityWords = map[string]string{
	"highest": "Critical", "blocker": "Critical", "critical": "Critical", "urgent": "Critical",
	"high": "High", "major": "High",
	"medium": "Medium", "normal": "Medium",
	"low": "Low", "minor": "Low", "lowest": "Low", "trivial": "Low",
	"nopriority": "None", "none": "None", "": "None",
}

var targetPriorities = []string{"None", "Low", "Medium", "High", "Critical"}

func mapPriority(m Mapping, p string) (string, bool) {
	if to, ok := m.Priorities[p]; ok {
		for _, v := range targetPriorities {
			if strings.EqualFold(v, to) {
				return v, true
			}
		}
		return "", false
	}
	if v, ok := priorityWords[normName(p)]; ok {
		return v, true
	}
	return "", false
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func strPtr(s string) *string { return &s }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// newDocument is an empty document of the current version.
func newDocument(t Target) export.Document {
	return export.Document{Version: ptrInt(export.Version), ExportedAt: t.Now, Users: []export.User{},
		Workflows: []export.Workflow{}, Labels: []export.Label{}, Projects: []export.Project{}}
}

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

// clip cuts s to at most n characters (runes); cut tells whether it did.
func clip(s string, n int) (out string, cut bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	r := []rune(s)
	return string(r[:n]), true
}
