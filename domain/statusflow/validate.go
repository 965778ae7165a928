package statusflow

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"tracker/domain"
)

// Limits of a workflow definition (the spec only asks for a non-empty name).
const (
	MaxName        = 255
	MaxStatusName  = 100
	MaxStatuses    = 100
	MaxTransitions = 1000
)

var categories = []string{CategoryTodo, CategoryInProgress, CategoryDone, CategoryCancelled}
var enforcements = []string{EnforceNone, EnforceWarn, EnforceStrict}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

func checkName(p *domain.Problems, name string) {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > MaxName {
		p.Add("name", "must be 1-255 characters")
	}
}

func checkEnforcement(p *domain.Problems, e string) {
	if !oneOf(e, enforcements) {
		p.Add("enforcement", "must be one of none, warn, strict")
	}
}

// checkStatuses requires at least one status, names unique in any case (so
// that "Done" and "done" never both exist) and a known category.
func checkStatuses(p *domain.Problems, statuses []Status) {
	if len(statuses) == 0 {
		p.Add("statuses", "must have at least 1 item")
		return
	}
	if len(statuses) > MaxStatuses {
		p.Add("statuses", fmt.Sprintf("must have at most %d items", MaxStatuses))
		return
	}
	seen := map[string]bool{}
	for i, s := range statuses {
		f := fmt.Sprintf("statuses[%d]", i)
		switch {
		case s.Name == "":
			p.Add(f+".name", "required")
		case strings.TrimSpace(s.Name) != s.Name || utf8.RuneCountInString(s.Name) > MaxStatusName:
			p.Add(f+".name", "must be 1-100 characters without surrounding spaces")
		case seen[strings.ToLower(s.Name)]:
			p.Add(f+".name", "duplicate status "+s.Name)
		}
		seen[strings.ToLower(s.Name)] = true
		switch {
		case s.Category == "":
			p.Add(f+".category", "required")
		case !oneOf(s.Category, categories):
			p.Add(f+".category", "must be one of todo, in_progress, done, cancelled")
		}
	}
}

// checkTransitions requires both ends to name a defined status exactly and
// every move to be listed once.
func checkTransitions(p *domain.Problems, statuses []Status, transitions []Transition) {
	if len(transitions) > MaxTransitions {
		p.Add("transitions", fmt.Sprintf("must have at most %d items", MaxTransitions))
		return
	}
	defined := map[string]bool{}
	for _, s := range statuses {
		defined[s.Name] = true
	}
	seen := map[Transition]bool{}
	for i, t := range transitions {
		f := fmt.Sprintf("transitions[%d]", i)
		for _, end := range []struct{ field, name string }{{"from", t.From}, {"to", t.To}} {
			switch {
			case end.name == "":
				p.Add(f+"."+end.field, "required")
			case !defined[end.name]:
				p.Add(f+"."+end.field, "unknown status "+end.name)
			}
		}
		if seen[t] {
			p.Add(f, "duplicate transition "+t.From+" -> "+t.To)
		}
		seen[t] = true
	}
}
