package searchdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store"
)

// Names are the label and sprint names of a query resolved to ids before
// the search runs (Resolve). With them a label or sprint term compiles to a
// comparison with constant ids, so the planner sees how many tickets carry
// that label or sprint (its statistics) and picks the plan for a rare one
// (read the few matches by label or sprint, then sort) apart from a common
// one (walk the tickets in sort order and keep the matches). Behind a
// subquery the planner cannot tell them apart: a rare or unused label read
// all of ticket_labels in ticket order.
type Names struct {
	// Labels and Sprints map a lower-case name to the live labels and
	// sprints of the org with that name (none: the term matches nothing).
	Labels, Sprints map[string][]uuid.UUID
	// Current is the org's active sprints (sprint:current).
	Current []uuid.UUID
	// Unknown holds the free words (unquoted) the full-text search finds
	// in none of the visible tickets: one of 4 characters or more matches
	// titles with a similar word instead (the typo fallback), a shorter
	// one nothing. A word the text search knows does not pay for the
	// trigram comparison, and a word that matches nothing is not looked
	// for along every ticket.
	Unknown map[string]bool
	// Rare maps a free word found in at most RareMax visible tickets, none
	// of them in the probe's sample (inSample, wordFound), to the query of the
	// visible tickets that have it, which the text index answers: the term
	// reads those few tickets by id. Left to the planner, the full text of a
	// word outside its statistics' most common words is estimated at 0.5% of
	// the tickets, so a sort or relevance window would walk the tickets in
	// that order for matches and read all of them for a word in a handful.
	Rare map[string]sq.Sqlizer
	// Similar maps an unknown word to the title words of the org similar to
	// it (pg_trgm similarity, at most MaxSimilar, most similar first):
	// the typo fallback matches titles with any of them.
	Similar map[string][]string
	// Phrases maps a quoted phrase (its Text value) to the prefilter of its
	// adjacent word pairs (PhrasePairs): "" when the phrase has none.
	Phrases map[string]string
}

// MaxSimilar is how many similar title words a typo tries.
const MaxSimilar = 20

// Resolve looks up the label and sprint names s's query uses (one small
// query each, by the org's label name index and the org's sprints), probes
// its free words (inSample, wordFound) and makes the pair prefilter of its phrases
// (resolvePhrases), and returns s with them in Env.Names (empty for a query
// without such terms, which costs no query). Where compiles only a
// resolved query (ErrUnresolved).
func Resolve(ctx context.Context, q store.Querier, s Search) (Search, error) {
	if s.Names != nil || s.Root == nil {
		return s, nil
	}
	root, tsq, err := dropEmptyText(ctx, q, s.Root)
	if err != nil {
		return s, err
	}
	if s.Root = root; root == nil {
		s.Names = &Names{}
		return s, nil
	}
	var labels, sprints, words, phrases []string
	current := false
	leaves(s.Root, func(n searchquery.Node) {
		switch n := n.(type) {
		case searchquery.Text:
			if n.Quoted {
				phrases = append(phrases, n.Value)
			} else {
				words = append(words, n.Value)
			}
		case searchquery.Term:
			switch {
			case n.Field == searchquery.FieldLabel:
				labels = append(labels, strings.ToLower(n.Value))
			case n.Field == searchquery.FieldSprint && n.Current:
				current = true
			case n.Field == searchquery.FieldSprint && !n.None:
				sprints = append(sprints, strings.ToLower(n.Value))
			}
		}
	})
	if len(labels) == 0 && len(sprints) == 0 && !current && len(words) == 0 && len(phrases) == 0 {
		s.Names = &Names{}
		return s, nil
	}
	names := &Names{Labels: map[string][]uuid.UUID{}, Sprints: map[string][]uuid.UUID{},
		Unknown: map[string]bool{}, Rare: map[string]sq.Sqlizer{}, Similar: map[string][]string{}, Phrases: map[string]string{}}
	if len(phrases) > 0 {
		if err := resolvePhrases(ctx, q, phrases, tsq, names.Phrases); err != nil {
			return s, err
		}
	}
	var common map[string]bool
	if len(words) > 0 {
		if common, err = inSample(ctx, q, s, words); err != nil {
			return s, err
		}
	}
	for _, w := range words {
		if _, done := names.Unknown[w]; done {
			continue
		}
		if common[w] {
			names.Unknown[w] = false
			continue
		}
		found, rare, err := wordFound(ctx, q, s, w)
		if err != nil {
			return s, err
		}
		names.Unknown[w] = !found
		if rare {
			b, err := withWord(s, w, "t.id")
			if err != nil {
				return s, err
			}
			names.Rare[w] = b.PlaceholderFormat(sq.Question)
		}
		if !found && fuzzy(searchquery.Text{Value: w}) {
			if names.Similar[w], err = similarWords(ctx, q, s.OrgID, w); err != nil {
				return s, err
			}
		}
	}
	type named struct {
		Name string    `db:"name"`
		ID   uuid.UUID `db:"id"`
	}
	if len(labels) > 0 {
		rows, err := store.Select[named](ctx, q, store.SQL.Select("lower(l.name) AS name", "l.id").From("labels l").
			Where("l.org_id = ? AND lower(l.name) = ANY(?) AND l.deleted_at IS NULL", s.OrgID, labels))
		if err != nil {
			return s, err
		}
		for _, r := range rows {
			names.Labels[r.Name] = append(names.Labels[r.Name], r.ID)
		}
	}
	if len(sprints) > 0 {
		rows, err := store.Select[named](ctx, q, store.SQL.Select("lower(sp.name) AS name", "sp.id").From("sprints sp").
			Where("sp.org_id = ? AND lower(sp.name) = ANY(?) AND sp.deleted_at IS NULL", s.OrgID, sprints))
		if err != nil {
			return s, err
		}
		for _, r := range rows {
			names.Sprints[r.Name] = append(names.Sprints[r.Name], r.ID)
		}
	}
	if current {
		rows, err := store.Select[named](ctx, q, store.SQL.Select("'' AS name", "sp.id").From("sprints sp").
			Where("sp.org_id = ? AND sp.status = 'Active' AND sp.deleted_at IS NULL", s.OrgID))
		if err != nil {
			return s, err
		}
		names.Current = []uuid.UUID{}
		for _, r := range rows {
			names.Current = append(names.Current, r.ID)
		}
	}
	s.Names = names
	return s, nil
}

// dropEmptyText removes from n the free words and phrases that have no
// lexeme for the full text (stop words such as "the", punctuation), as
// websearch_to_tsquery ignores them in a text: alone, such a word's query
// is empty and matches no ticket, so "the login crash" found nothing. An
// And or Or left with one term is that term; nil when nothing is left
// (no condition). One query for all the texts of n, which also returns
// each text's tsquery (by textQuery; resolvePhrases reads the phrases').
func dropEmptyText(ctx context.Context, q store.Querier, n searchquery.Node) (searchquery.Node, map[string]string, error) {
	var texts []string
	leaves(n, func(n searchquery.Node) {
		if t, ok := n.(searchquery.Text); ok {
			texts = append(texts, textQuery(t))
		}
	})
	if len(texts) == 0 {
		return n, nil, nil
	}
	type row struct {
		T string `db:"t"`
		Q string `db:"q"`
	}
	rows, err := store.SelectRaw[row](ctx, q, "SELECT t.t, websearch_to_tsquery('"+TextConfig+"', t.t)::text AS q "+
		"FROM unnest($1::text[]) AS t(t)", texts)
	if err != nil {
		return n, nil, err
	}
	tsq := make(map[string]string, len(rows))
	empty := map[string]bool{}
	for _, r := range rows {
		tsq[r.T] = r.Q
		empty[r.T] = r.Q == ""
	}
	var drop func(n searchquery.Node) searchquery.Node
	each := func(terms []searchquery.Node) []searchquery.Node {
		var out []searchquery.Node
		for _, t := range terms {
			if t = drop(t); t != nil {
				out = append(out, t)
			}
		}
		return out
	}
	drop = func(n searchquery.Node) searchquery.Node {
		switch n := n.(type) {
		case searchquery.And:
			terms := each(n.Terms)
			if len(terms) <= 1 {
				return first(terms)
			}
			return searchquery.And{Terms: terms}
		case searchquery.Or:
			terms := each(n.Terms)
			if len(terms) <= 1 {
				return first(terms)
			}
			return searchquery.Or{Terms: terms}
		case searchquery.Not:
			if t := drop(n.Term); t != nil {
				return searchquery.Not{Term: t, Pos: n.Pos}
			}
			return nil
		case searchquery.Text:
			if empty[textQuery(n)] {
				return nil
			}
		}
		return n
	}
	return drop(n), tsq, nil
}

// leaves calls f with each Text and Term of n.
func leaves(n searchquery.Node, f func(searchquery.Node)) {
	switch n := n.(type) {
	case searchquery.And:
		for _, t := range n.Terms {
			leaves(t, f)
		}
	case searchquery.Or:
		for _, t := range n.Terms {
			leaves(t, f)
		}
	case searchquery.Not:
		leaves(n.Term, f)
	default:
		f(n)
	}
}

func first(terms []searchquery.Node) searchquery.Node {
	if len(terms) == 0 {
		return nil
	}
	return terms[0]
}

// ProbeSample is how many visible tickets the probe reads (inSample), in
// any order, before it asks the text index: a word common enough to be
// costly there is found among them at once.
const ProbeSample = 2000

// RareMax is the most visible tickets a free word may have for its term
// to read them by id (Names.Rare): up to it that costs in proportion to
// the matches (about 2 ms a hundred at 1,000,000 tickets), where walking
// the tickets in sort order for a page or a relevance window reads about
// window × tickets / matches of them.
const RareMax = 1000

// The probe of a query's free words tells, for each, whether the full-text
// search finds it in a ticket s may see, and whether in at most RareMax
// tickets, none of them in a bounded sample (rare). Asked with a row goal
// (EXISTS, LIMIT 1) alone, the planner walks the tickets hoping for an
// early match, which reads every ticket of the org for a word that matches
// nothing. So it reads a bounded sample
// first, once for all the words (inSample: a common word is in it), then,
// for each rare or absent word, counts up to RareMax + 1 matches from the
// text index alone (wordFound): a MATERIALIZED CTE is planned without the
// row goal, as a bitmap scan of the word's index entries, and read only as
// far as the count. (The sample is whatever tickets come first, not a
// random one: tickets a comment changed were rewritten at the end of the
// table, so a word of comments in 2% of the tickets, "zeppelin", may miss
// it; the count then stops it from being taken for rare.)

// inSample lists which of words the full text finds in the first
// ProbeSample tickets s may see: one read of the sample (a MATERIALIZED
// CTE, read only as far as a word needs) for all of them.
func inSample(ctx context.Context, q store.Querier, s Search, words []string) (map[string]bool, error) {
	bare := s
	bare.Root, bare.Names = nil, &Names{}
	sample, err := base(bare, "t.search_vector AS v")
	if err != nil {
		return nil, err
	}
	sql, args, err := sample.Limit(ProbeSample).ToSql()
	if err != nil {
		return nil, err
	}
	found, err := store.Column[string](ctx, q, "WITH s AS MATERIALIZED ("+sql+") SELECT w.w FROM unnest($"+
		strconv.Itoa(len(args)+1)+"::text[]) AS w(w) WHERE EXISTS (SELECT 1 FROM s WHERE s.v @@ websearch_to_tsquery('"+
		TextConfig+"', w.w))", append(args, words)...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(found))
	for _, w := range found {
		out[w] = true
	}
	return out, nil
}

// wordFound tells, for a word not in the sample (inSample), whether the
// full text finds it in a ticket s may see (found) and in at most RareMax
// of them (rare).
func wordFound(ctx context.Context, q store.Querier, s Search, w string) (found, rare bool, err error) {
	b, err := withWord(s, w, "1")
	if err != nil {
		return false, false, err
	}
	n, err := store.Scalar[int](ctx, q, store.SQL.Select().Prefix("WITH m AS MATERIALIZED (?)", b.PlaceholderFormat(sq.Question)).
		Column(fmt.Sprintf("(SELECT count(*) FROM (SELECT 1 FROM m LIMIT %d) c)", RareMax+1)))
	return n > 0, n > 0 && n <= RareMax, err
}

// withWord selects cols of the tickets s may see whose full text has the
// free word w (whatever else s asks).
func withWord(s Search, w string, cols ...string) (sq.SelectBuilder, error) {
	s.Root, s.Names = searchquery.Text{Value: w}, &Names{}
	return base(s, cols...)
}

// similarWords finds the org's title words similar to w (word % w: pg_trgm
// similarity at least pg_trgm.similarity_threshold, 0.3 by default, the
// comparison of one word with another that the pg_trgm documentation uses
// for spelling suggestions; "dashbaord" and "dashboard" are 0.43), most
// similar first. The words table holds the words of every title of the
// org, also of tickets the caller cannot see; that is no leak, as the
// search then matches those words in the visible tickets only (a word no
// visible title has matches nothing).
func similarWords(ctx context.Context, q store.Querier, org uuid.UUID, w string) ([]string, error) {
	type similar struct {
		Word string  `db:"word"`
		Sim  float32 `db:"sim"`
	}
	rows, err := store.Select[similar](ctx, q, store.SQL.Select("tw.word").Column(sq.Expr("max(similarity(tw.word, ?)) AS sim", w)).
		From("ticket_title_words tw").Where("tw.org_id = ? AND tw.word % ?", org, w).
		GroupBy("tw.word").OrderBy("sim DESC", "tw.word").Limit(MaxSimilar))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Word)
	}
	return out, nil
}
