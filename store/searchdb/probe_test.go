package searchdb_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"tracker/internal/searchquery"
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
	n := searchdb.ProbeSample + 100
	org, me := seedTickets(t, db, n, "CASE WHEN g = "+strconv.Itoa(n)+" THEN 'Zeppelin manifest' ELSE 'Launch ' || g END", "about the dashboard")
	pq, err := searchquery.Parse("launch zeppelin dashbord")
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
