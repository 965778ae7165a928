package capex

import (
	"strings"
	"testing"

	"tracker/domain"
)

// TestParseQueryPeriod: a report's month alone can make the query invalid.
func TestParseQueryPeriod(t *testing.T) {
	for period, want := range map[string]string{
		"2026-13": "period: must be a month in the form YYYY-MM",
		"":        "period: required (YYYY-MM)",
	} {
		_, err := ParseQuery(RawQuery{Period: period})
		if err == nil {
			t.Fatalf("%q: no error", period)
		}
		if got := strings.Join(domain.AsError(err).Details, "\n"); got != want {
			t.Errorf("%q: %q, want %q", period, got, want)
		}
	}
	if q, err := ParseQuery(RawQuery{Period: "2026-03"}); err != nil || q.Period.String() != "2026-03" {
		t.Fatalf("2026-03: %+v, %v", q.Period, err)
	}
}
