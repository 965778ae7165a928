// Package searchdb compiles a parsed ticket query (internal/searchquery) to
// SQL with squirrel and runs it with keyset pagination. Every value of the
// query reaches PostgreSQL as a bound parameter; only fixed SQL text written
// here is concatenated.
package searchdb

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store/ticketdb"
)

// Env is what a query's words mean for one caller at one moment.
type Env struct {
	OrgID  uuid.UUID
	UserID uuid.UUID // "me"
	Now    time.Time // ages such as updated:<7d
	// DefaultStatuses is the JSON status list of the built-in Default
	// workflow, for projects of an org whose Default workflow is gone.
	DefaultStatuses []byte
	// Names are what Resolve looked up for the query: label and sprint
	// ids, the typo fallback's words, the phrases' pair prefilters. A
	// query compiles only with them (nil: ErrUnresolved).
	Names *Names
	// Custom are the org's custom fields the query's cf.<key> terms name,
	// by key (domain/search resolves them).
	Custom map[string]CustomField
	// SortField is the field of sort:cf.<key> (its type is the sort's
	// CustomType).
	SortField uuid.UUID
}

// ErrUnresolved is Where's error for a query whose names were not
// resolved (Resolve sets Env.Names; List, Count, Progress and All call it).
var ErrUnresolved = errors.New("searchdb: query names not resolved (call Resolve first)")

// TextConfig is the text search configuration of tickets' search vectors.
const TextConfig = "english"

// Where compiles n to a condition on the tickets row aliased t; env.Names
// must be n's (Resolve).
func Where(n searchquery.Node, env Env) (sq.Sqlizer, error) {
	if env.Names == nil {
		return nil, ErrUnresolved
	}
	switch n := n.(type) {
	case searchquery.And:
		out, err := whereEach(n.Terms, env)
		if err != nil {
			return nil, err
		}
		return sq.And(out), nil
	case searchquery.Or:
		var terms []searchquery.Node
		var ids []uuid.UUID
		labels := 0
		for _, t := range n.Terms {
			if lt, ok := t.(searchquery.Term); ok && lt.Field == searchquery.FieldLabel {
				ids = append(ids, env.Names.Labels[strings.ToLower(lt.Value)]...)
				labels++
				continue
			}
			terms = append(terms, t)
		}
		out, err := whereEach(terms, env)
		if err != nil {
			return nil, err
		}
		if labels > 0 {
			// label:a OR label:b is one EXISTS over both labels' ids, not
			// two subplans that each hash every ticket of their label.
			out = append(out, anyID(ids, labelExists))
		}
		return sq.Or(out), nil
	case searchquery.Not:
		c, err := Where(n.Term, env)
		if err != nil {
			return nil, err
		}
		if t, ok := n.Term.(searchquery.Term); ok && t.Field == searchquery.FieldLabel {
			// EXISTS is never NULL: a plain NOT EXISTS, which the planner
			// runs as an anti join.
			return sq.Expr("NOT (?)", c), nil
		}
		// A NULL (no assignee, no sprint) is "not matched", so its negation
		// matches.
		return sq.Expr("NOT COALESCE((?), false)", c), nil
	case searchquery.Text:
		return text(n, env), nil
	case searchquery.Term:
		return term(n, env)
	}
	return nil, fmt.Errorf("searchdb: unknown node %T", n)
}

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

// PriorityRank is the SQL rank of t.priority (None 0 … Critical 4); the
// priority sort and its index use this exact expression.
const PriorityRank = ticketdb.PriorityRank

func term(t searchquery.Term, env Env) (sq.Sqlizer, error) {
	if t.Custom != "" {
		return customTerm(t, env)
	}
	switch t.Field {
	case searchquery.FieldStatus:
		return sq.Expr("lower(t.status) = lower(?)", t.Value), nil
	case searchquery.FieldCategory:
		// The statuses of that category in each project's governing
		// workflow: its own, else the org's Default, else the built-in one.
		return sq.Expr(`(t.project_id, t.status) IN (
			SELECT cp.id, cs.value->>'name' FROM projects cp
			LEFT JOIN workflows cw ON cw.id = COALESCE(cp.workflow_id,
				(SELECT d.id FROM workflows d WHERE d.org_id = cp.org_id AND d.name = 'Default'))
			CROSS JOIN LATERAL jsonb_array_elements(COALESCE(cw.statuses, ?::jsonb)) cs
			WHERE cp.org_id = ? AND cs.value->>'category' = ?)`, string(env.DefaultStatuses), env.OrgID, t.Value), nil
	case searchquery.FieldPriority:
		return priority(t), nil
	case searchquery.FieldAssignee, searchquery.FieldReporter:
		col := "t.assignee_id"
		if t.Field == searchquery.FieldReporter {
			col = "t.reporter_id"
		}
		switch {
		case t.Me:
			return sq.Expr(col+" = ?", env.UserID), nil
		case t.None:
			return sq.Expr(col + " IS NULL"), nil
		}
		return sq.Expr(col+" = (SELECT u.id FROM users u WHERE lower(u.email) = lower(?))", t.Value), nil
	case searchquery.FieldLabel:
		return anyID(env.Names.Labels[strings.ToLower(t.Value)], labelExists), nil
	case searchquery.FieldSprint:
		switch {
		case t.None:
			return sq.Expr("t.sprint_id IS NULL"), nil
		case t.Current:
			return anyID(env.Names.Current, "t.sprint_id %s"), nil
		}
		return anyID(env.Names.Sprints[strings.ToLower(t.Value)], "t.sprint_id %s"), nil
	case searchquery.FieldExternal:
		return sq.Expr("upper(t.external_key) = upper(?)", t.Value), nil
	case searchquery.FieldProject:
		return sq.Expr(`t.project_id IN (SELECT kp.id FROM projects kp
			WHERE kp.org_id = ? AND upper(kp.key) = upper(?) AND kp.deleted_at IS NULL)`, env.OrgID, t.Value), nil
	case searchquery.FieldParent:
		// Every descendant: a sub-ticket belongs to its epic however deep
		// (UNION, not UNION ALL, so a cycle ends).
		return sq.Expr(`t.id IN (WITH RECURSIVE under(id) AS (
				SELECT c.id FROM tickets c
				JOIN tickets pt ON pt.id = c.parent_id
				JOIN projects pp ON pp.id = pt.project_id
				WHERE pp.org_id = ? AND upper(pp.key) = ? AND pt.ticket_number = ? AND pt.deleted_at IS NULL
				  AND c.deleted_at IS NULL
				UNION
				SELECT c.id FROM tickets c JOIN under u ON c.parent_id = u.id WHERE c.deleted_at IS NULL)
			SELECT id FROM under)`, env.OrgID, t.Value, t.Number), nil
	case searchquery.FieldCreated:
		return when("t.created_at", t, env.Now), nil
	case searchquery.FieldUpdated:
		return when("t.updated_at", t, env.Now), nil
	case searchquery.FieldDue:
		return dueTerm(t, env), nil
	case searchquery.FieldEstimate:
		if t.None {
			return sq.Expr("t.estimate IS NULL"), nil
		}
		return sq.Expr("t.estimate "+orEq(t.Op)+" ?::numeric / 100", t.Hundredths), nil
	case searchquery.FieldTag:
		if t.TagAny {
			return sq.Expr(`t.id IN (SELECT et.entity_id FROM entity_tags et
				WHERE et.org_id = ? AND et.entity_type = 'ticket' AND et.key = ?)`, env.OrgID, t.Value), nil
		}
		return sq.Expr(`t.id IN (SELECT et.entity_id FROM entity_tags et
			WHERE et.org_id = ? AND et.entity_type = 'ticket' AND et.key = ? AND et.value = ?)`, env.OrgID, t.Value, t.TagValue), nil
	case searchquery.FieldIs:
		// blocked: an open ticket (status not of category done or
		// cancelled in its project's workflow) blocks it. Read from the
		// blocks links in target order (ticket_links_org_idx), checking each
		// link's blocker by its id against the org's closed statuses (hashed
		// once): DISTINCT keeps the target order, so a page of the default
		// order reads about as many links as it shows instead of walking the
		// tickets. The check is a scalar subquery so the planner cannot turn
		// it into a join over every ticket.
		return sq.Expr(`t.id IN (SELECT DISTINCT l.target_id FROM ticket_links l
			WHERE l.org_id = ? AND l.type = 'blocks' AND COALESCE((SELECT b.deleted_at IS NULL
				AND (b.project_id, b.status) NOT IN (
					SELECT cp.id, cs.value->>'name' FROM projects cp
					LEFT JOIN workflows cw ON cw.id = COALESCE(cp.workflow_id,
						(SELECT d.id FROM workflows d WHERE d.org_id = cp.org_id AND d.name = 'Default'))
					CROSS JOIN LATERAL jsonb_array_elements(COALESCE(cw.statuses, ?::jsonb)) cs
					WHERE cp.org_id = ? AND cs.value->>'name' IS NOT NULL
					  AND cs.value->>'category' IN ('done', 'cancelled'))
				FROM tickets b WHERE b.id = l.source_id), false))`, env.OrgID, string(env.DefaultStatuses), env.OrgID), nil
	case searchquery.FieldHas:
		switch t.Value {
		case "attachments":
			// DISTINCT: the planner reads the attachments in ticket order
			// (attachments_ticket_idx) and fetches only the tickets it
			// shows, rather than walking the tickets to probe each.
			return sq.Expr("t.id IN (SELECT DISTINCT a.ticket_id FROM attachments a)"), nil
		case "labels":
			return sq.Expr(`EXISTS (SELECT 1 FROM ticket_labels tl JOIN labels l ON l.id = tl.label_id
				WHERE tl.ticket_id = t.id AND l.deleted_at IS NULL)`), nil
		case "assignee":
			return sq.Expr("t.assignee_id IS NOT NULL"), nil
		}
	}
	return nil, fmt.Errorf("searchdb: unsupported term %s:%s", t.Field, t.Value)
}

// labelExists is a label term with resolved ids (anyID's format).
const labelExists = "EXISTS (SELECT 1 FROM ticket_labels tl WHERE tl.ticket_id = t.id AND tl.label_id %s)"

// anyID fills format's %s with a comparison with ids: "= $n" for one (the
// planner reads its frequency from the column's statistics), "= ANY($n)"
// for several; no ids is false.
func anyID(ids []uuid.UUID, format string) sq.Sqlizer {
	switch len(ids) {
	case 0:
		return sq.Expr("false")
	case 1:
		return sq.Expr(fmt.Sprintf(format, "= ?"), ids[0])
	}
	return sq.Expr(fmt.Sprintf(format, "= ANY(?)"), ids)
}

// priority compares by rank (index tickets_project_priority_idx):
// priority:>=High is High or Critical.
func priority(t searchquery.Term) sq.Sqlizer {
	op := t.Op
	if op == "" {
		op = "="
	}
	return sq.Expr(PriorityRank+" "+op+" ?", t.Priority)
}

// when compares a timestamp. A date is a UTC day: >D after it, >=D from its
// start, <D before it, <=D up to its end, D within it. An age compares the
// age: <7d is younger than 7 days (since now-7d), >7d older.
func when(col string, t searchquery.Term, now time.Time) sq.Sqlizer {
	if t.Relative {
		at := now.Add(-t.Age)
		switch t.Op {
		case "<":
			return sq.Expr(col+" > ?", at)
		case "<=":
			return sq.Expr(col+" >= ?", at)
		case ">":
			return sq.Expr(col+" < ?", at)
		case ">=":
			return sq.Expr(col+" <= ?", at)
		}
		return sq.Expr(col+" >= ?", at) // updated:7d: within the last 7 days
	}
	day, next := t.Date, t.Date.AddDate(0, 0, 1)
	switch t.Op {
	case ">":
		return sq.Expr(col+" >= ?", next)
	case ">=":
		return sq.Expr(col+" >= ?", day)
	case "<":
		return sq.Expr(col+" < ?", day)
	case "<=":
		return sq.Expr(col+" < ?", next)
	}
	return sq.Expr(col+" >= ? AND "+col+" < ?", day, next)
}

// orEq is a term's comparison, = when it has none.
func orEq(op string) string {
	if op == "" {
		return "="
	}
	return op
}

// dueTerm compares the due date with a day. Today is the UTC day of the
// domain clock's now (env.Now), never the database's: overdue is due
// before today on a ticket not of a closed status category (done,
// cancelled) in its project's workflow; 7d is from today to 7 days
// ahead (<7d excludes the seventh day, >7d is after it).
func dueTerm(t searchquery.Term, env Env) sq.Sqlizer {
	y, m, d := env.Now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	switch {
	case t.None:
		return sq.Expr("t.due_date IS NULL")
	case t.Overdue:
		return sq.Expr(`t.due_date < ?::date AND (t.project_id, t.status) NOT IN (
			SELECT cp.id, cs.value->>'name' FROM projects cp
			LEFT JOIN workflows cw ON cw.id = COALESCE(cp.workflow_id,
				(SELECT d.id FROM workflows d WHERE d.org_id = cp.org_id AND d.name = 'Default'))
			CROSS JOIN LATERAL jsonb_array_elements(COALESCE(cw.statuses, ?::jsonb)) cs
			WHERE cp.org_id = ? AND cs.value->>'name' IS NOT NULL
			  AND cs.value->>'category' IN ('done', 'cancelled'))`, today, string(env.DefaultStatuses), env.OrgID)
	case t.Relative:
		until := today.AddDate(0, 0, t.Days)
		switch t.Op {
		case "<":
			return sq.Expr("t.due_date >= ?::date AND t.due_date < ?::date", today, until)
		case ">":
			return sq.Expr("t.due_date > ?::date", until)
		case ">=":
			return sq.Expr("t.due_date >= ?::date", until)
		}
		return sq.Expr("t.due_date >= ?::date AND t.due_date <= ?::date", today, until)
	}
	return sq.Expr("t.due_date "+orEq(t.Op)+" ?::date", t.Date)
}

// whereEach compiles each term of an AND or OR.
func whereEach(terms []searchquery.Node, env Env) ([]sq.Sqlizer, error) {
	out := make([]sq.Sqlizer, 0, len(terms))
	for _, t := range terms {
		c, err := Where(t, env)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
