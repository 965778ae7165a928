package codehost

import (
	"regexp"
	"strconv"
	"strings"
)

// Ref is one ticket reference KEY-NUMBER.
type Ref struct {
	Key    string // upper-case
	Number int64
}

func (r Ref) String() string { return r.Key + "-" + strconv.FormatInt(r.Number, 10) }

// refPattern is a project key (a letter, then up to nine letters, digits or
// underscores) and a number, as a whole word: "PROJ-12" in a title,
// "feature/PROJ-12-login" or "proj-12" in a branch.
var refPattern = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9_]{0,9})-([0-9]{1,18})\b`)

// ParseRefs reads the references in each text in order of appearance,
// case-insensitively, without duplicates.
func ParseRefs(texts ...string) []Ref {
	seen := map[Ref]bool{}
	out := []Ref{}
	for _, s := range texts {
		for _, m := range refPattern.FindAllStringSubmatch(s, -1) {
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil || n < 1 {
				continue
			}
			r := Ref{Key: strings.ToUpper(m[1]), Number: n}
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}
