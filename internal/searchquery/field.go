package searchquery

import (
	"strconv"
	"strings"
	"time"
)

// checkField validates and normalizes a field term.
func checkField(t token) (Term, error) {
	name := strings.ToLower(t.name)
	out := Term{Field: name, Pos: t.pos, Op: t.op, Value: t.value}
	if out.Op == "=" {
		out.Op = ""
	}
	if strings.TrimSpace(t.value) == "" {
		if !isField(name) {
			return out, errAt(t.pos, "unknown field %q (fields: %s)", t.name, strings.Join(Fields, ", "))
		}
		return out, errAt(t.pos, "%s: a value is required", name)
	}
	if key, ok := CustomKey(name); ok {
		out.Field, out.Custom = "cf."+key, key
		out.None = strings.EqualFold(t.value, "none") && !t.quoted
		if len(out.Value) > 500 {
			return out, errAt(t.pos, "%s: the value is longer than 500 bytes", out.Field)
		}
		return out, nil
	}
	ordered := name == FieldPriority || name == FieldCreated || name == FieldUpdated || name == FieldDue || name == FieldEstimate
	if out.Op != "" && !ordered && isField(name) {
		return out, errAt(t.pos, "%s: does not take %s (only priority, created, updated, due and estimate compare)", name, out.Op)
	}
	v := t.value
	lower := strings.ToLower(v)
	switch name {
	case FieldStatus, FieldLabel, FieldProject:
	case FieldExternal:
		if v == "" || len(v) > 255 {
			return out, errAt(t.pos, "external: must be a key of 1 to 255 bytes")
		}
	case FieldCategory:
		c := strings.ReplaceAll(strings.ReplaceAll(lower, "-", "_"), " ", "_")
		if c == "inprogress" {
			c = "in_progress"
		}
		if !oneOf(c, Categories) {
			return out, errAt(t.pos, "category: must be one of %s", strings.Join(Categories, ", "))
		}
		out.Value = c
	case FieldPriority:
		for i, pr := range Priorities {
			if strings.EqualFold(pr, v) {
				out.Priority = i
				out.Value = pr
				return out, nil
			}
		}
		return out, errAt(t.pos, "priority: must be one of %s", strings.Join(Priorities, ", "))
	case FieldAssignee, FieldReporter:
		switch {
		case lower == "me" && !t.quoted:
			out.Me = true
		case lower == "none" && !t.quoted && name == FieldAssignee:
			out.None = true
		case strings.Contains(v, "@") && len(v) <= 320:
			out.Value = v
		default:
			if name == FieldAssignee {
				return out, errAt(t.pos, "assignee: must be me, none or an email address")
			}
			return out, errAt(t.pos, "reporter: must be me or an email address")
		}
	case FieldSprint:
		switch {
		case lower == "current" && !t.quoted:
			out.Current = true
		case lower == "none" && !t.quoted:
			out.None = true
		}
	case FieldCreated, FieldUpdated:
		return when(out, name, v)
	case FieldDue:
		return due(out, lower, t.quoted)
	case FieldEstimate:
		return estimate(out, lower, t.quoted)
	case FieldTag:
		k, val, ok := strings.Cut(v, "=")
		if strings.TrimSpace(k) == "" {
			return out, errAt(t.pos, "tag: must be key=value or key")
		}
		out.Value, out.TagValue, out.TagAny = k, val, !ok
	case FieldHas:
		if lower != "attachments" && lower != "labels" && lower != "assignee" {
			return out, errAt(t.pos, "has: must be attachments, labels or assignee")
		}
		out.Value = lower
	case FieldParent:
		key, num, ok := strings.Cut(strings.ToUpper(v), "-")
		n, err := strconv.ParseInt(num, 10, 32)
		if !ok || key == "" || err != nil || n < 1 || strings.ContainsAny(num, "+-") {
			return out, errAt(t.pos, "parent: must be a ticket reference such as ENG-12")
		}
		out.Value, out.Number = key, n
	case FieldIs:
		if lower != "blocked" {
			return out, errAt(t.pos, "is: must be blocked")
		}
		out.Value = lower
	default:
		return out, errAt(t.pos, "unknown field %q (fields: %s)", t.name, strings.Join(Fields, ", "))
	}
	if len(out.Value) > 500 {
		return out, errAt(t.pos, "%s: the value is longer than 500 bytes", name)
	}
	return out, nil
}

// when reads a created/updated value: a date (2026-01-01, UTC) or an age
// (30m, 12h, 7d, 2w).
func when(out Term, name, v string) (Term, error) {
	if d, err := time.Parse("2006-01-02", v); err == nil {
		out.Date = d.UTC()
		return out, nil
	}
	if len(v) >= 2 {
		n, err := strconv.Atoi(v[:len(v)-1])
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
		if err == nil && n >= 0 && unit != 0 && time.Duration(n) <= 100*365*24*time.Hour/unit {
			out.Age, out.Relative = time.Duration(n)*unit, true
			return out, nil
		}
	}
	return out, errAt(out.Pos, "%s: must be a date (2026-01-01) or an age (30m, 12h, 7d, 2w), optionally after >, >=, < or <=", name)
}

// due reads a due: value: overdue, none, a date (2026-12-01) or a number
// of days or weeks from today (7d, 2w).
func due(out Term, v string, quoted bool) (Term, error) {
	bare := out.Op == "" && !quoted
	switch {
	case v == "overdue" && bare:
		out.Overdue = true
		return out, nil
	case v == "none" && bare:
		out.None = true
		return out, nil
	}
	if d, err := time.Parse("2006-01-02", v); err == nil {
		out.Date = d.UTC()
		return out, nil
	}
	if len(v) >= 2 {
		n, err := strconv.Atoi(v[:len(v)-1])
		unit := map[byte]int{'d': 1, 'w': 7}[v[len(v)-1]]
		if err == nil && n >= 0 && unit != 0 && n <= 100*366/unit {
			out.Days, out.Relative = n*unit, true
			return out, nil
		}
	}
	return out, errAt(out.Pos, "due: must be overdue, none, a date (2026-12-01) or days ahead (7d, 2w), optionally after >, >=, < or <=")
}

// estimate reads an estimate: value: none or a number of at most two
// decimals (3, 0.5).
func estimate(out Term, v string, quoted bool) (Term, error) {
	if v == "none" && out.Op == "" && !quoted {
		out.None = true
		return out, nil
	}
	whole, frac, dot := strings.Cut(v, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	ok := err == nil && whole != "" && strings.Trim(whole, "0123456789") == "" && n <= 10_000_000 &&
		len(frac) <= 2 && strings.Trim(frac, "0123456789") == "" && !(dot && frac == "")
	if !ok {
		return out, errAt(out.Pos, "estimate: must be none or a number of at least 0 with at most two decimals, optionally after >, >=, < or <=")
	}
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	out.Hundredths = n*100 + f
	return out, nil
}

func isField(name string) bool { return oneOf(name, Fields) }

func oneOf(s string, xs []string) bool {
	for _, x := range xs {
		if s == x {
			return true
		}
	}
	return false
}
