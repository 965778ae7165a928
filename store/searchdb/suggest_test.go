package searchdb_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// TestSuggestionsReadFewTickets runs EXPLAIN ANALYZE on the resolve
// endpoint's title suggestions (TitleContains, TitleSimilar) over the 30,000
// seeded tickets, as the org and as a Reporter, for common, rare and absent
// words, a substring, typos and nothing, and fails when a plan reads more
// than 5% of the tickets (a Reporter: more than its projects' tickets): a
// common text walks the tickets newest first and stops at the limit, a
// rare one reads its few matches from the trigram index, and a Reporter's
// projects are read each by its own index. The trigram comparison of the
// whole text (`text <% title`) read every title sharing its trigrams (6,000
// for "login"), and a Reporter's walk of the org's tickets read all 30,000
// for a word its projects lack ("export").
func TestSuggestionsReadFewTickets(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedPlans(t, db)
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	texts := map[string]bool{ // text: whether a suggestion is expected
		"login": true, "Login problem": true, "ogin prob": true, "w4242": true, "problem w4242": true,
		"x45": true, "logni": true, "problme w4242": true, "zzyzx": false, "nothingmatches": false,
		// In a fifth of the org, in none of the Reporter's projects (P0
		// and P1 have only "login" and "billing" titles).
		"export": true, "exportt": true,
	}
	for text, found := range texts {
		for _, scope := range []string{"org", "reporter"} {
			s := searchdb.Search{Env: searchdb.Env{OrgID: org, UserID: me}}
			if scope == "reporter" {
				s.AssignedTo = &me
			}
			b, err := searchdb.TitleContains(ctx, conn.Conn(), s, text, 5)
			if err != nil {
				t.Fatal(err)
			}
			if scope == "org" {
				// The same tickets as the plain condition (containsCond may
				// ask the index for the rare words only).
				sql, args, err := b.ToSql()
				if err != nil {
					t.Fatal(err)
				}
				var got, want []uuid.UUID
				if err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (`+sql+`) s`, args...).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT t.id FROM tickets t
					WHERE t.org_id = $1 AND t.deleted_at IS NULL AND t.title ILIKE '%' || $2 || '%' ORDER BY t.id DESC LIMIT 5) s`,
					org, text).Scan(&want); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%q contains: %v, want %v", text, got, want)
				}
			}
			builders := map[string]sq.SelectBuilder{"contains": b}
			sb, ok, err := searchdb.TitleSimilar(ctx, conn.Conn(), s, text, 5)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				builders["similar"] = sb
			}
			hit := false
			for kind, b := range builders {
				sql, args, err := b.ToSql()
				if err != nil {
					t.Fatal(err)
				}
				plan := storetest.Explain(t, conn, "(ANALYZE, TIMING OFF, COSTS OFF)", sql, args...)
				// At most 5% of the org; a Reporter's text that its
				// projects lack reads those projects (P0 and P1, 6,000
				// tickets), not the org.
				limit := 1500
				if scope == "reporter" {
					limit = 6000
				}
				if n := ticketsRead(plan); n > limit {
					t.Errorf("%q %s (%s) reads %d tickets:\n%s", text, kind, scope, n, plan)
				}
				// Every title has "problem": the index is asked for
				// "w4242" alone, not for the trigrams of "problem".
				if kind == "contains" && text == "problem w4242" && (!strings.Contains(plan, `Index Cond: (title ~~* '%w4242%'::text)`) ||
					strings.Contains(plan, `Index Cond: (title ~~* '%problem w4242%'::text)`)) {
					t.Errorf("%q (%s): the index is not asked for the rare word alone:\n%s", text, scope, plan)
				}
				var n, hidden int
				if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE p.key NOT IN ('P0', 'P1'))
					FROM (`+sql+`) s JOIN tickets t ON t.id = s.id JOIN projects p ON p.id = t.project_id`, args...).Scan(&n, &hidden); err != nil {
					t.Fatal(err)
				}
				if scope == "reporter" && hidden > 0 {
					t.Errorf("%q %s (reporter): %d suggestions outside the assigned projects", text, kind, hidden)
				}
				hit = hit || n > 0
			}
			if scope == "org" && hit != found {
				t.Errorf("%q: suggestions %v, want %v", text, hit, found)
			}
		}
	}
}

// Rows a plan reads from tickets: the rows its scans of tickets return and
// those they remove, times their loops (EXPLAIN ANALYZE shows both per
// loop).
var (
	nodeRe    = regexp.MustCompile(`->|^\S`)
	scanRe    = regexp.MustCompile(`on tickets t .*actual rows=(\d+) loops=(\d+)`)
	removedRe = regexp.MustCompile(`Rows Removed by (?:Filter|Index Recheck): (\d+)`)
)

// ticketsRead is how many rows of tickets an EXPLAIN ANALYZE plan read.
func ticketsRead(plan string) int {
	n, loops := 0, 0 // loops: of the current node when it scans tickets, else 0
	for _, line := range strings.Split(plan, "\n") {
		if nodeRe.MatchString(line) {
			loops = 0
			if m := scanRe.FindStringSubmatch(line); m != nil {
				rows, _ := strconv.Atoi(m[1])
				loops, _ = strconv.Atoi(m[2])
				n += rows * loops
			}
			continue
		}
		if m := removedRe.FindStringSubmatch(line); m != nil {
			v, _ := strconv.Atoi(m[1])
			n += v * loops
		}
	}
	return n
}
