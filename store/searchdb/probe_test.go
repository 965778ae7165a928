package searchdb_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/search/query"
	"tracker/store/searchdb"
	"tracker/store/storetest"
)

// Resolve marks the free words the full text finds in no visible ticket
// (only those take the trigram typo fallback): a common word is found in
// the bounded sample, a rare one past the sample by the text index, and a
// typo nowhere.
func TestResolveFindsWordsBeyondTheSample(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	org, me := uuid.New(), uuid.New()
	n := searchdb.ProbeSample + 100
	seedSQL := strings.NewReplacer("$1", "'"+org.String()+"'::uuid", "$2", "'"+me.String()+"'::uuid").Replace(`
INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', 'org-probe-' || gen_random_uuid());
INSERT INTO users (id, email, display_name) VALUES ($2, 'probe-' || gen_random_uuid() || '@example.com', 'Me');
INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner');
INSERT INTO projects (id, org_id, key, name) VALUES (gen_random_uuid(), $1, 'P', 'Probe');
INSERT INTO tickets (id, org_id, project_id, ticket_number, title, description, status, priority, reporter_id)
SELECT gen_random_uuid(), $1, p.id, g,
       CASE WHEN g = ` + strconv.Itoa(n) + ` THEN 'Zeppelin manifest' ELSE 'Launch ' || g END, 'about the dashboard', 'Todo', 'None', $2
FROM projects p, generate_series(1, ` + strconv.Itoa(n) + `) g WHERE p.org_id = $1;`)
	if _, err := db.Pool.Exec(ctx, seedSQL); err != nil {
		t.Fatalf("seed: %v", err)
	}
	pq, err := query.Parse("launch zeppelin dashbord")
	if err != nil {
		t.Fatal(err)
	}
	s, err := searchdb.Resolve(ctx, db.Pool, searchdb.Search{Env: searchdb.Env{OrgID: org, UserID: me, Now: time.Now()}, Root: pq.Root, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"launch": false, "zeppelin": false, "dashbord": true}
	for w, unknown := range want {
		if got := s.Names.Unknown[w]; got != unknown {
			t.Errorf("Unknown[%q] = %v, want %v", w, got, unknown)
		}
	}
}
