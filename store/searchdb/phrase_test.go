package searchdb_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/searchdb"
	"tracker/store/storetest"
)

func TestPhrasePairs(t *testing.T) {
	long := strings.Repeat("a", 1100)
	for _, c := range []struct{ tsq, want string }{
		{`'payment' <-> 'timeout'`, `' ' | ( 'payment timeout' )`},
		{`'payment' <3> 'timeout'`, ``}, // stop words between: no adjacent pair
		{`'payment' <-> 'timeout' <2> 'error' <-> 'log'`, `' ' | ( 'payment timeout' & 'error log' )`},
		{`'e-mail' <-> 'e' <-> 'mail'`, `' ' | ( 'e-mail e' & 'e mail' )`},
		{`'a' <-> 'b' <-> 'a' <-> 'b'`, `' ' | ( 'a b' & 'b a' )`},
		{`'it''s' <-> 'a\\b'`, `' ' | ( 'it''s a\\b' )`},
		{`'` + long + `' <-> '` + long + `' <-> 'x'`, `' ' | ( '` + long + ` x' )`}, // over 2,046 bytes: left out
		{`'foo'`, ``},
		{``, ``},
		{`'foo' <-> 'bar' & 'baz'`, ``},
		{`'foo' <-> ( 'bar' | 'baz' )`, ``},
		{`!'foo' <-> 'bar'`, ``},
		{`'foo':* <-> 'bar'`, ``},
		{`'foo' <-> 'bar`, ``},
	} {
		if got := searchdb.PhrasePairs(c.tsq); got != c.want {
			t.Errorf("PhrasePairs(%q) = %q, want %q", c.tsq, got, c.want)
		}
	}
}

// The pair prefilter of a phrase (migration 034's index over
// ticket_word_pairs(search_vector)) holds exactly the tickets a phrase of
// two words matches, and every ticket a longer phrase matches: random
// titles, descriptions and comments from a few words (adjacent and not,
// across the title/description/comment boundaries, a stop word and a
// compound word between them, a ticket with a pair too long to index),
// before and after comments are written,
// edited and deleted and titles renamed. A phrase search lists exactly the
// phrase's tickets, and reads the pair index.
func TestPhrasePrefilterIsExact(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	words := []string{"payment", "timeout", "error", "login", "the", "e-mail", "fails"}
	rnd := rand.New(rand.NewPCG(16, 34))
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rnd.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	const tickets = 300
	var titles, descriptions []string
	for range tickets {
		titles = append(titles, text(1+rnd.IntN(3)))
		descriptions = append(descriptions, text(rnd.IntN(3)))
	}
	// A vector whose pairs the index cannot keep (a pair over 2,046
	// bytes) is the marker, which every prefilter accepts.
	titles = append(titles, "payment timeout")
	descriptions = append(descriptions, strings.Repeat("a", 1100)+" "+strings.Repeat("b", 1100))
	var commentOn []int
	var bodies []string
	for range tickets / 2 {
		commentOn = append(commentOn, 1+rnd.IntN(tickets))
		bodies = append(bodies, text(1+rnd.IntN(2)))
	}
	org, me := uuid.New(), uuid.New()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-phrase-' || gen_random_uuid())`, org)
	exec(`INSERT INTO users (id, email, display_name) VALUES ($1, 'phrase-' || gen_random_uuid() || '@example.com', 'Me')`, me)
	exec(`INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner')`, org, me)
	exec(`INSERT INTO projects (id, org_id, key, name) VALUES (gen_random_uuid(), $1, 'S', 'Seeded')`, org)
	exec(`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, reporter_id, created_at, updated_at)
		SELECT gen_random_uuid(), $1, p.id, v.n, v.title, v.description, 'Todo', 'None', $2, now(), now() - v.n * interval '1 minute'
		FROM projects p, unnest($3::text[], $4::text[]) WITH ORDINALITY AS v(title, description, n) WHERE p.org_id = $1`,
		org, me, titles, descriptions)
	exec(`INSERT INTO comments (id, org_id, ticket_id, author_id, body)
		SELECT gen_random_uuid(), $1, t.id, $2, v.body FROM unnest($3::int[], $4::text[]) AS v(n, body)
		JOIN tickets t ON t.org_id = $1 AND t.ticket_number = v.n`, org, me, commentOn, bodies)

	var phrases []string
	for _, a := range words {
		for _, b := range words {
			phrases = append(phrases, a+" "+b)
		}
	}
	for range 30 {
		phrases = append(phrases, text(3+rnd.IntN(2)))
	}
	// Operators and quotes of the tsquery syntax are only text in a phrase.
	phrases = append(phrases, `payment's timeout`, `payment/timeout`, `payment:* & !timeout | (error)`, `payment <-> timeout`)
	ids := func(sql string, args ...any) []uuid.UUID {
		t.Helper()
		rows, err := store.SelectRaw[struct {
			ID uuid.UUID `db:"id"`
		}](ctx, db.Pool, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out := []uuid.UUID{}
		for _, r := range rows {
			out = append(out, r.ID)
		}
		slices.SortFunc(out, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
		return out
	}
	list := func(q string) []uuid.UUID {
		t.Helper()
		s := newSearch(t, org, me, q, 7)
		out := []uuid.UUID{}
		for {
			rows, next, err := searchdb.List(ctx, db.Pool, s)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, r := range rows {
				out = append(out, r.ID)
			}
			if next == nil {
				break
			}
			s.After = next
		}
		slices.SortFunc(out, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
		return out
	}
	check := func(stage string) {
		t.Helper()
		// The prefilter read through the pair index, as a search reads it.
		conn, err := db.Pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(ctx, "RESET enable_seqscan") //nolint:errcheck
		marked := map[uuid.UUID]bool{}
		for _, id := range ids(`SELECT id FROM tickets WHERE org_id = $1 AND ticket_word_pairs(search_vector) = array_to_tsvector(ARRAY[' '])`, org) {
			marked[id] = true
		}
		if len(marked) != 1 {
			t.Fatalf("%s: %d tickets hold the marker, want the one with a long pair", stage, len(marked))
		}
		matched := 0
		for _, p := range phrases {
			var tsq string
			if err := conn.QueryRow(ctx, "SELECT websearch_to_tsquery('english', $1)::text", `"`+p+`"`).Scan(&tsq); err != nil {
				t.Fatal(err)
			}
			if tsq == "" {
				continue // stop words only: the search leaves it out (TestStopWordsAreIgnored)
			}
			want := ids(`SELECT id FROM tickets WHERE org_id = $1 AND search_vector @@ websearch_to_tsquery('english', $2)`, org, `"`+p+`"`)
			matched += len(want)
			if got := list(`sort:updated "` + p + `"`); !slices.Equal(got, want) {
				t.Errorf("%s: search %q listed %d tickets, the phrase matches %d", stage, p, len(got), len(want))
			}
			pre := searchdb.PhrasePairs(tsq)
			if pre == "" {
				continue
			}
			rows, err := conn.Query(ctx, `SELECT id FROM tickets t WHERE t.org_id = $1 AND t.deleted_at IS NULL
				AND ticket_word_pairs(t.search_vector) @@ $2::tsquery`, org, pre)
			if err != nil {
				t.Fatal(err)
			}
			got := map[uuid.UUID]bool{}
			for rows.Next() {
				var id uuid.UUID
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got[id] = true
			}
			rows.Close()
			matches := map[uuid.UUID]bool{}
			for _, id := range want {
				matches[id] = true
				if !got[id] {
					t.Errorf("%s: %q (%s): the prefilter %s lost a matching ticket", stage, p, tsq, pre)
				}
			}
			// Two lexemes side by side: the pair is the phrase (but for the
			// marker's ticket).
			if strings.Count(tsq, "<") == 1 && strings.Contains(tsq, "<->") {
				for id := range got {
					if !matches[id] && !marked[id] {
						t.Errorf("%s: %q (%s): the prefilter %s holds a ticket the phrase does not match", stage, p, tsq, pre)
					}
				}
			}
		}
		if matched == 0 {
			t.Fatalf("%s: no phrase matched", stage)
		}
	}
	check("seeded")

	// Comments written, edited and deleted, titles renamed: the vectors
	// change through the triggers of migration 018, and the pair index
	// with them.
	for i := range 40 {
		exec(`UPDATE comments SET body = $3 WHERE id = (SELECT c.id FROM comments c JOIN tickets t ON t.id = c.ticket_id
			WHERE t.org_id = $1 AND t.ticket_number = $2 LIMIT 1)`, org, commentOn[i], text(1+rnd.IntN(3)))
	}
	exec(`DELETE FROM comments WHERE id IN (SELECT c.id FROM comments c WHERE c.org_id = $1 ORDER BY c.id LIMIT 30)`, org)
	for range 40 {
		exec(`INSERT INTO comments (id, org_id, ticket_id, author_id, body)
			SELECT gen_random_uuid(), $1, t.id, $2, $4 FROM tickets t WHERE t.org_id = $1 AND t.ticket_number = $3`,
			org, me, 1+rnd.IntN(tickets), text(1+rnd.IntN(3)))
		exec(`UPDATE tickets SET title = $3 WHERE org_id = $1 AND ticket_number = $2`, org, 1+rnd.IntN(tickets), text(1+rnd.IntN(3)))
	}
	check("after edits")

}

// A phrase whose words are common but rarely side by side is read from the
// pair index (tickets_search_pairs_idx), not from the tickets with both
// words (tickets_search_idx) nor along the updated order.
func TestPhraseReadsThePairIndex(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedTickets(t, db, 20000, "CASE WHEN g % 2000 = 7 THEN 'Payment timeout ' || g ELSE 'Payment error ' || g END", "timeout at login")
	if _, err := db.Pool.Exec(ctx, "VACUUM ANALYZE tickets"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"payment timeout"`, `"payment timeout" sort:updated`, `"payment timeout" sort:created-asc`} {
		s, p := explainPage(t, db, newSearch(t, org, me, q, 20), "")
		if !strings.Contains(p, "tickets_search_pairs_idx") {
			t.Errorf("%s does not read the pair index:\n%s", q, p)
		}
		got, _, err := searchdb.List(ctx, db.Pool, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 {
			t.Errorf("%s listed %d tickets, want 10", q, len(got))
		}
	}
	// A common pair is no prefilter (the statistics of migration 035 say
	// how common): "payment error" is in nearly every title, "error
	// payment" in none, and "payment timeout" keeps only its rare pair.
	pq, err := searchquery.Parse(`"payment error" "error payment" "payment error timeout"`)
	if err != nil {
		t.Fatal(err)
	}
	s, err := searchdb.Resolve(ctx, db.Pool, searchdb.Search{Env: searchdb.Env{OrgID: org, UserID: me, Now: time.Now()}, Root: pq.Root, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for phrase, want := range map[string]string{
		"payment error":         ``,
		"error payment":         `' ' | ( 'error payment' )`,
		"payment error timeout": `' ' | ( 'error timeout' )`,
	} {
		if got := s.Names.Phrases[phrase]; got != want {
			t.Errorf("prefilter of %q = %q, want %q", phrase, got, want)
		}
	}
}
