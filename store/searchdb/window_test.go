package searchdb_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// A relevance sort ranks the RankWindow most recently updated matches: the
// best-ranked tickets updated before them are not on its pages, and every
// other sort reaches them.
func TestRelevanceRanksTheMostRecentMatches(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	n := searchdb.RankWindow + 10
	org, me := seedTickets(t, db, n, "CASE WHEN g <= 10 THEN 'Rocket rocket rocket' WHEN g = 100 THEN 'Rocket one hundred' ELSE 'Launch ' || g END", "about the rocket")
	pages := func(q string) []string {
		s := newSearch(t, org, me, q, 300)
		var titles []string
		for {
			rows, next, err := searchdb.List(ctx, db.Pool, s)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, r := range rows {
				titles = append(titles, r.Title)
			}
			if next == nil {
				return titles
			}
			s.After = next
		}
	}
	ranked := pages("rocket")
	if len(ranked) != searchdb.RankWindow {
		t.Fatalf("relevance listed %d tickets, want the window of %d", len(ranked), searchdb.RankWindow)
	}
	for _, title := range ranked {
		if title == "Rocket rocket rocket" {
			t.Fatalf("relevance listed a ticket updated before the %d most recent matches", searchdb.RankWindow)
		}
	}
	if got := pages("rocket sort:updated"); len(got) != n || got[len(got)-1] != "Rocket rocket rocket" {
		t.Errorf("sort:updated listed %d tickets (want %d), last %q", len(got), n, got[len(got)-1])
	}
	// Within the window the best rank comes first: the one title match.
	if ranked[0] != "Rocket one hundred" {
		t.Errorf("relevance order starts with %q", ranked[0])
	}
}

// seedTickets makes an org with one Owner (me) and one project of n tickets
// numbered g = 1..n: title is an SQL expression of g, updated_at grows
// with g (a minute apart).
func seedTickets(t *testing.T, db *store.DB, n int, title, description string) (org, me uuid.UUID) {
	t.Helper()
	org, me = uuid.New(), uuid.New()
	seedSQL := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid").Replace(`
INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-seed-' || gen_random_uuid());
INSERT INTO users (id, email, display_name) VALUES ($2, 'seed-' || gen_random_uuid() || '@example.com', 'Me');
INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner');
INSERT INTO projects (id, org_id, key, name) VALUES (gen_random_uuid(), $1, 'S', 'Seeded');
INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, reporter_id, created_at, updated_at)
SELECT gen_random_uuid(), $1, p.id, g, ` + title + `, '` + description + `', 'Todo', 'None', $2,
       '2026-01-01'::timestamptz, '2026-01-01'::timestamptz + g * interval '1 minute'
FROM projects p, generate_series(1, ` + strconv.Itoa(n) + `) g WHERE p.org_id = $1;`)
	if _, err := db.Pool.Exec(context.Background(), seedSQL); err != nil {
		t.Fatalf("seed: %v", err)
	}
	return org, me
}

// newSearch is the search of q by me in org, limit tickets a page, as the
// list route makes it.
func newSearch(t *testing.T, org, me uuid.UUID, q string, limit int) searchdb.Search {
	t.Helper()
	pq, err := searchquery.Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return searchdb.Search{Env: searchdb.Env{OrgID: org, UserID: me, Now: time.Now()},
		Root: pq.Root, Sort: pq.Sort, RankText: pq.RankText(), Limit: limit}
}

// explainPage resolves s as List does and returns it with the plan of its
// page query (EXPLAIN options).
func explainPage(t *testing.T, db *store.DB, s searchdb.Search, options string) (searchdb.Search, string) {
	t.Helper()
	s, err := searchdb.Resolve(context.Background(), db.Pool, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := searchdb.Page(s)
	if err != nil {
		t.Fatal(err)
	}
	sql, args, err := b.ToSql()
	if err != nil {
		t.Fatal(err)
	}
	return s, storetest.Explain(t, db.Pool, options, sql, args...)
}
