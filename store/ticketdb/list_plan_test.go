package ticketdb

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/storetest"
)

// listSeed is one org with one member and one project of 30,000 tickets:
// every status but Cancelled and every priority but Critical, so those two
// values match nothing.
const listSeed = `
INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-list-' || gen_random_uuid());
INSERT INTO users (id, email, display_name) VALUES ($2, 'me-' || gen_random_uuid() || '@example.com', 'Me');
INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member');
INSERT INTO projects (id, org_id, key, name) VALUES ($3, $1, 'P', 'Project');
INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, reporter_id)
SELECT md5('lt' || g)::uuid, $1, $3, g, 'ticket ' || g, '',
       (ARRAY['Backlog','Todo','InProgress','InReview','Done','Done'])[1 + g % 6],
       (ARRAY['None','None','Low','Medium','High'])[1 + (g / 7) % 5], $2
FROM generate_series(1, 30000) g;
`

// rowsRemoved sums the "Rows Removed by Filter" of an EXPLAIN ANALYZE plan:
// the tickets read and thrown away.
var rowsRemoved = regexp.MustCompile(`Rows Removed by (?:Filter|Index Recheck): (\d+)`)

// A project list filtered by a status or priority that no ticket has reads
// no ticket: the comparisons reach the project's status and priority
// indexes; without an index condition status=Cancelled would read all
// 30,000 tickets of the project. The pages are
// still exactly the tickets with that status and priority. (A status that
// differs only in case from one in use, status=done, still reads that
// status's tickets: the index holds lower(status), the match stays exact.)
func TestListFiltersUseTheProjectIndexes(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me, project := uuid.New(), uuid.New(), uuid.New()
	seed := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid",
		"$3", "'"+project.String()+"'::uuid").Replace(listSeed)
	if _, err := db.Pool.Exec(ctx, seed); err != nil {
		t.Fatalf("seed: %v", err)
	}
	if _, err := db.Pool.Exec(ctx, "ANALYZE tickets"); err != nil {
		t.Fatal(err)
	}
	page := store.Page{Limit: 20}
	for _, f := range []Filter{
		{Status: "Cancelled"}, {Priority: "Critical"}, {Status: "Done", Priority: "Critical"},
		{Status: "Cancelled", Priority: "High"},
	} {
		sql, args := listPageSQL(project, me, f, page)
		text := storetest.Explain(t, db.Pool, "(ANALYZE, TIMING OFF)", sql, args...)
		removed := 0
		for _, m := range rowsRemoved.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			removed += n
		}
		if removed > 100 {
			t.Errorf("%+v matches nothing, yet the list read and dropped %d tickets:\n%s", f, removed, text)
		}
		_, got, err := ListPage(ctx, db.Q(), project, me, f, page)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != 0 {
			t.Errorf("%+v: %d tickets, want none", f, len(got.Items))
		}
	}

	// Matching values: the page is the first tickets in id order with that
	// exact status and priority, as a plain scan finds them.
	for _, f := range []Filter{{Status: "Done"}, {Priority: "High"}, {Status: "InReview", Priority: "Low"}} {
		var want []uuid.UUID
		rows, err := db.Pool.Query(ctx, `SELECT id FROM tickets WHERE project_id = $1
			AND ($2 = '' OR status = $2) AND ($3 = '' OR priority = $3) ORDER BY id LIMIT 20`, project, f.Status, f.Priority)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			want = append(want, id)
		}
		rows.Close()
		_, got, err := ListPage(ctx, db.Q(), project, me, f, page)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]uuid.UUID, len(got.Items))
		for i, r := range got.Items {
			ids[i] = r.ID
		}
		if len(want) != 20 || !slices.Equal(ids, want) {
			t.Errorf("%+v: page %v, want %v", f, ids, want)
		}
	}
}
