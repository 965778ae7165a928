package searchdb

import (
	"strings"
	"unicode"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"

	"tracker/internal/searchquery"
)

// text matches a free word or phrase in title, description and comments
// (index tickets_search_idx). A word that Resolve found in few visible
// tickets (Names.Rare) is those tickets by id, and a word it found in none
// and too short for the typo fallback matches nothing. A phrase also
// requires its adjacent word
// pairs in the pair index (tickets_search_pairs_idx, phrase.go), which that
// index answers; the phrase stays the check. A bare word of 4 or more
// characters that the full text finds in none of the visible tickets
// (Resolve) matches titles with a similar word instead (the typo fallback:
// "dashbord" finds "Slow dashboard"): Resolve looks the similar words up in
// the org's title words (table ticket_title_words, pg_trgm similarity), and
// the term is a title containing one of those words (ILIKE, which the
// trigram index of titles answers and the title statistics estimate) that
// the full text of those words restricted to titles (weight A) matches.
// The full text alone has no estimate for a weighted word outside the
// text statistics' most common words (it takes "first", in one ticket, for
// 0.5% of them), so the planner would walk the most recently updated
// tickets for a window of matches and read all of them; the title
// statistics estimate the ILIKE.
func text(n searchquery.Text, env Env) sq.Sqlizer {
	v := textQuery(n)
	fts := sq.Expr("t.search_vector @@ websearch_to_tsquery('"+TextConfig+"', ?)", v)
	if n.Quoted && env.Names.Phrases[n.Value] != "" {
		// The pair index's prefilter (phrase.go), then the phrase.
		return sq.And{sq.Expr(pairsExpr+" @@ ?::tsquery", env.Names.Phrases[n.Value]), fts}
	}
	if r := env.Names.Rare[n.Value]; r != nil && !n.Quoted {
		// The few visible tickets with the word, from the text index
		// (computed once, an InitPlan), then read by id.
		return sq.Expr("t.id = ANY(ARRAY(?))", r)
	}
	if !n.Quoted && env.Names.Unknown[n.Value] && !fuzzy(n) {
		return sq.Expr("false")
	}
	if fuzzy(n) && env.Names.Unknown[n.Value] {
		if q := titleWords(env.Names.Similar[n.Value]); q != "" {
			return sq.And{sq.Expr("t.title ILIKE ANY(?)", titlePatterns(env.Names.Similar[n.Value])),
				sq.Expr("t.search_vector @@ to_tsquery('"+TextConfig+"', ?)", q)}
		}
		return sq.Expr("false")
	}
	return fts
}

// textQuery is the websearch_to_tsquery text of n: a phrase in quotes.
func textQuery(n searchquery.Text) string {
	if n.Quoted {
		return `"` + stripQuotes(n.Value) + `"`
	}
	return n.Value
}

// titleWords is the tsquery text that matches any of words in a title
// (weight A): "dashboard:A | dashboards:A". Only words of letters and
// digits are taken (what ticket_title_words stores), so no word carries a
// tsquery operator; "" when none is left.
func titleWords(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if !plainWord(w) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(w)
		b.WriteString(":A")
	}
	return b.String()
}

// titlePatterns is the ILIKE patterns of titles containing one of words
// (the plain ones, as titleWords takes them).
func titlePatterns(words []string) []string {
	var out []string
	for _, w := range words {
		if plainWord(w) {
			out = append(out, containsPattern(w))
		}
	}
	return out
}

// plainWord tells whether w is made of letters and digits only.
func plainWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// fuzzy tells whether a free word may match similar title words: a bare
// word of 4 characters or more.
func fuzzy(n searchquery.Text) bool {
	return !n.Quoted && utf8.RuneCountInString(n.Value) >= 4
}

func stripQuotes(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			b = append(b, s[i])
		}
	}
	return string(b)
}
