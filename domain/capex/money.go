package capex

import (
	"math"
	"math/big"
	"strconv"
)

// The arithmetic of the report. Money is integer cents throughout; each
// approved entry is priced once, from its exact minutes, and rounded half up
// to a cent there; sums are of those cents. Hours are only for display:
// minutes/60 rounded half up to 2 places, computed from the summed minutes
// of whatever the row adds up (never a sum of rounded hours).

// roundDiv is a/b rounded half away from zero (b > 0). It never overflows:
// the remainder decides the rounding, so nothing is doubled.
func roundDiv(a, b int64) int64 {
	q, r := a/b, a%b
	if r < 0 {
		r = -r
	}
	if r >= b-r { // 2|r| >= b, without computing 2|r|
		if a >= 0 {
			q++
		} else {
			q--
		}
	}
	return q
}

// mulRoundDiv is a×m/b rounded half away from zero (b > 0), exact even when
// a×m does not fit in 64 bits; a result beyond int64 saturates at its bound
// instead of wrapping to the other sign.
func mulRoundDiv(a, m, b int64) int64 {
	if p := a * m; a == 0 || (p/a == m && !(a == -1 && m == math.MinInt64) && !(m == -1 && a == math.MinInt64)) {
		return roundDiv(p, b)
	}
	n := new(big.Int).Mul(big.NewInt(a), big.NewInt(m))
	q, r := new(big.Int).QuoRem(n, big.NewInt(b), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(big.NewInt(b)) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	switch {
	case q.IsInt64():
		return q.Int64()
	case q.Sign() > 0:
		return math.MaxInt64
	default:
		return math.MinInt64
	}
}

// EntryAmountCents prices one entry: minutes × cents-per-hour / 60, rounded
// half up to a cent.
func EntryAmountCents(minutes, rateCents int64) int64 {
	return mulRoundDiv(minutes, rateCents, 60)
}

// Decimal2 is a number with exactly two decimal places, held in hundredths
// and rendered without floating point ("12.50").
type Decimal2 int64

// HoursOf is minutes/60 rounded half up to 2 places.
func HoursOf(minutes int64) Decimal2 { return Decimal2(mulRoundDiv(minutes, 100, 60)) }

// CentsAsDecimal renders cents as currency units with 2 places.
func CentsAsDecimal(cents int64) Decimal2 { return Decimal2(cents) }

// String renders the value with two decimal places.
func (d Decimal2) String() string {
	n := int64(d)
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	frac := strconv.FormatInt(n%100, 10)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return sign + strconv.FormatInt(n/100, 10) + "." + frac
}

// MarshalJSON renders a JSON number with two decimal places.
func (d Decimal2) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a JSON number back (clients and tests).
func (d *Decimal2) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	if f >= 0 {
		*d = Decimal2(int64(f*100 + 0.5))
	} else {
		*d = Decimal2(int64(f*100 - 0.5))
	}
	return nil
}

// Budget periods of a project.
const (
	BudgetMonthly   = "Monthly"
	BudgetQuarterly = "Quarterly"
	BudgetYearly    = "Yearly"
	BudgetFixed     = "Fixed"
)

// PeriodBudgetCents is the part of a project's budget that belongs to one
// calendar month: Monthly as is, Quarterly a third, Yearly a twelfth (each
// rounded half up to a cent), Fixed (and a budget without a period) the
// whole budget, spent against everything approved up to the month's end.
func PeriodBudgetCents(budgetCents int64, budgetPeriod *string) int64 {
	switch p := periodOf(budgetPeriod); p {
	case BudgetQuarterly:
		return roundDiv(budgetCents, 3)
	case BudgetYearly:
		return roundDiv(budgetCents, 12)
	default:
		return budgetCents
	}
}

// IsCumulative reports whether a project's spend is counted over all time up
// to the period's end (Fixed budgets) rather than within the period.
func IsCumulative(budgetPeriod *string) bool { return periodOf(budgetPeriod) == BudgetFixed }

func periodOf(p *string) string {
	if p == nil {
		return BudgetFixed
	}
	return *p
}

// UtilizationPct is spent/budget in percent, rounded half up to 2 places;
// nil when the budget is not positive (no meaningful ratio).
func UtilizationPct(spentCents, budgetCents int64) *Decimal2 {
	if budgetCents <= 0 {
		return nil
	}
	d := Decimal2(mulRoundDiv(spentCents, 10000, budgetCents))
	return &d
}
