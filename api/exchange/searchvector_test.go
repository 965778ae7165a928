package exchange_test

import (
	"net/url"
	"strings"
	"testing"

	"tracker/domain/exchange/export/exportseed"
)

// An import computes each new ticket's search vector in the ticket's insert
// (comments included) instead of letting the comment trigger rewrite it: the
// vector must be the one the triggers would have written, for new tickets
// and for tickets a re-run adds comments to, and the search must find a
// comment's words.
func TestImportJiraCSVSearchVectors(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := string(readSample(t, "jira_cloud_en.csv"))
	const comment = "12/Sep/25 9:06 AM;712020:b0892835-64bc-4809-afd1-cc09a3ffc20e;Testing in progress 09/12 9 AM EST"
	if strings.Count(file, comment) != 1 {
		t.Fatal("the sample changed")
	}
	stale := func() int {
		return count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id
		    WHERE p.org_id = $1 AND t.search_vector IS DISTINCT FROM ticket_search_vector(t.id, t.title, t.description)`, f.b)
	}
	found := func(q string) bool {
		res := f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/tickets?q="+url.QueryEscape(q), f.owner.Token, nil).Expect(t, 200).Map(t)
		for _, it := range res["items"].([]any) {
			if it.(map[string]any)["external_key"] == "TES-15" {
				return true
			}
		}
		return false
	}
	first := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: []byte(strings.Replace(file, comment, "", 1))})
	if s := first["summary"].(map[string]any); s["tickets"] != 22.0 || s["comments"] != 16.0 {
		t.Fatalf("first %v", first)
	}
	if n := count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND EXISTS (SELECT 1 FROM comments c WHERE c.ticket_id = t.id)`, f.b); n == 0 {
		t.Fatal("no imported ticket has comments")
	}
	if n := stale(); n != 0 {
		t.Fatalf("%d tickets with a search vector other than their text's", n)
	}
	if found(`"testing in progress"`) {
		t.Fatal("found by a comment not imported yet")
	}
	// A re-run adds the comment to the ticket there: the trigger refreshes it.
	again := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: []byte(file)})
	if s := again["summary"].(map[string]any); s["comments"] != 1.0 {
		t.Fatalf("re-run %v", again)
	}
	if n := stale(); n != 0 {
		t.Fatalf("%d tickets with a search vector other than their text's after the re-run", n)
	}
	if !found(`"testing in progress"`) {
		t.Fatal("TES-15 not found by its new comment")
	}
}
