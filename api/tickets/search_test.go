package tickets_test

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
	"tracker/store/ticketdb"
)

type searchPage struct {
	Items []struct {
		ID           uuid.UUID `json:"id"`
		Title        string    `json:"title"`
		TicketNumber int       `json:"ticket_number"`
	} `json:"items"`
	NextCursor  *string `json:"next_cursor"`
	HasMore     bool    `json:"has_more"`
	Total       *int    `json:"total"`
	TotalCapped bool    `json:"total_capped"`
}

func (p searchPage) titles() []string {
	out := []string{}
	for _, it := range p.Items {
		out = append(out, it.Title)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) search(t *testing.T, token, base, q string, want int) searchPage {
	t.Helper()
	var p searchPage
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	res := f.env.Do("GET", base+sep+"q="+url.QueryEscape(q), token, nil).Expect(t, want)
	if want == 200 {
		res.Decode(t, &p)
	}
	return p
}

// seedSearch makes tickets in project ABC with labels, tags, a sprint, an
// attachment and a comment, and a ticket in a second project XYZ.
func seedSearch(t *testing.T, f *fixture) (xyz uuid.UUID) {
	t.Helper()
	mk := func(body map[string]any) uuid.UUID { return f.create(t, f.owner.Token, f.project, body).ID }
	a := mk(map[string]any{"title": "Login crash on Safari", "priority": "High", "status": "InProgress", "assignee_id": f.member.ID})
	b := mk(map[string]any{"title": "Slow dashboard", "description": "the charts render slowly", "priority": "Low", "status": "InReview"})
	c := mk(map[string]any{"title": "Billing export", "priority": "Critical", "status": "Done", "assignee_id": f.owner.ID})
	mk(map[string]any{"title": "Typo in footer"})
	org := f.owner.OrgID
	testfactory.Label(t, f.env.DB, org, testfactory.LabelOpts{Name: "bug", Tickets: []uuid.UUID{a, b}})
	testfactory.Label(t, f.env.DB, org, testfactory.LabelOpts{Name: "wontfix", Tickets: []uuid.UUID{b}})
	testfactory.Tag(t, f.env.DB, org, testfactory.TagOpts{EntityType: "ticket", EntityID: c, Key: "env", Value: "prod"})
	sp := f.sprint(t, f.project)
	f.env.Exec(t, `UPDATE sprints SET status = 'Active', name = 'Sprint 12' WHERE id = $1`, sp)
	f.env.Exec(t, `UPDATE tickets SET sprint_id = $1 WHERE id IN ($2, $3)`, sp, a, c)
	testfactory.Attachment(t, f.env.DB, org, b, f.owner.ID, testfactory.AttachmentOpts{})
	testfactory.Comment(t, f.env.DB, ticketdb.Row{ID: c, OrgID: org}, f.owner.ID, testfactory.CommentOpts{Body: "customers mention invoices"})
	f.env.Exec(t, `UPDATE tickets SET created_at = '2025-12-15', updated_at = now() - interval '30 days' WHERE id = $1`, b)
	xyz = f.newProject(t, "XYZ")
	f.create(t, f.owner.Token, xyz, map[string]any{"title": "Login page in XYZ", "priority": "High"})
	return xyz
}

func TestSearchProjectQueries(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedSearch(t, f)
	list := path("/projects/%s/tickets", f.project)
	cases := []struct{ q, want string }{
		{"status:InProgress", "Login crash on Safari"},
		{`status:"inreview"`, "Slow dashboard"},
		{"category:done", "Billing export"},
		{"category:in_progress", "Login crash on Safari,Slow dashboard"},
		{"priority:>=High", "Billing export,Login crash on Safari"},
		{"priority:<Medium", "Slow dashboard,Typo in footer"},
		{"assignee:me", "Billing export"},
		{"assignee:" + f.member.Email, "Login crash on Safari"},
		{"assignee:none", "Slow dashboard,Typo in footer"},
		{"reporter:me", "Billing export,Login crash on Safari,Slow dashboard,Typo in footer"},
		{"label:BUG", "Login crash on Safari,Slow dashboard"},
		{"label:bug -label:wontfix", "Login crash on Safari"},
		{"label:nosuchlabel", ""},
		{"label:bug OR label:nosuchlabel", "Login crash on Safari,Slow dashboard"},
		{"label:nosuchlabel OR label:nothing", ""},
		{"label:wontfix OR label:bug", "Login crash on Safari,Slow dashboard"},
		{"-label:nosuchlabel", "Billing export,Login crash on Safari,Slow dashboard,Typo in footer"},
		{"-label:BUG", "Billing export,Typo in footer"},
		{`sprint:"no such sprint"`, ""},
		{`-sprint:"sprint 12"`, "Slow dashboard,Typo in footer"},
		{"sprint:current", "Billing export,Login crash on Safari"},
		{`sprint:"Sprint 12" -assignee:me`, "Login crash on Safari"},
		{"sprint:none", "Slow dashboard,Typo in footer"},
		{"project:abc priority:High", "Login crash on Safari"},
		{"project:XYZ", ""},
		{"created:<2026-01-01", "Slow dashboard"},
		{"created:2025-12-15", "Slow dashboard"},
		{"updated:<7d", "Billing export,Login crash on Safari,Typo in footer"},
		{"updated:>7d", "Slow dashboard"},
		{"tag:env=prod", "Billing export"},
		{"tag:env=dev", ""},
		{"tag:env", "Billing export"},
		{"has:attachments", "Slow dashboard"},
		{"has:labels", "Login crash on Safari,Slow dashboard"},
		{"crash", "Login crash on Safari"},
		{"charts", "Slow dashboard"},   // description
		{"invoices", "Billing export"}, // comment
		{`"slow dashboard"`, "Slow dashboard"},
		{"dashbord", "Slow dashboard"}, // typo: trigram title match
		{"sort:relevance billing", "Billing export"},
		{"label:wontfix OR priority:Critical", "Billing export,Slow dashboard"},
		{"(label:wontfix OR priority:Critical) category:done", "Billing export"},
		{"-(label:bug OR assignee:none)", "Billing export"},
		{"nothingmatchesthis", ""},
	}
	for _, c := range cases {
		p := f.search(t, f.owner.Token, list, c.q, 200)
		if got := strings.Join(p.titles(), ","); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	// A comment written later is found: the vector follows comments.
	f.comment(t, f.search(t, f.owner.Token, list, "footer", 200).Items[0].ID)
	f.env.Exec(t, `UPDATE comments SET body = 'mentions zeppelins' WHERE body = 'hi'`)
	if p := f.search(t, f.owner.Token, list, "zeppelin", 200); strings.Join(p.titles(), ",") != "Typo in footer" {
		t.Errorf("comment edit not searched: %v", p.titles())
	}
}

func TestSearchErrorsArePositioned(t *testing.T) {
	t.Parallel()
	f := setup(t)
	list := path("/projects/%s/tickets", f.project)
	for q, pos := range map[string]string{"label:bug nope:x": "position 11", "priority:Urgent": "position 1",
		`(label:a`: "position 1", `"abc`: "position 1", "is:open": "position 1", "sort:size": "position 1"} {
		res := f.env.Do("GET", list+"?q="+url.QueryEscape(q), f.owner.Token, nil).Expect(t, 422)
		if e := res.Error(); !strings.Contains(e.Message, pos) || len(e.Details) != 1 {
			t.Errorf("%s: %s", q, res.Body)
		}
	}
	f.env.Do("GET", list+"?q=x&cursor=AAAA", f.owner.Token, nil).Expect(t, 422)
	f.env.Do("GET", list+"?q=x&count=maybe", f.owner.Token, nil).Expect(t, 422)
	f.env.Do("GET", list+"?q=x&limit=0", f.owner.Token, nil).Expect(t, 422)
	// Injection attempts are values: they match nothing.
	for _, q := range []string{`label:"x') OR 1=1 --"`, `'; DROP TABLE tickets; --`, `status:"\\"`} {
		f.search(t, f.owner.Token, list, q, 200)
	}
}

// Every sort pages with its keyset cursor: the pages join to the whole
// ordered list with nothing repeated or lost, and total counts when asked.
func TestSearchSortsPageByKeyset(t *testing.T) {
	t.Parallel()
	f := setup(t)
	prios := []string{"None", "Low", "Medium", "High", "Critical"}
	for i := 0; i < 11; i++ {
		tk := f.create(t, f.owner.Token, f.project, map[string]any{"title": "T" + string(rune('a'+i)), "priority": prios[i%5]})
		// Equal updated_at for some rows: ties are broken by id.
		f.env.Exec(t, `UPDATE tickets SET updated_at = '2026-02-01'::timestamptz + ($2 % 3) * interval '1 hour' WHERE id = $1`, tk.ID, i)
	}
	list := path("/projects/%s/tickets", f.project)
	for _, sort := range []string{"", "sort:created", "sort:created-asc", "sort:updated", "sort:updated-asc",
		"sort:priority", "sort:priority-asc", "sort:number", "sort:number-desc"} {
		full := f.search(t, f.owner.Token, list+"?limit=100", sort, 200)
		if len(full.Items) != 11 {
			t.Fatalf("%s: %d items", sort, len(full.Items))
		}
		var paged []uuid.UUID
		cursor := ""
		for i := 0; ; i++ {
			u := list + "?limit=4&count=true"
			if cursor != "" {
				u += "&cursor=" + cursor
			}
			p := f.search(t, f.owner.Token, u, sort, 200)
			if p.Total == nil || *p.Total != 11 || p.TotalCapped {
				t.Fatalf("%s: total %v", sort, p.Total)
			}
			for _, it := range p.Items {
				paged = append(paged, it.ID)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
			if i > 5 {
				t.Fatalf("%s: does not end", sort)
			}
		}
		for i, it := range full.Items {
			if i >= len(paged) || paged[i] != it.ID {
				t.Fatalf("%s: paged order differs at %d (%d paged)", sort, i, len(paged))
			}
		}
		if sort == "sort:number-desc" && full.Items[0].TicketNumber != 11 {
			t.Errorf("number-desc starts at %d", full.Items[0].TicketNumber)
		}
	}
	// Free words rank by relevance (title weighs more than description and
	// comments) and page by rank and id.
	f.create(t, f.owner.Token, f.project, map[string]any{"title": "Other", "description": "mentions rocket once"})
	f.create(t, f.owner.Token, f.project, map[string]any{"title": "Rocket rocket launch", "description": "rocket"})
	f.create(t, f.owner.Token, f.project, map[string]any{"title": "Rocket", "description": "plain"})
	var ranked []string
	cursor := ""
	for {
		u := list + "?limit=1"
		if cursor != "" {
			u += "&cursor=" + cursor
		}
		p := f.search(t, f.owner.Token, u, "rocket", 200)
		for _, it := range p.Items {
			ranked = append(ranked, it.Title)
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	if strings.Join(ranked, ",") != "Rocket rocket launch,Rocket,Other" {
		t.Errorf("relevance order: %v", ranked)
	}
	// A cursor of one sort is refused by another.
	p := f.search(t, f.owner.Token, list+"?limit=2", "sort:updated", 200)
	f.env.Do("GET", list+"?limit=2&q=sort:created&cursor="+*p.NextCursor, f.owner.Token, nil).Expect(t, 422)
	// The plain list keeps the id cursor.
	p = f.search(t, f.owner.Token, list+"?limit=2&count=true", "", 200)
	f.env.Do("GET", list+"?limit=2&cursor="+*p.NextCursor, f.owner.Token, nil).Expect(t, 200)
}

// The org-wide list shows what the caller may see: every project for a
// member, assigned projects for a Reporter, the key's projects for a
// restricted key; nothing for a non-member.
func TestSearchOrgVisibility(t *testing.T) {
	t.Parallel()
	f := setup(t)
	xyz := seedSearch(t, f)
	org := path("/orgs/%s/tickets", f.owner.OrgID)
	titles := func(p searchPage) string { return strings.Join(p.titles(), ",") }
	if got := titles(f.search(t, f.viewer.Token, org, "login", 200)); got != "Login crash on Safari,Login page in XYZ" {
		t.Errorf("viewer: %s", got)
	}
	if got := titles(f.search(t, f.member.Token, org, "project:XYZ", 200)); got != "Login page in XYZ" {
		t.Errorf("member project:XYZ: %s", got)
	}
	// The Reporter is assigned to ABC only.
	if got := titles(f.search(t, f.reporter.Token, org, "login", 200)); got != "Login crash on Safari" {
		t.Errorf("reporter: %s", got)
	}
	key := f.env.APIKey(f.owner, []string{"read"}, xyz)
	if got := titles(f.search(t, key, org, "priority:High", 200)); got != "Login page in XYZ" {
		t.Errorf("restricted key: %s", got)
	}
	f.env.Do("GET", path("/projects/%s/tickets?q=login", f.project), key, nil).Expect(t, 403)
	f.search(t, f.outsider.Token, org, "login", 404)
	f.search(t, f.outsider.Token, path("/projects/%s/tickets", f.project), "login", 404)
	// The Reporter's read key keeps the Reporter's restriction.
	rkey := f.env.APIKey(f.reporter, []string{"read"})
	if got := titles(f.search(t, rkey, org, "", 200)); strings.Contains(got, "XYZ") {
		t.Errorf("reporter key sees XYZ: %s", got)
	}
	// A deleted project's tickets are gone from the org list.
	f.env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, xyz)
	if got := titles(f.search(t, f.owner.Token, org, "login", 200)); got != "Login crash on Safari" {
		t.Errorf("after delete: %s", got)
	}
	var p searchPage
	f.env.Do("GET", org+"?count=true", f.owner.Token, nil).Expect(t, 200).Decode(t, &p)
	if p.Total == nil || *p.Total != 4 {
		t.Errorf("total %v", p.Total)
	}
	_ = apitest.User{}
}

// A hand-made cursor whose value no row can have in its sort (a number
// past the int4 column, a priority rank outside the list) or that the
// service would not have written is a 422 on every list that takes one,
// never a 500 from SQL.
func TestSearchCursorOutOfRange(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, "one")
	cursor := func(fields string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(`{"s":` + fields + `,"i":"` + tk.ID.String() + `"}`))
	}
	lists := []string{path("/projects/%s/tickets", f.project), path("/orgs/%s/tickets", f.owner.OrgID), path("/tickets/%s/children", tk.ID)}
	for _, c := range []struct{ q, fields string }{
		{"sort:number", `"number-asc","n":2147483648`},
		{"sort:number", `"number-asc","n":-2147483649`},
		{"sort:number", `"number-asc","n":9223372036854775807`},
		{"sort:number-desc", `"number-desc","n":4294967296`},
		{"sort:priority", `"priority-desc","n":5`},
		{"sort:priority", `"priority-desc","n":-1`},
		{"sort:priority", `"priority-desc","n":9223372036854775807`},
		// Not as the service writes it: a time with an offset, a key in
		// another case, a field twice.
		{"sort:created", `"created-desc","t":"2026-01-01T02:00:00+02:00"`},
		{"sort:number", `"number-asc","N":3`},
		{"sort:number", `"number-asc","n":3,"n":4`},
	} {
		for _, list := range lists {
			u := list + "?q=" + url.QueryEscape(c.q) + "&cursor=" + cursor(c.fields)
			if r := f.env.Do("GET", u, f.owner.Token, nil); r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
				t.Errorf("%s cursor {%s}: %d %s", list, c.fields, r.Status, r.Body)
			}
		}
	}
	// The largest values a row can have still page.
	for _, c := range []struct{ q, fields string }{{"sort:number", `"number-asc","n":2147483647`}, {"sort:priority", `"priority-desc","n":4`}} {
		for _, list := range lists {
			f.env.Do("GET", list+"?q="+url.QueryEscape(c.q)+"&cursor="+cursor(c.fields), f.owner.Token, nil).Expect(t, 200)
		}
	}
}
