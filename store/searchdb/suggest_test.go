package searchdb_test

import (
	"context"
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
// than 5% of the tickets: a common text walks the tickets newest first and
// stops at the limit, a rare one reads its few matches from the trigram
// index. The trigram comparison of the whole text (`text <% title`) read
// every title sharing its trigrams (6,000 for "login").
func TestSuggestionsReadFewTickets(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := uuid.MustParse("01900000-0000-7000-8000-000000000001"), uuid.MustParse("01900000-0000-7000-8000-000000000002")
	sqlText := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid").Replace(seed)
	if _, err := db.Pool.Exec(ctx, sqlText); err != nil {
		t.Fatalf("seed: %v", err)
	}
	if _, err := db.Pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// Rows a plan reads from tickets: the rows its scans of tickets return
	// and those they removed.
	rowsRe := regexp.MustCompile(`on tickets t .*actual rows=(\d+)|Rows Removed by (?:Filter|Index Recheck): (\d+)`)
	read := func(plan string) int {
		n := 0
		for _, line := range strings.Split(plan, "\n") {
			for _, m := range rowsRe.FindAllStringSubmatch(line, -1) {
				v, _ := strconv.Atoi(m[1] + m[2])
				n += v
			}
		}
		return n
	}
	texts := map[string]bool{ // text: whether a suggestion is expected
		"login": true, "Login problem": true, "ogin prob": true, "w4242": true, "problem w4242": true,
		"x45": true, "logni": true, "problme w4242": true, "zzyzx": false, "nothingmatches": false,
	}
	for text, found := range texts {
		for _, scope := range []string{"org", "reporter"} {
			s := searchdb.Search{Env: searchdb.Env{OrgID: org, UserID: me}}
			if scope == "reporter" {
				s.AssignedTo = &me
			}
			b, err := searchdb.TitleContains(s, text, 5)
			if err != nil {
				t.Fatal(err)
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
				if n := read(plan); n > 1500 {
					t.Errorf("%q %s (%s) reads %d tickets:\n%s", text, kind, scope, n, plan)
				}
				var n int
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM ("+sql+") s", args...).Scan(&n); err != nil {
					t.Fatal(err)
				}
				hit = hit || n > 0
			}
			if hit != found {
				t.Errorf("%q (%s): suggestions %v, want %v", text, scope, hit, found)
			}
		}
	}
}
