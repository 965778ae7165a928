package tickets_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"tracker/domain"
	"tracker/domain/customfield"
)

// TestSearchSortCustom: sort:cf.<key> on a number and a date field, largest
// first by default, -asc and -desc, tickets without a value last either
// way, pages of two that join up (in a project and org-wide); an unknown
// key or a field of a type that does not sort is a 422 naming the position.
func TestSearchSortCustom(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	defs := customfield.New(f.env.DB, domain.SystemClock{})
	owner := domain.Principal{UserID: f.owner.ID}
	for _, in := range []customfield.Input{
		{Name: domain.Some("Points"), Type: domain.Some("number")},
		{Name: domain.Some("Ship"), Type: domain.Some("date")},
		{Name: domain.Some("Customer"), Type: domain.Some("text")},
	} {
		if _, err := defs.Create(ctx, owner, f.owner.OrgID, in); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(title string, cf map[string]any) {
		f.create(t, f.owner.Token, f.project, map[string]any{"title": title, "custom_fields": cf})
	}
	mk("big", map[string]any{"points": 13.5, "ship": "2026-12-01"})
	mk("small", map[string]any{"points": -2, "ship": "2025-01-31"})
	mk("mid", map[string]any{"points": 5})
	mk("mid too", map[string]any{"points": 5, "ship": "2027-03-04"})
	mk("none", map[string]any{})
	mk("tiny", map[string]any{"points": 0.25, "customer": "ACME"})

	// Ties (equal values, or none) break by id in the sort's direction;
	// ids are in creation order.
	for q, want := range map[string]string{
		"sort:cf.points":                  "big,mid too,mid,tiny,small,none",
		"sort:cf.points-desc":             "big,mid too,mid,tiny,small,none",
		"sort:cf.points-asc":              "small,tiny,mid,mid too,big,none",
		"sort:cf.ship":                    "mid too,big,small,tiny,none,mid",
		"sort:cf.ship-asc":                "small,big,mid too,mid,none,tiny",
		"cf.points:>=1 sort:cf.points":    "big,mid too,mid",
		"cf.ship:none sort:cf.points-asc": "tiny,mid,none",
	} {
		for _, base := range []string{path("/projects/%s/tickets?limit=2", f.project), path("/orgs/%s/tickets?limit=2", f.owner.OrgID)} {
			var got []string
			cursor := ""
			for i := 0; i < 10; i++ {
				u := base
				if cursor != "" {
					u += "&cursor=" + cursor
				}
				p := f.search(t, f.owner.Token, u, q, 200)
				for _, it := range p.Items {
					got = append(got, it.Title)
				}
				if p.NextCursor == nil {
					break
				}
				cursor = *p.NextCursor
			}
			if strings.Join(got, ",") != want {
				t.Errorf("%s (%s): %v, want %s", q, base, got, want)
			}
		}
	}
	list := path("/projects/%s/tickets?limit=10", f.project)
	for q, pos := range map[string]string{"sort:cf.nope": "position 1", "label:x sort:cf.customer": "position 9",
		"sort:cf.nope-up": "position 1"} {
		res := f.env.Do("GET", list+"&q="+url.QueryEscape(q), f.owner.Token, nil).Expect(t, 422)
		if e := res.Error(); !strings.Contains(e.Message, pos) {
			t.Errorf("%s: %s", q, res.Body)
		}
	}
}
