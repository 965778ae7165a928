package tickets_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchDueEstimate: the due: and estimate: terms and the due and
// estimate sorts, in a project and org-wide, with tickets without a value
// last and pages that join up; today is the service clock's.
func TestSearchDueEstimate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	today := f.env.Clock.Now().UTC()
	day := func(n int) string { return today.AddDate(0, 0, n).Format("2006-01-02") }
	mk := func(title string, body map[string]any) {
		body["title"] = title
		f.create(t, f.owner.Token, f.project, body)
	}
	mk("late", map[string]any{"due_date": day(-3), "estimate": 5})
	mk("late done", map[string]any{"due_date": day(-3), "status": "Done", "estimate": 1})
	mk("today", map[string]any{"due_date": day(0), "estimate": 3})
	mk("soon", map[string]any{"due_date": day(6), "estimate": 3.25})
	mk("week", map[string]any{"due_date": day(7)})
	mk("later", map[string]any{"due_date": day(30), "estimate": 0})
	mk("none", map[string]any{})

	list := path("/projects/%s/tickets?limit=100", f.project)
	org := path("/orgs/%s/tickets?limit=100", f.owner.OrgID)
	for q, want := range map[string]string{
		"due:overdue":                "late",
		"due:<7d":                    "soon,today",
		"due:7d":                     "soon,today,week",
		"due:>7d":                    "later",
		"due:none":                   "none",
		"due:" + day(0):              "today",
		"due:<" + day(0):             "late,late done",
		"due:>=" + day(7):            "later,week",
		"estimate:>3":                "late,soon",
		"estimate:>=3":               "late,soon,today",
		"estimate:3":                 "today",
		"estimate:<=1":               "late done,later",
		"estimate:none":              "none,week",
		"-due:overdue estimate:>3":   "soon",
		"due:overdue OR estimate:<1": "late,later",
	} {
		for _, base := range []string{list, org} {
			if got := strings.Join(f.search(t, f.owner.Token, base, q, 200).titles(), ","); got != want {
				t.Errorf("%s (%s): %s, want %s", q, base, got, want)
			}
		}
	}
	for q, want := range map[string]string{
		"sort:due":                      "late,late done,today,soon,week,later,none",
		"sort:due-desc":                 "later,week,soon,today,late,late done,none",
		"sort:estimate":                 "late,soon,today,late done,later,week,none",
		"sort:estimate-asc":             "later,late done,today,soon,late,week,none",
		"due:none sort:due":             "none",
		"estimate:>0 sort:estimate-asc": "late done,today,soon,late",
	} {
		var got []string
		cursor := ""
		for i := 0; i < 10; i++ {
			u := path("/projects/%s/tickets?limit=2", f.project)
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
		// Equal keys (late / late done; week / none) break ties by id in
		// the sort's direction: compare them as sets.
		if !sameOrderUpToTies(got, strings.Split(want, ",")) {
			t.Errorf("%s: %v, want %s", q, got, want)
		}
	}
	for q, pos := range map[string]string{"due:soon": "position 1", "estimate:-1": "position 1", "label:x estimate:1.234": "position 9",
		"due:>overdue": "position 1", "sort:due-up": "position 1"} {
		res := f.env.Do("GET", list+"&q="+url.QueryEscape(q), f.owner.Token, nil).Expect(t, 422)
		if e := res.Error(); !strings.Contains(e.Message, pos) {
			t.Errorf("%s: %s", q, res.Body)
		}
	}
	if time.Since(today) > time.Hour {
		t.Fatal("the test outran its day")
	}
}

// sameOrderUpToTies: got is want with only the pairs tied in the sort
// (late / late done, week / none when neither has the key) swapped.
func sameOrderUpToTies(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	tied := func(a, b string) bool {
		pair := []string{a, b}
		slices.Sort(pair)
		return slices.Equal(pair, []string{"late", "late done"}) || slices.Equal(pair, []string{"none", "week"})
	}
	for i := range got {
		if got[i] != want[i] && !(i+1 < len(got) && tied(got[i], want[i]) && got[i+1] == want[i] ||
			i > 0 && tied(got[i], want[i]) && got[i-1] == want[i]) {
			return false
		}
	}
	return true
}
