package searchquery

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestParseEdges pins each limit at its boundary and each lexer rule on the
// characters either side of it.
func TestParseEdges(t *testing.T) {
	t.Parallel()
	email320 := strings.Repeat("a", 320-len("@example.com")) + "@example.com"
	cases := []struct{ in, want string }{
		// Every space the lexer knows separates words.
		{"a\tb\nc\rd\fe\vf\u00a0g\u3000h", "AND(a b c d e f g h)"},
		// A minus before a space, a ")", another minus or the end is a word.
		{"a -", "AND(a -)"},
		{"(a -)", "AND(a -)"},
		{"--x", "--x"},
		{"-x", "NOT(x)"},
		// Field names are ASCII letters and "_"; anything else is a plain word.
		{"`:x", "`:x"},
		{"{:x", "{:x"},
		{"@:x", "@:x"},
		{"[:x", "[:x"},
		{"label:=x", "label:x"},
		{"status:=Done", "status:Done"},
		{`label:"a:b"`, "label:a:b"},
		{`"U+FFFD: �"`, `"U+FFFD: �"`},
		// Values at their limits.
		{"assignee:" + email320, "assignee:" + email320},
		{"label:" + strings.Repeat("x", 500), "label:" + strings.Repeat("x", 500)},
		{"updated:<0d", "updated:<0s"},
		{"created:>36500d", "created:>876000h0m0s"},
		{"created:>52560000m", "created:>876000h0m0s"},
		{"created:<2w", "created:<336h0m0s"},
		{"created:<30m", "created:<30m0s"},
		{"created:<12h", "created:<12h0m0s"},
		{"created:<=2026-02-28", "created:<=2026-02-28"},
		// Words the fields give a meaning to, unquoted only.
		{"category:inprogress", "category:in_progress"},
		{`category:"In Progress"`, "category:in_progress"},
		{"category:TODO", "category:todo"},
		{"category:Cancelled", "category:cancelled"},
		{"priority:critical", "priority:Critical"},
		{"priority:<none", "priority:<None"},
		{"reporter:me", "reporter:@me"},
		{"reporter:REPORTER@example.com", "reporter:REPORTER@example.com"},
		{"sprint:none", "sprint:@none"},
		{`sprint:"current"`, "sprint:current"},
		{`sprint:"none"`, "sprint:none"},
		{"sprint:Current", "sprint:@current"},
		{"has:Labels has:assignee", "AND(has:labels has:assignee)"},
		{"tag:k=", "tag:k="},
		{"tag:k=a=b", "tag:k=a=b"},
		{"Label:Bug", "label:Bug"},
		// Depth is restored when a group closes.
		{"(a) (b) (c) (d) (e) (f) (g) (h) (i) (j) (k)", "AND(a b c d e f g h i j k)"},
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
	}

	// The longest query, the most terms and the deepest nesting accepted.
	for _, in := range []string{
		strings.Repeat("a", MaxLength),
		strings.TrimSpace(strings.Repeat("a ", MaxTerms)),
		strings.Repeat("(", MaxDepth) + "a" + strings.Repeat(")", MaxDepth),
		"(a) sort:updated",
	} {
		if _, err := Parse(in); err != nil {
			t.Errorf("%.40q…: %v", in, err)
		}
	}
}

func TestParseEdgeErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in  string
		pos int
		msg string
	}{
		{"a \x1f", 3, "control characters"},
		{"a b\x7f", 4, "control characters"},
		{`"a\n"`, 4, `only \" and \\ are escapes`},
		{`x "abc\`, 3, "unterminated quoted string"},
		{"a \"b\xff\"", 5, "not valid UTF-8"},
		{"日本 nope:x", 4, `unknown field "nope"`},
		{"azAZ_:x", 1, `unknown field "azAZ_"`},
		{"foo:", 1, `unknown field "foo"`},
		{"foo:>x", 1, `unknown field "foo"`},
		{`label:" "`, 1, "label: a value is required"},
		{"priority:>=", 1, "priority: a value is required"},
		{"priority:>", 1, "priority: a value is required"},
		{`a ""`, 3, "empty quoted string"},
		{`a "  "`, 3, "empty quoted string"},
		{`assignee:"me"`, 1, "assignee: must be me, none or an email"},
		{`assignee:"none"`, 1, "assignee: must be me, none or an email"},
		{`reporter:"me"`, 1, "reporter: must be me or an email"},
		{"assignee:a" + strings.Repeat("b", 320-len("@example.com")) + "@example.com", 1, "assignee: must be me, none"},
		{"label:" + strings.Repeat("x", 501), 1, "label: the value is longer than 500 bytes"},
		{`tag:"=x"`, 1, "tag: must be key=value or key"},
		{"tag:==x", 1, "tag: must be key=value or key"},
		{"tag: =x", 1, "tag: a value is required"},
		{"has:label", 1, "has: must be attachments, labels or assignee"},
		{"updated:<-1d", 1, "updated: must be a date"},
		{"created:>36501d", 1, "created: must be a date"},
		{"created:>52560001m", 1, "created: must be a date"},
		{"created:>d", 1, "created: must be a date"},
		{"created:>7y", 1, "created: must be a date"},
		{"created:>7", 1, "created: must be a date"},
		{"sort:updated-up", 1, "sort: must be"},
		{"sort:>updated", 1, "sort: must be"},
		{")", 1, "unmatched )"},
		{"(", 2, "a term is expected"},
		{"-OR a", 1, "- must be followed by a term"},
		{"a OR sort:updated", 18, "sort: cannot be a side of OR"},
		{"(a) " + strings.Repeat("b ", MaxTerms), 4 + 2*(MaxTerms-1) + 1, "more than 50 terms"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("%.60q: got %v, want a query error", c.in, err)
			continue
		}
		if qe.Pos != c.pos || !strings.Contains(qe.Msg, c.msg) {
			t.Errorf("%.60q: got %d %q, want %d %q", c.in, qe.Pos, qe.Msg, c.pos, c.msg)
		}
	}
	if got := (&Error{Pos: 3, Msg: "boom"}).Error(); got != "at 3: boom" {
		t.Fatalf("Error() = %q", got)
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	q, err := Parse("priority:high created:2026-03-01 updated:>3d tag:env=prod tag:team sprint:none assignee:none")
	if err != nil {
		t.Fatal(err)
	}
	terms := q.Root.(And).Terms
	want := []Term{
		{Field: "priority", Pos: 1, Value: "High", Priority: 3},
		{Field: "created", Pos: 15, Value: "2026-03-01", Date: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{Field: "updated", Pos: 34, Op: ">", Value: "3d", Age: 72 * time.Hour, Relative: true},
		{Field: "tag", Pos: 46, Value: "env", TagValue: "prod"},
		{Field: "tag", Pos: 59, Value: "team", TagAny: true},
		{Field: "sprint", Pos: 68, Value: "none", None: true},
		{Field: "assignee", Pos: 80, Value: "none", None: true},
	}
	if len(terms) != len(want) {
		t.Fatalf("%d terms", len(terms))
	}
	for i, w := range want {
		if got := terms[i].(Term); got != w {
			t.Errorf("term %d = %+v, want %+v", i, got, w)
		}
	}
	if q.HasText || q.Sort != (Sort{Key: SortID}) {
		t.Fatalf("query %+v", q)
	}
	pq, err := Parse("parent:eng-12")
	if err != nil || pq.Root.(Term) != (Term{Field: "parent", Pos: 1, Value: "ENG", Number: 12}) {
		t.Fatalf("parent: %+v %v", pq.Root, err)
	}
	n, err := Parse(`-"a b" c`)
	if err != nil {
		t.Fatal(err)
	}
	if not := n.Root.(And).Terms[0].(Not); not.Pos != 1 || not.Term.(Text).Pos != 2 || n.Root.(And).Terms[1].(Text).Pos != 8 {
		t.Fatalf("positions %+v", n.Root)
	}
}

func TestParseSort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"created": "created-desc", "UPDATED": "updated-desc", "priority-asc": "priority-asc", "number": "number-asc",
		"number-desc": "number-desc", "relevance": "relevance-desc", "relevance-asc": "relevance-asc", "created-desc": "created-desc",
	} {
		s, ok := ParseSort(in)
		if !ok || s.String() != want {
			t.Errorf("ParseSort(%q) = %v %v, want %s", in, s, ok, want)
		}
	}
	for _, in := range []string{"", "id", "size", "created-down", "-asc"} {
		if _, ok := ParseSort(in); ok {
			t.Errorf("ParseSort(%q) accepted", in)
		}
	}
	// Free words rank by relevance unless sort: says otherwise.
	for in, want := range map[string]string{
		"crash": "relevance-desc", "crash sort:number": "number-asc", "label:x": "id-asc", "-crash": "relevance-desc",
	} {
		q, err := Parse(in)
		if err != nil || q.Sort.String() != want {
			t.Errorf("Parse(%q).Sort = %v, %v; want %s", in, q.Sort, err, want)
		}
	}
}

func TestRankText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`login "crash report" -ignored (a OR b) label:x`: `login or "crash report" or a or b`,
		`"say \"hi\""`:   `"say hi"`,
		`-"gone" x`:      "x",
		"label:x":        "",
		"":               "",
		`(a OR "b c") d`: `a or "b c" or d`,
	} {
		q, err := Parse(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := q.RankText(); got != want {
			t.Errorf("RankText(%q) = %q, want %q", in, got, want)
		}
	}
}
