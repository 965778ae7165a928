package searchdb_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store/searchdb"
)

// A query compiles only after Resolve: label and sprint names, typo words
// and phrases have no SQL of their own that looks them up, so an
// unresolved query is an error, never a different query.
func TestPageRefusesAnUnresolvedQuery(t *testing.T) {
	for _, q := range []string{"label:bug", "sprint:current", `sprint:"Sprint 2"`, "dashbord", `"payment timeout"`, "status:Done"} {
		pq, err := searchquery.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		s := searchdb.Search{Env: searchdb.Env{OrgID: uuid.New()}, Root: pq.Root, Sort: pq.Sort, Limit: 20}
		if _, err := searchdb.Page(s); !errors.Is(err, searchdb.ErrUnresolved) {
			t.Errorf("%s: Page without Resolve: %v, want ErrUnresolved", q, err)
		}
		s.Names = &searchdb.Names{}
		if _, err := searchdb.Page(s); err != nil {
			t.Errorf("%s: Page with names: %v", q, err)
		}
	}
}
