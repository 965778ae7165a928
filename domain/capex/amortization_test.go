package capex

import (
	"math/rand"
	"strings"
	"testing"

	"tracker/domain"
)

func per(s string) Period {
	p, err := ParsePeriod("p", s)
	if err != nil {
		panic(err)
	}
	return p
}

func mi(s string) int { return monthIndex(per(s)) }

// TestAmortizeGolden: 10.00 in January and 5.00 in February are
// construction in progress until the project is placed in service on
// 2026-02-15; the 15.00 amortizes over 3 months from March (5.00 each).
// 10.01 capitalized in March (after service) is its own layer from April:
// 3.33, 3.33 and the remainder 3.35 in its last month.
func TestAmortizeGolden(t *testing.T) {
	caps := map[int]int64{mi("2026-01"): 1000, mi("2026-02"): 500, mi("2026-03"): 1001}
	in := mi("2026-02")
	type row struct {
		period                   string
		inService                bool
		capd, exp, acc, cip, nbv int64
	}
	want := []row{
		{"2026-01", false, 1000, 0, 0, 1000, 1000},
		{"2026-02", false, 500, 0, 0, 1500, 1500},
		{"2026-03", true, 1001, 500, 500, 0, 2001},
		{"2026-04", true, 0, 833, 1333, 0, 1168},
		{"2026-05", true, 0, 833, 2166, 0, 335},
		{"2026-06", true, 0, 335, 2501, 0, 0},
		{"2026-07", true, 0, 0, 2501, 0, 0},
	}
	opening, months := Amortize(caps, 3, &in, per("2026-01"), per("2026-07"))
	if opening != (AmortTotals{}) {
		t.Fatalf("opening %+v", opening)
	}
	if len(months) != len(want) {
		t.Fatalf("%d months", len(months))
	}
	for i, w := range want {
		m := months[i]
		got := row{m.Period, m.InService, m.CapitalizedCents, m.AmortizationCents, m.AccumulatedAmortizationCents,
			m.ConstructionInProgressCents, m.NetBookValueCents}
		if got != w {
			t.Errorf("month %d: got %+v, want %+v", i, got, w)
		}
	}
	// A later window carries the earlier months as opening balances.
	opening, months = Amortize(caps, 3, &in, per("2026-04"), per("2026-05"))
	if opening.AccumulatedAmortizationCents != 500 || opening.NetBookValueCents != 2001 {
		t.Fatalf("opening %+v, want accumulated 500 and NBV 2001", opening)
	}
	if months[0].AccumulatedAmortizationCents != 1333 || months[1].NetBookValueCents != 335 {
		t.Fatalf("window %+v", months)
	}
}

// TestAmortizeRemainder: 1.00 over 7 months is 0.14 six times and 0.16 in
// the last month.
func TestAmortizeRemainder(t *testing.T) {
	in := mi("2025-12")
	_, months := Amortize(map[int]int64{mi("2025-12"): 100}, 7, &in, per("2026-01"), per("2026-08"))
	want := []int64{14, 14, 14, 14, 14, 14, 16, 0}
	for i, w := range want {
		if months[i].AmortizationCents != w {
			t.Fatalf("month %s: %d, want %d", months[i].Period, months[i].AmortizationCents, w)
		}
	}
	if months[7].AccumulatedAmortizationCents != 100 || months[7].NetBookValueCents != 0 {
		t.Fatalf("end %+v", months[7])
	}
}

// TestAmortizeNotInService: without placed_in_service nothing amortizes;
// everything is construction in progress.
func TestAmortizeNotInService(t *testing.T) {
	_, months := Amortize(map[int]int64{mi("2026-01"): 777, mi("2026-03"): 5}, 12, nil, per("2026-01"), per("2026-04"))
	for _, m := range months {
		if m.AmortizationCents != 0 || m.InService || m.ConstructionInProgressCents != m.NetBookValueCents {
			t.Fatalf("month %+v", m)
		}
	}
	if months[3].NetBookValueCents != 782 {
		t.Fatalf("NBV %d", months[3].NetBookValueCents)
	}
}

// TestAmortizeReconciles: on random data, over a window long enough for
// every layer to end, the expense sums exactly to what was capitalized, the
// last month's NBV is 0, and each month's NBV = capitalized to date −
// accumulated amortization.
func TestAmortizeReconciles(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for trial := 0; trial < 500; trial++ {
		caps := map[int]int64{}
		start := mi("2024-01")
		var total int64
		for m := 0; m < 36; m++ {
			if rng.Intn(3) > 0 {
				a := rng.Int63n(10_000_000)
				caps[start+m] = a
				total += a
			}
		}
		n := int64(1 + rng.Intn(60))
		in := start + rng.Intn(36)
		from, to := periodAt(start), periodAt(start+36+int(n)+1)
		_, months := Amortize(caps, n, &in, from, to)
		var exp, capd int64
		for _, m := range months {
			exp += m.AmortizationCents
			capd += m.CapitalizedCents
			if m.NetBookValueCents != capd-m.AccumulatedAmortizationCents || m.AmortizationCents < 0 {
				t.Fatalf("trial %d month %+v", trial, m)
			}
		}
		if exp != total || capd != total || months[len(months)-1].NetBookValueCents != 0 {
			t.Fatalf("trial %d: expense %d, capitalized %d, total %d, end %+v", trial, exp, capd, total, months[len(months)-1])
		}
		// Any window agrees with the whole schedule.
		a := rng.Intn(len(months))
		opening, win := Amortize(caps, n, &in, periodAt(monthIndex(from)+a), to)
		if a > 0 && opening.AccumulatedAmortizationCents != months[a-1].AccumulatedAmortizationCents {
			t.Fatalf("trial %d: opening %+v vs %+v", trial, opening, months[a-1])
		}
		if win[0] != months[a] {
			t.Fatalf("trial %d: window %+v vs %+v", trial, win[0], months[a])
		}
	}
}

func TestParseAmortQuery(t *testing.T) {
	for _, c := range [][2]string{{"", "2026-01"}, {"2026-02", "2026-01"}, {"2026-01", "2046-01"}, {"2026-13", "2026-12"}} {
		if _, err := ParseAmortQuery([16]byte{}, c[0], c[1], [16]byte{}); err == nil {
			t.Errorf("%v: want 422", c)
		}
	}
	if _, err := ParseAmortQuery([16]byte{}, "2026-01", "2045-12", [16]byte{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseAmortQuery([16]byte{}, "2026-01", "2026-01", [16]byte{}); err != nil {
		t.Fatalf("one month: %v", err)
	}
	// Each problem names its own parameter.
	for _, c := range []struct{ from, to, want string }{
		{"2026-13", "2026-12", "from: must be a month in the form YYYY-MM"},
		{"2026-01", "2026-x", "to: must be a month in the form YYYY-MM"},
		{"", "", "from: required (YYYY-MM)\nto: required (YYYY-MM)"},
		{"2026-02", "2026-01", "to: must not be before from"},
		{"2026-01", "2046-01", "to: must be at most 240 months after from"},
	} {
		_, err := ParseAmortQuery([16]byte{}, c.from, c.to, [16]byte{})
		if err == nil {
			t.Fatalf("%s..%s: no error", c.from, c.to)
		}
		if got := strings.Join(domain.AsError(err).Details, "\n"); got != c.want {
			t.Errorf("%s..%s: %q, want %q", c.from, c.to, got, c.want)
		}
	}
}
