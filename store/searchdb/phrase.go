package searchdb

import (
	"context"
	"strconv"
	"strings"

	"tracker/store"
)

// A phrase ("payment timeout") is the tsquery 'payment' <-> 'timeout': both
// words at adjacent positions. The text index (GIN over search_vector)
// keeps no positions, so alone it returns every ticket with both words,
// each rechecked against its vector (23,259 tickets for 2,410 matches at
// 1,000,000 tickets). Migration 034 indexes ticket_word_pairs(search_vector),
// the adjacent lexeme pairs of each vector ('payment timeout'), and a phrase
// also requires each of its <-> pairs there: a condition the pair index
// answers with about the phrase's matches, implied by the phrase itself
// (the pairs come from the same vector's positions), which stays the check.

// pairsExpr is the pair-index expression (migration 034's
// tickets_search_pairs_idx indexes exactly this).
const pairsExpr = "ticket_word_pairs(t.search_vector)"

// maxPair is the longest pair the index keeps (a tsvector lexeme holds at
// most 2,047 bytes); a vector with a longer pair is the marker alone.
const maxPair = 2046

// pairMarker is the lexeme of a vector whose pairs the index could not
// keep (ticket_word_pairs): every phrase prefilter accepts it.
const pairMarker = "' '"

// resolvePhrases fills out with the pair prefilter of each phrase: the
// phrase's tsquery as websearch_to_tsquery makes it (stemmed, stop words
// counted), in one query.
func resolvePhrases(ctx context.Context, q store.Querier, phrases []string, out map[string]string) error {
	texts := make([]string, len(phrases))
	for i, p := range phrases {
		texts[i] = `"` + stripQuotes(p) + `"`
	}
	type row struct {
		Q string `db:"q"`
	}
	rows, err := store.SelectRaw[row](ctx, q, "SELECT websearch_to_tsquery('"+TextConfig+"', p.v)::text AS q "+
		"FROM unnest($1::text[]) WITH ORDINALITY AS p(v, n) ORDER BY p.n", texts)
	if err != nil {
		return err
	}
	for i, r := range rows {
		out[phrases[i]] = PhrasePairs(r.Q)
	}
	return nil
}

// PhrasePairs is the pair prefilter of a phrase's tsquery (its text form,
// as PostgreSQL prints it: 'payment' <-> 'timeout' <2> 'error'): the
// tsquery, over ticket_word_pairs, of every pair of lexemes that <-> joins
// (' ' | 'payment timeout'); "" when there is none or the query is not a
// plain chain of lexemes joined by <N> (then the phrase runs without a
// prefilter). A pair longer than the index keeps is left out: a ticket
// that has it holds the marker, which the prefilter accepts.
func PhrasePairs(tsq string) string {
	lexemes, dists, ok := phraseChain(tsq)
	if !ok {
		return ""
	}
	var pairs []string
	seen := map[string]bool{}
	for i, d := range dists {
		p := lexemes[i] + " " + lexemes[i+1]
		if d != 1 || len(p) > maxPair || seen[p] {
			continue
		}
		seen[p] = true
		pairs = append(pairs, quoteLexeme(p))
	}
	if len(pairs) == 0 {
		return ""
	}
	return pairMarker + " | ( " + strings.Join(pairs, " & ") + " )"
}

// phraseChain splits a tsquery's text into its lexemes and the distances
// of the <N> operators between them; ok is false for anything else
// (&, |, !, parentheses, weights, prefixes).
func phraseChain(s string) (lexemes []string, dists []int, ok bool) {
	i := 0
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) || s[i] != '\'' {
			return nil, nil, false
		}
		var b strings.Builder
		for i++; ; i++ {
			if i >= len(s) {
				return nil, nil, false
			}
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
				continue
			}
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
					b.WriteByte('\'')
					continue
				}
				i++
				break
			}
			b.WriteByte(c)
		}
		lexemes = append(lexemes, b.String())
		skip()
		if i >= len(s) {
			return lexemes, dists, true
		}
		if s[i] != '<' {
			return nil, nil, false
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			return nil, nil, false
		}
		op := s[i+1 : i+end]
		i += end + 1
		if op == "-" {
			dists = append(dists, 1)
			continue
		}
		d, err := strconv.Atoi(op)
		if err != nil {
			return nil, nil, false
		}
		dists = append(dists, d)
	}
}

// quoteLexeme writes s as one tsquery lexeme: quoted, with ' doubled and
// \ escaped.
func quoteLexeme(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}
