package capex

import (
	"math"
	"testing"
	"time"
)

// TestRoundDivHalfUp pins the rounding of exactly half a cent, either sign:
// half away from zero, and one unit less stays down.
func TestRoundDivHalfUp(t *testing.T) {
	t.Parallel()
	for _, c := range [][3]int64{
		{1, 2, 1}, {-1, 2, -1}, {3, 2, 2}, {-3, 2, -2}, // exactly half
		{30, 60, 1}, {-30, 60, -1}, {29, 60, 0}, {-29, 60, 0}, {31, 60, 1}, {-31, 60, -1},
		{149, 100, 1}, {150, 100, 2}, {-150, 100, -2}, {-149, 100, -1},
		{0, 7, 0}, {7, 7, 1}, {-7, 7, -1}, {6, 1, 6}, {-6, 1, -6},
	} {
		if got := roundDiv(c[0], c[1]); got != c[2] {
			t.Errorf("roundDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// TestMulRoundDivEdges: products that do not fit in 64 bits take the exact
// path, including the two whose overflow the quotient check cannot see,
// and exact halves there round away from zero too.
func TestMulRoundDivEdges(t *testing.T) {
	t.Parallel()
	for _, c := range [][3]int64{
		{1<<32 + 1, 1 << 31, 60},         // wraps to a value whose product with a gives m back
		{-1, math.MinInt64, 1 << 40},     // -1 × MinInt64 wraps to itself
		{math.MinInt64, -1, 1 << 40},     // and the other way round
		{math.MaxInt64, 2, 4},            // an exact half beyond 64 bits
		{math.MinInt64 + 1, 2, 4},        // negative
		{math.MaxInt64, 3, 2},            // saturates high
		{math.MinInt64, 3, 2},            // saturates low
		{0, math.MaxInt64, 7}, {5, 0, 3}, // zeros
		{-7, 100, 60}, {7, -100, 60}, {1, 1, 2}, // small, negative, half
	} {
		got, want := mulRoundDiv(c[0], c[1], c[2]), bigRound(c[0], c[1], c[2])
		switch {
		case want.IsInt64() && got != want.Int64():
			t.Errorf("mulRoundDiv(%d, %d, %d) = %d, want %s", c[0], c[1], c[2], got, want)
		case !want.IsInt64() && want.Sign() > 0 && got != math.MaxInt64,
			!want.IsInt64() && want.Sign() < 0 && got != math.MinInt64:
			t.Errorf("mulRoundDiv(%d, %d, %d) = %d, want saturation for %s", c[0], c[1], c[2], got, want)
		}
	}
}

func TestDecimal2Edges(t *testing.T) {
	t.Parallel()
	for d, want := range map[Decimal2]string{0: "0.00", 1: "0.01", 10: "0.10", 99: "0.99", 100: "1.00", -1: "-0.01", -100: "-1.00", -1999: "-19.99"} {
		if got := d.String(); got != want {
			t.Errorf("Decimal2(%d) = %q, want %q", int64(d), got, want)
		}
	}
	for in, want := range map[string]Decimal2{"0": 0, "0.004": 0, "0.005": 1, "-0.005": -1, "-0.004": 0, "1.5": 150, "-2.25": -225} {
		var d Decimal2
		if err := d.UnmarshalJSON([]byte(in)); err != nil || d != want {
			t.Errorf("UnmarshalJSON(%s) = %d, %v; want %d", in, int64(d), err, int64(want))
		}
	}
	var d Decimal2
	if err := d.UnmarshalJSON([]byte(`"1.00"`)); err == nil {
		t.Error("a JSON string read as a number")
	}
	if EntryAmountCents(-30, 100) != -50 || HoursOf(-30) != -50 || CentsAsDecimal(-5) != -5 {
		t.Error("negative minutes (a correction) round away from zero")
	}
}

// TestParsePeriodMessages: an empty period is "required", a malformed one
// names the form; the months and years either side of the valid range are
// refused.
func TestParsePeriodMessages(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":        "from: required (YYYY-MM)",
		"2026-1":  "from: must be a month in the form YYYY-MM",
		"2026-13": "from: must be a month in the form YYYY-MM",
		"2026-00": "from: must be a month in the form YYYY-MM",
		"0000-05": "from: must be a month in the form YYYY-MM",
	} {
		_, err := ParsePeriod("from", in)
		if err == nil || err.Error() != "validation failed: "+want {
			t.Errorf("ParsePeriod(%q) = %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]Period{"0001-01": {1, time.January}, "2026-12": {2026, time.December}, "9999-01": {9999, time.January}} {
		if p, err := ParsePeriod("from", in); err != nil || p != want {
			t.Errorf("ParsePeriod(%q) = %v, %v", in, p, err)
		}
	}
	if p := PeriodOf(time.Date(2026, 3, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600))); p != (Period{2026, time.February}) {
		t.Errorf("PeriodOf(1 Mar 00:30 CET) = %v, want 2026-02", p)
	}
	if got := (Period{2026, time.January}).Previous(); got != (Period{2025, time.December}) {
		t.Errorf("Previous of 2026-01 = %v", got)
	}
	if got := (Period{2026, time.March}).End(); !got.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("End of 2026-03 = %v", got)
	}
}
