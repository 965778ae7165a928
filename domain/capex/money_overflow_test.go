package capex

import (
	"math"
	"math/big"
	"testing"
)

// bigRound is a×m/b rounded half away from zero in exact arithmetic.
func bigRound(a, m, b int64) *big.Int {
	n := new(big.Int).Mul(big.NewInt(a), big.NewInt(m))
	q, r := new(big.Int).QuoRem(n, big.NewInt(b), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(big.NewInt(b)) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return q
}

// The rounding helpers never wrap to the other sign: products beyond 64 bits
// are computed exactly, and results beyond int64 saturate.
func TestRoundingNeverOverflows(t *testing.T) {
	cases := [][3]int64{
		{math.MaxInt64, 1, 2}, {math.MinInt64 + 1, 1, 2}, {math.MaxInt64 / 3, 10000, 7},
		{1 << 62, 10000, 3}, {-(1 << 62), 10000, 3}, {5, 1, 2}, {-5, 1, 2}, {7, 100, 60},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64}, {1_000_000_000_000_000, 600_000, 60},
	}
	for _, c := range cases {
		got, want := mulRoundDiv(c[0], c[1], c[2]), bigRound(c[0], c[1], c[2])
		switch {
		case want.IsInt64() && got != want.Int64():
			t.Errorf("mulRoundDiv(%d, %d, %d) = %d, want %s", c[0], c[1], c[2], got, want)
		case !want.IsInt64() && want.Sign() > 0 && got != math.MaxInt64,
			!want.IsInt64() && want.Sign() < 0 && got != math.MinInt64:
			t.Errorf("mulRoundDiv(%d, %d, %d) = %d, want saturation for %s", c[0], c[1], c[2], got, want)
		}
	}
	if got := roundDiv(math.MaxInt64, 2); got != math.MaxInt64/2+1 {
		t.Errorf("roundDiv(MaxInt64, 2) = %d", got)
	}
	if p := UtilizationPct(math.MaxInt64/2, 3); p == nil || *p <= 0 {
		t.Errorf("UtilizationPct of a huge spend is %v, want positive", p)
	}
	if a := EntryAmountCents(math.MaxInt32, math.MaxInt64/1000); a <= 0 {
		t.Errorf("EntryAmountCents wrapped to %d", a)
	}
}
