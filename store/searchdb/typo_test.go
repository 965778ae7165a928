package searchdb_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// A word the full text finds nowhere matches titles with a similar word,
// found in the org's title words (kept by triggers on ticket inserts and
// renames): only visible tickets, only by their titles, so a word that only
// a ticket the caller cannot see has in its title finds nothing.
func TestTypoFallbackMatchesSimilarTitleWordsOfVisibleTickets(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := uuid.New(), uuid.New()
	seedSQL := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid").Replace(`
INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-typo-' || gen_random_uuid());
INSERT INTO users (id, email, display_name) VALUES ($2, 'typo-' || gen_random_uuid() || '@example.com', 'Me');
INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'reporter');
INSERT INTO projects (id, org_id, key, name) VALUES (md5($1::text || 'A')::uuid, $1, 'A', 'Assigned'), (md5($1::text || 'B')::uuid, $1, 'B', 'Other');
INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, md5($1::text || 'A')::uuid, $2);
INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, reporter_id)
SELECT gen_random_uuid(), $1, md5($1::text || v.p)::uuid, v.n, v.title, v.description, 'Todo', 'None', $2
FROM (VALUES ('A', 1, 'Slow dashboard', 'the charts render slowly'),
             ('A', 2, 'Login crash', 'seen on the zeppelin build'),
             ('A', 3, 'Fast page', 'nothing to see'),
             ('B', 1, 'Zeppelin manifest', 'cargo list'),
             ('B', 2, 'Dashboard colours', 'too bright')) v(p, n, title, description);
UPDATE tickets SET title = 'Broken invoice' WHERE org_id = $1 AND title = 'Fast page';`)
	if _, err := db.Pool.Exec(ctx, seedSQL); err != nil {
		t.Fatalf("seed: %v", err)
	}
	list := func(q string, reporter bool) []string {
		t.Helper()
		s := newSearch(t, org, me, q, 20)
		if reporter {
			s.AssignedTo = &me
		}
		rows, _, err := searchdb.List(ctx, db.Pool, s)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		titles := []string{}
		for _, r := range rows {
			titles = append(titles, r.Title)
		}
		slices.Sort(titles)
		return titles
	}
	for _, c := range []struct {
		q        string
		reporter bool
		want     []string
	}{
		{"dashbaord", false, []string{"Dashboard colours", "Slow dashboard"}},
		{"dashbaord", true, []string{"Slow dashboard"}},
		{"invoce", true, []string{"Broken invoice"}}, // a renamed title's words
		{"zepelin", false, []string{"Zeppelin manifest"}},
		// Only project B's title has the word: the Reporter gets nothing,
		// also not the visible ticket whose description has it.
		{"zepelin", true, []string{}},
		{"dashbaord zepelin", false, []string{}},
		{"qwertyuiop", false, []string{}},
		{"dashbaord sort:updated", true, []string{"Slow dashboard"}},
	} {
		if got := list(c.q, c.reporter); !slices.Equal(got, c.want) {
			t.Errorf("%q (reporter %v) = %q, want %q", c.q, c.reporter, got, c.want)
		}
	}
}

// The typo fallback reads the titles that contain a similar word: "first"
// is in one title of 30,000 (and in every description); matched by the full
// text of first:A, which has no estimate for a weighted word, `firts
// sort:updated` would walk the most recently updated tickets and read all
// 30,000. It finds the one ticket.
func TestTypoFallbackReadsFewTickets(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedTickets(t, db, 30000, "CASE WHEN g = 15000 THEN 'The first dashboard' ELSE 'Login crash ' || g END",
		"first response pending")
	if _, err := db.Pool.Exec(ctx, "VACUUM ANALYZE tickets"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"firts", "firts sort:updated", "dashbaord"} {
		s, plan := explainPage(t, db, newSearch(t, org, me, q, 20), "(ANALYZE, TIMING OFF, COSTS OFF)")
		if n := ticketsRead(plan); n > 100 {
			t.Errorf("%q reads %d tickets:\n%s", q, n, plan)
		}
		rows, _, err := searchdb.List(ctx, db.Pool, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Title != "The first dashboard" {
			t.Errorf("%q listed %d tickets, want the one titled \"The first dashboard\"", q, len(rows))
		}
	}
}

// A free word in a handful of the visible tickets (none in the probe's
// sample) is read from the text index and then by id, whatever the sort,
// and a short word that matches nothing reads nothing. The full text alone
// is estimated at 0.5% of the tickets for a word outside the statistics'
// common words, so at 1,000,000 tickets a relevance window or a sort would
// walk the tickets in that order for matches and read all of them for
// "first" (in one ticket). At 30,000 tickets that estimate (150) still
// leads the planner to the text index, so besides the tickets read this
// checks that the rare word's tickets are read by id (an index condition
// id = ANY of the text index's matches), and
// that the matches and counts are the same as the plain full text's.
func TestRareWordReadsFewTickets(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedTickets(t, db, 30000, "'Login crash ' || g", "about the dashboard")
	// Beyond the probe's sample (the first ProbeSample tickets it reads).
	if _, err := db.Pool.Exec(ctx, `UPDATE tickets SET description = 'the first api crash' WHERE org_id = $1 AND ticket_number IN (15000, 29000)`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "VACUUM ANALYZE tickets"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q           string
		list, count int
		byID        bool
	}{
		{"first", 2, 2, true}, {"first sort:updated", 2, 2, true}, {"first sort:created-asc", 2, 2, true},
		{"api", 2, 2, true}, {"api login", 2, 2, true}, {"first -api", 0, 0, true}, {"first OR qqq", 2, 2, true},
		{"-first sort:number", 20, 29998, false}, {"qqq", 0, 0, false}, {"qqq sort:updated", 0, 0, false},
	} {
		s, plan := explainPage(t, db, newSearch(t, org, me, c.q, 20), "(ANALYZE, TIMING OFF, COSTS OFF)")
		if n := ticketsRead(plan); n > 100 {
			t.Errorf("%q reads %d tickets:\n%s", c.q, n, plan)
		}
		if c.byID && !byIDRe.MatchString(plan) {
			t.Errorf("%q does not read its rare word's tickets by id:\n%s", c.q, plan)
		}
		rows, _, err := searchdb.List(ctx, db.Pool, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != c.list {
			t.Errorf("%q listed %d tickets, want %d", c.q, len(rows), c.list)
		}
		for _, r := range rows {
			if c.list == 2 && r.TicketNumber != 15000 && r.TicketNumber != 29000 {
				t.Errorf("%q listed ticket %d", c.q, r.TicketNumber)
			}
		}
		if n, err := searchdb.Count(ctx, db.Pool, s, 100000); err != nil || n != c.count {
			t.Errorf("%q counted %d (%v), want %d", c.q, n, err, c.count)
		}
	}
}

// byIDRe finds an index condition on the ids of an InitPlan's array.
var byIDRe = regexp.MustCompile(`Index Cond: .*\bid = ANY \(\$\d+\)`)

// Words the full text has no lexeme for (stop words, punctuation) are left
// out of a query, as websearch_to_tsquery leaves them out of a text: alone,
// each was an empty query that matches nothing, so "the login crash" found
// no ticket at all.
func TestStopWordsAreIgnored(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := seedTickets(t, db, 30, "'Login crash ' || g", "about the dashboard")
	for q, want := range map[string]int{
		"the login crash": 30, "login the": 30, "the": 30, "-the": 30, `"the"`: 30, "with": 30, "%%% login": 30,
		"login -the": 30, "the OR qqq": 0, "(the OR login) crash": 30, "the zzyzx": 0, "the dashboard": 30,
	} {
		s, err := searchdb.Resolve(ctx, db.Pool, newSearch(t, org, me, q, 20))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		n, err := searchdb.Count(ctx, db.Pool, s, 1000)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows, _, err := searchdb.List(ctx, db.Pool, s)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n != want || len(rows) != min(want, 20) {
			t.Errorf("%q: counted %d and listed %d, want %d", q, n, len(rows), want)
		}
	}
}
