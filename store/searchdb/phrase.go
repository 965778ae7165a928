package searchdb

import (
	"context"
	"strconv"
	"strings"

	"tracker/internal/searchquery"
	"tracker/store"
)

// A phrase ("payment timeout") is the tsquery 'payment' <-> 'timeout': both
// words at adjacent positions. The text index (GIN over search_vector)
// keeps no positions, so alone it returns every ticket with both words,
// each rechecked against its vector (23,259 tickets for 2,410 matches at
// 1,000,000 tickets). Migration 034 indexes ticket_word_pairs(search_vector),
// the adjacent lexeme pairs of each vector ('payment timeout'), and a phrase
// also requires each of its rare <-> pairs there (MaxPairShare, by the
// statistics of migration 035): a condition the pair index answers with
// about the phrase's matches, implied by the phrase itself (the pairs come
// from the same vector's positions), which stays the check.

// pairsExpr is the pair-index expression (migration 034's
// tickets_search_pairs_idx indexes exactly this).
const pairsExpr = "ticket_word_pairs(t.search_vector)"

// maxPair is the longest pair the index keeps (a tsvector lexeme holds at
// most 2,047 bytes); a vector with a longer pair is the marker alone.
const maxPair = 2046

// pairMarker is the lexeme of a vector whose pairs the index could not
// keep (ticket_word_pairs): every phrase prefilter accepts it.
const pairMarker = "' '"

// MaxPairShare is the largest share of the tickets a pair may have for the
// prefilter to use it: the pair index reads every ticket with the pair,
// while the updated-order walk of the relevance window reads about
// RankWindow / share tickets, so at 1,000,000 tickets a pair in 0.25% of
// them ("payment timeout") is cheaper by the index (2,500 tickets against
// 80,000) and one in 2% ("zeppelin build") by the walk. Above it the
// prefilter would also make things worse: with it the planner, which
// multiplies the shares of the phrase and its pairs as if they were
// independent, takes the phrase for rarer than it is and reads the pair
// index or the text index for a common phrase (20,030 tickets for "zeppelin
// build").
const MaxPairShare = 0.01

// pairStats is the pair statistics' name (migration 035).
const pairStats = "tickets_word_pairs_stats"

// resolvePhrases fills out with the pair prefilter of each phrase: the
// phrase's tsquery as websearch_to_tsquery makes it (stemmed, stop words
// counted; tsq, by textQuery, from dropEmptyText), then the share of each of its pairs by the statistics of the
// pair index's expression (pg_stats_ext_exprs). Only pairs under
// MaxPairShare are required; without statistics (never analyzed, or not
// readable by this role) no phrase gets a prefilter.
func resolvePhrases(ctx context.Context, q store.Querier, phrases []string, tsq, out map[string]string) error {
	pairs := make([][]string, len(phrases))
	var all []string
	for i, p := range phrases {
		pairs[i] = phrasePairs(tsq[textQuery(searchquery.Text{Value: p, Quoted: true})])
		all = append(all, pairs[i]...)
	}
	if len(all) == 0 {
		return nil
	}
	shares, err := pairShares(ctx, q, all)
	if err != nil {
		return err
	}
	for i, ps := range pairs {
		var rare []string
		for _, p := range ps {
			if share, ok := shares[p]; ok && share < MaxPairShare {
				rare = append(rare, p)
			}
		}
		out[phrases[i]] = pairQuery(rare)
	}
	return nil
}

// pairShares estimates the share of the tickets holding each pair from the
// most common elements of the pair statistics: a listed pair's frequency;
// an unlisted one is rarer than the least common listed, so 0, unless the
// list is full (as long as the statistics target allows), when the least
// common listed frequency bounds it. No statistics: an empty map.
func pairShares(ctx context.Context, q store.Querier, pairs []string) (map[string]float64, error) {
	type row struct {
		Pair  string  `db:"pair"`
		Share float64 `db:"share"`
	}
	rows, err := store.SelectRaw[row](ctx, q, `SELECT p.pair, coalesce(
			(SELECT u.f FROM unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(e, f) WHERE u.e = p.pair LIMIT 1),
			CASE WHEN array_length(s.most_common_elems, 1) >= 10 * current_setting('default_statistics_target')::int
			     THEN s.most_common_elem_freqs[array_length(s.most_common_elems, 1) + 1] ELSE 0 END)::float8 AS share
		FROM pg_stats_ext_exprs s, unnest($1::text[]) AS p(pair)
		WHERE s.statistics_schemaname = current_schema() AND s.statistics_name = $2 AND s.most_common_elems IS NOT NULL`, pairs, pairStats)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(rows))
	for _, r := range rows {
		out[r.Pair] = r.Share
	}
	return out, nil
}

// PhrasePairs is the pair prefilter of a phrase's tsquery (its text form,
// as PostgreSQL prints it: 'payment' <-> 'timeout' <2> 'error'): the
// tsquery, over ticket_word_pairs, of every pair of lexemes that <-> joins
// (' ' | 'payment timeout'); "" when there is none or the query is not a
// plain chain of lexemes joined by <N> (then the phrase runs without a
// prefilter). A pair longer than the index keeps is left out: a ticket
// that has it holds the marker, which the prefilter accepts. (The search
// keeps only the rare pairs: resolvePhrases.)
func PhrasePairs(tsq string) string {
	return pairQuery(phrasePairs(tsq))
}

// phrasePairs lists the distinct pairs of lexemes that <-> joins in a
// phrase's tsquery text, at most maxPair bytes each.
func phrasePairs(tsq string) []string {
	lexemes, dists, ok := phraseChain(tsq)
	if !ok {
		return nil
	}
	var pairs []string
	seen := map[string]bool{}
	for i, d := range dists {
		p := lexemes[i] + " " + lexemes[i+1]
		if d != 1 || len(p) > maxPair || seen[p] {
			continue
		}
		seen[p] = true
		pairs = append(pairs, p)
	}
	return pairs
}

// pairQuery is the prefilter requiring every pair (or the marker); "" for
// none.
func pairQuery(pairs []string) string {
	if len(pairs) == 0 {
		return ""
	}
	quoted := make([]string, len(pairs))
	for i, p := range pairs {
		quoted[i] = quoteLexeme(p)
	}
	return pairMarker + " | ( " + strings.Join(quoted, " & ") + " )"
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
