package searchquery

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// show renders an AST compactly for comparisons.
func show(n Node) string {
	switch n := n.(type) {
	case nil:
		return "<all>"
	case And:
		return "AND(" + join(n.Terms) + ")"
	case Or:
		return "OR(" + join(n.Terms) + ")"
	case Not:
		return "NOT(" + show(n.Term) + ")"
	case Text:
		if n.Quoted {
			return fmt.Sprintf("%q", n.Value)
		}
		return n.Value
	case Term:
		v := n.Value
		switch {
		case n.Me:
			v = "@me"
		case n.None:
			v = "@none"
		case n.Current:
			v = "@current"
		case n.Relative:
			v = n.Age.String()
		case !n.Date.IsZero():
			v = n.Date.Format("2006-01-02")
		case n.Field == FieldTag && !n.TagAny:
			v += "=" + n.TagValue
		}
		return n.Field + ":" + n.Op + v
	}
	return "?"
}

func join(ns []Node) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = show(n)
	}
	return strings.Join(out, " ")
}

func TestParse(t *testing.T) {
	cases := []struct{ in, want, sort string }{
		{"", "<all>", "id-asc"},
		{"   ", "<all>", "id-asc"},
		{"status:InProgress", "status:InProgress", ""},
		{`status:"In Review"`, "status:In Review", ""},
		{"category:done", "category:done", ""},
		{"category:In-Progress", "category:in_progress", ""},
		{"priority:>=High", "priority:>=High", ""},
		{"priority:=low", "priority:Low", ""},
		{"assignee:me", "assignee:@me", ""},
		{"assignee:none", "assignee:@none", ""},
		{"assignee:ada@example.com", "assignee:ada@example.com", ""},
		{"reporter:me label:bug -label:wontfix", "AND(reporter:@me label:bug NOT(label:wontfix))", ""},
		{`sprint:current`, "sprint:@current", ""},
		{`sprint:"Sprint 12"`, "sprint:Sprint 12", ""},
		{`project:ABC created:>2026-01-01 updated:<7d`, "AND(project:ABC created:>2026-01-01 updated:<168h0m0s)", ""},
		{`tag:env=prod tag:team`, "AND(tag:env=prod tag:team)", ""},
		{`has:attachments`, "has:attachments", ""},
		{`is:Blocked`, "is:blocked", ""},
		{`login crash`, "AND(login crash)", ""},
		{`"login crash" sort:updated-desc`, `"login crash"`, "updated-desc"},
		{`sort:updated`, "<all>", "updated-desc"},
		{`sort:created-asc label:x`, "label:x", "created-asc"},
		{`sort:number`, "<all>", "number-asc"},
		{`sort:priority`, "<all>", "priority-desc"},
		{`label:bug OR label:crash`, "OR(label:bug label:crash)", ""},
		{`status:Todo (label:bug OR label:crash) -assignee:me`, "AND(status:Todo OR(label:bug label:crash) NOT(assignee:@me))", ""},
		{`a OR b c`, "OR(a AND(b c))", ""},
		{`-(label:a OR label:b)`, "NOT(OR(label:a label:b))", ""},
		{`a - b`, "AND(a - b)", ""},
		{`"say \"hi\" \\ now"`, `"say \"hi\" \\ now"`, ""},
		{`http.x:y`, "http.x:y", ""},
		{`ÄÖ 日本`, "AND(ÄÖ 日本)", ""},
	}
	for _, c := range cases {
		q, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := show(q.Root); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
		if c.sort != "" && q.Sort.String() != c.sort {
			t.Errorf("%q: sort %s, want %s", c.in, q.Sort, c.sort)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in  string
		pos int
		msg string
	}{
		{"foo:bar", 1, `unknown field "foo"`},
		{"label:bug nope:x", 11, `unknown field "nope"`},
		{"priority:Urgent", 1, "priority: must be one of"},
		{"status:>Done", 1, "status: does not take >"},
		{"assignee:ada", 1, "assignee: must be me, none or an email"},
		{"reporter:none", 1, "reporter: must be me or an email"},
		{"created:yesterday", 1, "created: must be a date"},
		{"category:blocked", 1, "category: must be one of"},
		{"has:wings", 1, "has: must be"},
		{"is:open", 1, "is: must be blocked"},
		{"parent:ENG", 1, "parent: must be a ticket reference"},
		{"parent:ENG-0", 1, "parent: must be a ticket reference"},
		{"x parent:-12", 3, "parent: must be a ticket reference"},
		{"parent:ENG-+1", 1, "parent: must be a ticket reference"},
		{"label:", 1, "label: a value is required"},
		{`label:"`, 7, "unterminated quoted string"},
		{`"abc`, 1, "unterminated quoted string"},
		{"(label:a", 1, "unmatched ("},
		{"label:a)", 8, "unmatched )"},
		{"()", 2, "empty parentheses"},
		{"OR a", 1, "OR needs a term"},
		{"a OR", 3, "OR needs a term"},
		{"a OR OR b", 3, "OR needs a term"},
		{"(sort:updated)", 2, "top level"},
		{"sort:updated sort:created", 14, "only once"},
		{"sort:size", 1, "sort: must be"},
		{"-sort:updated", 1, "cannot be negated"},
		{"a \x01b", 3, "control characters"},
		{"a \xff", 3, "not valid UTF-8"},
		{strings.Repeat("(", 11) + "a" + strings.Repeat(")", 11), 11, "nest deeper"},
		{strings.Repeat("a ", 51), 101, "more than 50 terms"},
		{strings.Repeat("a", 1001), 1001, "longer than"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("%q: got %v, want a query error", c.in, err)
			continue
		}
		if qe.Pos != c.pos || !strings.Contains(qe.Msg, c.msg) {
			t.Errorf("%q: got %d %q, want %d %q", c.in, qe.Pos, qe.Msg, c.pos, c.msg)
		}
	}
}

// FuzzParse: any input parses or fails with a positioned error inside (or
// just past) the input; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "status:InProgress", `status:"In Review"`, "priority:>=High label:bug -label:wontfix",
		"(a OR b) c", `"x \" y"`, "sort:updated-desc", "created:>2026-01-01 updated:<7d", "tag:k=v", "-(", "((((", "\xff", "a OR"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("%q: non-query error %v", s, err)
			}
			if qe.Pos < 1 || qe.Pos > len([]rune(s))+1 && qe.Pos != MaxLength+1 {
				t.Fatalf("%q: position %d outside the input", s, qe.Pos)
			}
			return
		}
		if q.Sort.Key == "" {
			t.Fatalf("%q: no sort", s)
		}
	})
}
