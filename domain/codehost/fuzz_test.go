package codehost

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// FuzzExtractRefs: any title and branch extract without panic; every
// reference has an upper-case key of the ref pattern and a positive number,
// appears once, and occurs in one of the texts (key in any case, number
// perhaps with leading zeros) as a whole word.
func FuzzExtractRefs(f *testing.F) {
	for _, s := range [][2]string{{"PROJ-12: fix login", "feature/PROJ-12-login"}, {"Fix abc-3 and ABC-4", "proj-12"},
		{"year 2024-10 and -5", ""}, {"Ops_2-7 (x)", "bugfix/ops_2-7"}, {"PROJ-0 PROJ-99999999999999999999", ""},
		{"PROJ-007 proj-7", "PrOj-0007"}, {"ÄB-1 éa-2", "a\x00-1"}, {"\xff\xfeX-1", "ABCDEFGHIJK-1 ABCDEFGHIJ-1"}} {
		f.Add(s[0], s[1])
	}
	keyOK := regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,9}$`)
	f.Fuzz(func(t *testing.T, title, branch string) {
		refs := ParseRefs(title, branch)
		seen := map[Ref]bool{}
		for _, r := range refs {
			if !keyOK.MatchString(r.Key) {
				t.Fatalf("ParseRefs(%q, %q): key %q not an upper-case project key", title, branch, r.Key)
			}
			if r.Number < 1 {
				t.Fatalf("ParseRefs(%q, %q): number %d not positive", title, branch, r.Number)
			}
			if seen[r] {
				t.Fatalf("ParseRefs(%q, %q): %s twice", title, branch, r)
			}
			seen[r] = true
			in := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(r.Key) + `-0*` + strconv.FormatInt(r.Number, 10) + `\b`)
			if !in.MatchString(title) && !in.MatchString(branch) {
				t.Fatalf("ParseRefs(%q, %q): %s not in the input", title, branch, r)
			}
			if !strings.Contains(strings.ToUpper(title+"\n"+branch), r.Key+"-") {
				t.Fatalf("ParseRefs(%q, %q): key %s not in the input", title, branch, r.Key)
			}
		}
	})
}
