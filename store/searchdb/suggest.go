package searchdb

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// The resolve endpoint's suggestions (domain/ticket.Resolve): ids of the
// tickets s may see (its org, AssignedTo, OnlyProjects: the visibility is
// in the SQL, so hidden tickets never take a candidate's place), newest
// first (t.id DESC), at most limit. Each runs unprepared (customPlan): the
// planner sees the pattern and reads from the title's statistics whether
// it is common (walk the org's tickets newest first, index tickets_org_idx,
// and stop at limit) or rare or absent (the matches from the title's
// trigram index, tickets_title_trgm_idx, then sort them); a generic plan
// would pick one for every pattern. For a Reporter or a restricted key the
// same runs per visible project (newest).

// MaxSuggestWords is how many words of a reference the typo suggestions
// look up (a longer reference gets containing suggestions only) and the
// most containsCond splits.
const MaxSuggestWords = 4

// NumberedIDs lists the visible tickets numbered n in any project of the
// org, newest project first (index tickets_org_number_idx).
func NumberedIDs(ctx context.Context, q store.Querier, s Search, n int64, limit int) ([]uuid.UUID, error) {
	b, err := base(s, "t.id")
	if err != nil {
		return nil, err
	}
	return ids(ctx, q, b.Where("t.ticket_number = ?", n).OrderBy("t.project_id DESC").Limit(uint64(limit)))
}

// TitleContainsIDs lists the visible tickets whose title contains text (any
// case; ILIKE with %, _ and \ escaped).
func TitleContainsIDs(ctx context.Context, q store.Querier, s Search, text string, limit int) ([]uuid.UUID, error) {
	b, err := TitleContains(ctx, q, s, text, limit)
	if err != nil {
		return nil, err
	}
	return ids(ctx, q, b)
}

// TitleContains is the query of TitleContainsIDs.
func TitleContains(ctx context.Context, q store.Querier, s Search, text string, limit int) (sq.SelectBuilder, error) {
	cond, err := containsCond(ctx, q, text)
	if err != nil {
		return sq.SelectBuilder{}, err
	}
	return newest(s, cond, limit)
}

// CommonTitleShare is the share of the sampled titles from which a word of
// a reference counts as common (containsCond).
const CommonTitleShare = 0.1

// containsCond is the condition of a title containing text: t.title ILIKE
// its pattern. The trigram index answers that with every trigram of the
// text, and for a rare text with a common word ("issue 42424" where every
// title has "issue") it intersects the long lists of the common word's
// trigrams, one entry per ticket, where the rare word's are short.
// So when the title's statistics (the sampled titles of pg_stats'
// histogram) show that text has a word (3 characters or more) in at least
// CommonTitleShare of them and another in none, the index is asked for
// the words in none only, and the text is checked on (t.title || ”),
// which the index does not serve. Otherwise (a single word, no statistics,
// no such split) the plain condition.
func containsCond(ctx context.Context, q store.Querier, text string) (sq.Sqlizer, error) {
	whole := sq.Expr("t.title ILIKE ?", containsPattern(text))
	var patterns []string
	for _, w := range strings.Fields(text) {
		if utf8.RuneCountInString(w) >= 3 {
			patterns = append(patterns, containsPattern(w))
		}
	}
	if len(patterns) < 2 || len(patterns) > MaxSuggestWords {
		return whole, nil
	}
	shares, err := titleShares(ctx, q, patterns)
	if err != nil || len(shares) < len(patterns) {
		return whole, err
	}
	var rare sq.And
	common := false
	for _, p := range patterns {
		switch share := shares[p]; {
		case share == 0:
			rare = append(rare, sq.Expr("t.title ILIKE ?", p))
		case share >= CommonTitleShare:
			common = true
		}
	}
	if !common || len(rare) == 0 {
		return whole, nil
	}
	return append(rare, sq.Expr("(t.title || '') ILIKE ?", containsPattern(text))), nil
}

// titleShares is, for each ILIKE pattern, the share of the titles sampled
// in tickets.title's histogram (pg_stats) that it matches; none without
// that histogram (not analyzed, or too few distinct titles).
func titleShares(ctx context.Context, q store.Querier, patterns []string) (map[string]float64, error) {
	type row struct {
		Pattern string  `db:"pattern"`
		Share   float64 `db:"share"`
	}
	rows, err := store.SelectRaw[row](ctx, q, `SELECT p.pattern,
			(SELECT (count(*) FILTER (WHERE h ILIKE p.pattern))::float8 / count(*) FROM unnest(s.histogram_bounds::text::text[]) AS h) AS share
		FROM pg_stats s, unnest($1::text[]) AS p(pattern)
		WHERE s.schemaname = current_schema() AND s.tablename = 'tickets' AND s.attname = 'title'
		  AND s.histogram_bounds IS NOT NULL`, patterns)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(rows))
	for _, r := range rows {
		out[r.Pattern] = r.Share
	}
	return out, nil
}

// TitleSimilarIDs lists the visible tickets whose title has, for each word
// of text (at most MaxSuggestWords; letters and digits), a word similar to
// it: for a word of 4 characters or more one of the org's title words that
// similarWords finds for it (ticket_title_words, pg_trgm similarity, as the
// search's typo fallback), for a shorter word the word itself. A title
// matches a word it contains (ILIKE, the trigram index): the title words
// are the title's own, and the title's statistics estimate them, where the
// full text of a word restricted to titles (weight A) is estimated from
// its frequency anywhere in the tickets (a title word common in
// descriptions would walk every ticket of the org newest first). Nothing
// when text has no word of 4 characters, more than MaxSuggestWords words,
// or a word with no similar title word.
func TitleSimilarIDs(ctx context.Context, q store.Querier, s Search, text string, limit int) ([]uuid.UUID, error) {
	b, ok, err := TitleSimilar(ctx, q, s, text, limit)
	if err != nil || !ok {
		return nil, err
	}
	return ids(ctx, q, b)
}

// TitleSimilar looks up the similar words of text's words and returns the
// query of TitleSimilarIDs; false when there is none to run.
func TitleSimilar(ctx context.Context, q store.Querier, s Search, text string, limit int) (sq.SelectBuilder, bool, error) {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 || len(words) > MaxSuggestWords {
		return sq.SelectBuilder{}, false, nil
	}
	fuzzy := false
	conds := sq.And{}
	for _, w := range words {
		if utf8.RuneCountInString(w) < 4 {
			conds = append(conds, sq.Expr("t.title ILIKE ?", containsPattern(w)))
			continue
		}
		fuzzy = true
		similar, err := similarWords(ctx, q, s.OrgID, w)
		if err != nil || len(similar) == 0 {
			return sq.SelectBuilder{}, false, err
		}
		patterns := make([]string, 0, len(similar))
		for _, sw := range similar {
			patterns = append(patterns, containsPattern(sw))
		}
		conds = append(conds, sq.Expr("t.title ILIKE ANY(?)", patterns))
	}
	if !fuzzy {
		return sq.SelectBuilder{}, false, nil
	}
	b, err := newest(s, conds, limit)
	return b, err == nil, err
}

// newest is the query of the ids of the newest visible tickets matching
// cond, at most limit. For a caller who sees the whole org it is one query
// over the org (base), which the planner runs as one walk of the org's
// tickets newest first or one read of an index for every project. For a
// Reporter or a key restricted to projects (a few projects, usually) it
// reads each visible project on its own (LATERAL, by the project's
// indexes) and keeps the newest: walking the org's tickets for them, a
// text common in the org but absent from their projects read every ticket
// of the org.
func newest(s Search, cond sq.Sqlizer, limit int) (sq.SelectBuilder, error) {
	if s.AssignedTo == nil && s.OnlyProjects == nil {
		b, err := base(s, "t.id")
		return b.Where(cond).OrderBy("t.id DESC").Limit(uint64(limit)), err
	}
	per := store.SQL.Select("t.id").From("tickets t").
		Where("t.project_id = vp.id").Where("t.deleted_at IS NULL").Where(cond).
		OrderBy("t.id DESC").Limit(uint64(limit)).PlaceholderFormat(sq.Question)
	b := store.SQL.Select("m.id").From("projects vp").JoinClause(sq.Expr("CROSS JOIN LATERAL (?) m", per)).
		Where("vp.org_id = ?", s.OrgID).Where("vp.deleted_at IS NULL")
	if s.ProjectID != nil {
		b = b.Where("vp.id = ?", *s.ProjectID)
	}
	if s.AssignedTo != nil {
		b = b.Where("vp.id IN (SELECT pm.project_id FROM project_members pm WHERE pm.user_id = ?)", *s.AssignedTo)
	}
	if s.OnlyProjects != nil {
		b = b.Where("vp.id = ANY(?)", s.OnlyProjects)
	}
	return b.OrderBy("m.id DESC").Limit(uint64(limit)), nil
}

// containsPattern is the ILIKE pattern of a title containing text.
func containsPattern(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text) + "%"
}

func ids(ctx context.Context, q store.Querier, b sq.SelectBuilder) ([]uuid.UUID, error) {
	sql, args, err := b.ToSql()
	if err != nil {
		return nil, err
	}
	return store.Column[uuid.UUID](ctx, q, sql, customPlan(args)...)
}
