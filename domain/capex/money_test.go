package capex

import (
	"encoding/json"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestEntryAmountCents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		minutes, rate int64
		want          int64
	}{
		{"whole hour", 60, 15000, 15000},
		{"half hour", 30, 15000, 7500},
		{"minutes that do not divide: 7 min at 100.00/h = 11.666.. → 11.67", 7, 10000, 1167},
		{"exact half cent rounds up: 1 min at 0.30/h = 0.5 cent → 1", 1, 30, 1},
		{"just below half: 1 min at 0.29/h = 0.483 cent → 0", 1, 29, 0},
		{"rate 0", 480, 0, 0},
		{"a full day", 1440, 12345, 296280},
		{"1 minute at 1.00/h = 1.666 cents → 2", 1, 100, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EntryAmountCents(tt.minutes, tt.rate); got != tt.want {
				t.Fatalf("EntryAmountCents(%d, %d) = %d, want %d", tt.minutes, tt.rate, got, tt.want)
			}
		})
	}
}

func TestHoursOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		minutes int64
		want    string
	}{
		{0, "0.00"}, {1, "0.02"}, {7, "0.12"}, {20, "0.33"}, {40, "0.67"}, {45, "0.75"},
		{60, "1.00"}, {61, "1.02"}, {90, "1.50"}, {100, "1.67"}, {1440, "24.00"}, {100001, "1666.68"},
	}
	for _, tt := range tests {
		if got := HoursOf(tt.minutes).String(); got != tt.want {
			t.Errorf("HoursOf(%d) = %s, want %s", tt.minutes, got, tt.want)
		}
	}
}

func TestDecimal2JSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]Decimal2{"a": 1250, "b": 5, "c": -705, "d": 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":12.50,"b":0.05,"c":-7.05,"d":0.00}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	var back map[string]Decimal2
	if err := json.Unmarshal(b, &back); err != nil || back["a"] != 1250 || back["c"] != -705 {
		t.Fatalf("round trip: %v %v", back, err)
	}
}

func TestPeriodBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		budget     int64
		period     *string
		want       int64
		cumulative bool
	}{
		{"monthly as is", 300000, ptr(BudgetMonthly), 300000, false},
		{"quarterly a third", 300000, ptr(BudgetQuarterly), 100000, false},
		{"quarterly rounds half up", 100, ptr(BudgetQuarterly), 33, false},
		{"quarterly 2/3 cent rounds up", 200, ptr(BudgetQuarterly), 67, false},
		{"yearly a twelfth", 1200000, ptr(BudgetYearly), 100000, false},
		{"yearly 6/12 rounds up", 6, ptr(BudgetYearly), 1, false},
		{"fixed whole, cumulative", 5000000, ptr(BudgetFixed), 5000000, true},
		{"no period is fixed", 5000000, nil, 5000000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PeriodBudgetCents(tt.budget, tt.period); got != tt.want {
				t.Errorf("PeriodBudgetCents = %d, want %d", got, tt.want)
			}
			if got := IsCumulative(tt.period); got != tt.cumulative {
				t.Errorf("IsCumulative = %v, want %v", got, tt.cumulative)
			}
		})
	}
}

func TestUtilizationPct(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spent, budget int64
		want          *string
	}{
		{50, 100, ptr("50.00")},
		{1, 3, ptr("33.33")},
		{2, 3, ptr("66.67")},
		{1, 8, ptr("12.50")},
		{1, 80000, ptr("0.00")},
		{1, 20000, ptr("0.01")}, // 0.005% rounds half up
		{150, 100, ptr("150.00")},
		{0, 100, ptr("0.00")},
		{10, 0, nil},
	}
	for _, tt := range tests {
		got := UtilizationPct(tt.spent, tt.budget)
		switch {
		case tt.want == nil && got != nil:
			t.Errorf("UtilizationPct(%d, %d) = %s, want nil", tt.spent, tt.budget, got)
		case tt.want != nil && (got == nil || got.String() != *tt.want):
			t.Errorf("UtilizationPct(%d, %d) = %v, want %s", tt.spent, tt.budget, got, *tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		capType, phase *string
		want           string
	}{
		{nil, ptr("ApplicationDevelopment"), CapEx},
		{nil, ptr("application development"), CapEx},
		{nil, ptr("APPLICATION_DEVELOPMENT"), CapEx},
		{ptr("capitalized"), ptr("Application-Development"), CapEx},
		{nil, ptr("Preliminary"), OpEx},
		{nil, ptr("PostImplementation"), OpEx},
		{nil, ptr("post implementation"), OpEx},
		{nil, nil, OpEx},
		{ptr("capex"), nil, OpEx},
		{nil, ptr("something else"), OpEx},
		{ptr("expensed"), ptr("ApplicationDevelopment"), OpEx},
		{ptr("OpEx"), ptr("ApplicationDevelopment"), OpEx},
	}
	for _, tt := range tests {
		if got := Classify(tt.capType, tt.phase); got != tt.want {
			t.Errorf("Classify(%v, %v) = %s, want %s", deref(tt.capType), deref(tt.phase), got, tt.want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	good := map[string]string{"2026-01": "2026-01", "2025-12": "2025-12", "0001-01": "0001-01"}
	for in, want := range good {
		p, err := ParsePeriod("period", in)
		if err != nil || p.String() != want {
			t.Errorf("ParsePeriod(%q) = %v, %v", in, p, err)
		}
	}
	for _, in := range []string{"", "2026", "2026-13", "2026-00", "2026-1", "26-01", "2026-01-01", "abcd-ef", " 2026-01"} {
		if _, err := ParsePeriod("period", in); err == nil {
			t.Errorf("ParsePeriod(%q) accepted", in)
		}
	}
	p, _ := ParsePeriod("period", "2026-01")
	if !p.Start().Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) || !p.End().Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("bounds of 2026-01: %v %v", p.Start(), p.End())
	}
	if got := p.Previous().String(); got != "2025-12" {
		t.Errorf("previous of 2026-01 = %s", got)
	}
}

func TestParseTags(t *testing.T) {
	t.Parallel()
	tags, ok := ParseTags("team:alpha, env:prod,url:http://x")
	if !ok || len(tags) != 3 || tags[1].Key != "env" || tags[1].Value != "prod" || tags[2].Value != "http://x" {
		t.Fatalf("ParseTags = %v, %v", tags, ok)
	}
	for _, bad := range []string{"team", "team:", ":alpha", "a:b,,c:d", "a:b,c"} {
		if _, ok := ParseTags(bad); ok {
			t.Errorf("ParseTags(%q) accepted", bad)
		}
	}
	if tags, ok := ParseTags(""); !ok || tags != nil {
		t.Errorf("empty tag filter: %v %v", tags, ok)
	}
}
