package reports_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"tracker/domain/capex"
)

// tags is a filter of n key:value pairs, env:prod first (a tag of the
// world's projects).
func tags(n int) string {
	pairs := []string{"env:prod"}
	for i := 1; i < n; i++ {
		pairs = append(pairs, fmt.Sprintf("k%d:v%d", i, i))
	}
	return strings.Join(pairs[:n], ",")
}

// A tag filter takes at most capex.MaxTags pairs on every report route:
// one more is a 422 naming the cap, before any report runs; at the cap the
// route answers.
func TestReportTagFilterIsCapped(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	want := fmt.Sprintf("tag: at most %d key:value pairs (got %d)", capex.MaxTags, capex.MaxTags+1)
	for _, route := range []string{
		"/api/v1/reports/capitalization?period=2026-03",
		"/api/v1/reports/capitalization/export?period=2026-03",
		"/api/v1/reports/capitalization/export?format=xlsx&period=2026-03",
		"/api/v1/reports/capitalization/entries?period=2026-03",
		"/api/v1/reports/capitalization/entries?format=csv&period=2026-03",
		"/api/v1/reports/capitalization/trend.svg?from=2026-01&to=2026-03",
	} {
		over := route + "&" + q("org_id", org, "tag", tags(capex.MaxTags+1))
		r := w.env.Do("GET", over, w.admin.Token, nil).Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Contains(e.Details, want) {
			t.Errorf("%s: %s", route, r.Body)
		}
		w.env.Do("GET", route+"&"+q("org_id", org, "tag", tags(capex.MaxTags)), w.admin.Token, nil).Expect(t, 200)
	}
}

// A trend is at most capex.MaxTrendWork months × tag pairs: 36 months take
// 6 pairs and 12 months 20, one pair or one month more is a 422 that names
// the pairs the span allows.
func TestTrendWorkIsBounded(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	path := "/api/v1/reports/capitalization/trend.svg?"
	for _, c := range []struct {
		from, to string
		pairs    int
		want     string // "" is 200
	}{
		{"2024-04", "2027-03", 6, ""},
		{"2024-04", "2027-03", 7, "tag: a trend of 36 months takes at most 6 key:value pairs (months × pairs at most 240), got 7"},
		{"2026-01", "2026-12", 20, ""},
		{"2025-12", "2026-12", 20, "tag: a trend of 13 months takes at most 18 key:value pairs (months × pairs at most 240), got 20"},
	} {
		r := w.env.Do("GET", path+q("org_id", org, "from", c.from, "to", c.to, "tag", tags(c.pairs)), w.admin.Token, nil)
		if c.want == "" {
			r.Expect(t, 200)
			continue
		}
		r.Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Equal(e.Details, []string{c.want}) {
			t.Errorf("%s..%s with %d pairs: %s", c.from, c.to, c.pairs, r.Body)
		}
	}
}
