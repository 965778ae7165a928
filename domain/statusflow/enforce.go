package statusflow

import (
	"encoding/json"
	"fmt"
	"strings"

	"tracker/domain"
)

// Rules are what a ticket move is checked against: the statuses, the listed
// transitions and the enforcement of the workflow that governs a project
// (its own workflow, else the org's Default).
type Rules struct {
	Name        string
	Enforcement string
	Statuses    []Status
	Transitions []Transition
}

// ParseRules reads the JSON columns of a workflows row.
func ParseRules(name, enforcement string, statuses, transitions []byte) (Rules, error) {
	r := Rules{Name: name, Enforcement: enforcement}
	if err := json.Unmarshal(statuses, &r.Statuses); err != nil {
		return r, fmt.Errorf("workflow %q statuses: %w", name, err)
	}
	if len(transitions) > 0 {
		if err := json.Unmarshal(transitions, &r.Transitions); err != nil {
			return r, fmt.Errorf("workflow %q transitions: %w", name, err)
		}
	}
	if r.Enforcement == "" {
		r.Enforcement = EnforceNone
	}
	return r, nil
}

// Status finds a status by name: an exact match first, then one that differs
// only in case, so "inprogress" is stored as the workflow spells it.
func (r Rules) Status(name string) (Status, bool) {
	for _, s := range r.Statuses {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range r.Statuses {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return Status{}, false
}

// Listed reports whether the workflow lists the move from → to.
func (r Rules) Listed(from, to string) bool {
	for _, t := range r.Transitions {
		if t.From == from && t.To == to {
			return true
		}
	}
	return false
}

// Move is the verdict on one status change.
type Move struct {
	To      string // the target as the workflow spells it
	NoOp    bool   // to equals the current status: nothing to change
	Warning string // set under warn enforcement for an unlisted move
}

// Check decides a move of a ticket in status from to the status named to:
//   - a to-status the workflow does not define is a 422 under every enforcement;
//   - the same status is an allowed no-op;
//   - none allows everything, warn allows an unlisted move with a warning,
//     strict rejects it with a 422 naming from, to and the workflow.
//
// A ticket whose current status the workflow no longer defines (the workflow
// was edited) may move to any defined status; otherwise strict would strand it.
func (r Rules) Check(from, to string) (Move, error) {
	st, ok := r.Status(to)
	if !ok {
		return Move{}, domain.Invalid(fmt.Sprintf("status: %q is not a status of workflow %q (one of %s)",
			to, r.Name, strings.Join(r.names(), ", ")))
	}
	m := Move{To: st.Name}
	if st.Name == from {
		m.NoOp = true
		return m, nil
	}
	if _, known := r.Status(from); !known || r.Listed(from, st.Name) {
		return m, nil
	}
	switch r.Enforcement {
	case EnforceStrict:
		msg := fmt.Sprintf("transition from %s to %s is not allowed by workflow %s", from, st.Name, r.Name)
		return Move{}, &domain.Error{Kind: domain.KindValidation, Message: msg, Details: []string{"status: " + msg}}
	case EnforceWarn:
		m.Warning = fmt.Sprintf("transition from %s to %s is not listed in workflow %s", from, st.Name, r.Name)
	}
	return m, nil
}

// Reachable lists the statuses a ticket in status from may move to: those of
// listed transitions, or, under enforcement none (or from a status the
// workflow no longer defines), every other status. The workflow's status
// order is kept.
func (r Rules) Reachable(from string) []Status {
	out := []Status{}
	_, known := r.Status(from)
	for _, s := range r.Statuses {
		if s.Name == from {
			continue
		}
		if r.Enforcement == EnforceNone || !known || r.Listed(from, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Option is one status a ticket may move to, and whether the workflow lists
// the move (under warn an unlisted move succeeds with a warning).
type Option struct {
	To       string `json:"to"`
	Category string `json:"category"`
	Listed   bool   `json:"listed"`
}

// Options lists every status a move to is allowed now: under strict only the
// listed ones, otherwise every other status, each flagged as listed or not.
func (r Rules) Options(from string) []Option {
	out := []Option{}
	_, known := r.Status(from)
	for _, s := range r.Statuses {
		if s.Name == from {
			continue
		}
		listed := r.Listed(from, s.Name)
		if r.Enforcement == EnforceStrict && known && !listed {
			continue
		}
		out = append(out, Option{To: s.Name, Category: s.Category, Listed: listed})
	}
	return out
}

func (r Rules) names() []string {
	out := make([]string, 0, len(r.Statuses))
	for _, s := range r.Statuses {
		out = append(out, s.Name)
	}
	return out
}

// DefaultRules are the rules of a project whose org has no workflow left to
// govern it (its Default was deleted): the built-in Default, enforcement none.
func DefaultRules() Rules {
	return Rules{Name: DefaultName, Enforcement: EnforceNone, Statuses: DefaultStatuses(), Transitions: DefaultTransitions()}
}
