package capex

import "time"

// Straight line, in integer cents, by layer:
//   - Construction in progress: everything capitalized up to and including
//     the month of placed_in_service (or all of it while the project has
//     none) accumulates as one amount; from the month after the month of
//     placed_in_service it amortizes over amortization_months.
//   - Every month capitalized after the month of placed_in_service is its
//     own layer, amortized over amortization_months from the month after.
//   - A layer of A cents over N months expenses floor(A/N) in each of its
//     first N-1 months and A - (N-1)*floor(A/N) in its last: the rounding
//     remainder goes to the last month, so every layer amortizes to exactly
//     A and the totals reconcile to the cent.
//
// Per month: accumulated amortization is every layer's expense up to that
// month (months before the requested range included); net book value is
// everything capitalized up to that month (construction in progress
// included) minus the accumulated amortization.

// monthIndex numbers months consecutively.
func monthIndex(p Period) int { return p.Year*12 + int(p.Month) - 1 }

func periodAt(i int) Period {
	return Period{Year: i / 12, Month: timeMonth(i%12 + 1)}
}

// layer is an amount amortized over n months from month index start.
type layer struct {
	start  int
	amount int64
}

// expenseAt is the layer's expense in month index m: floor(A/N) in each
// month but the last, which takes the remainder.
func (l layer) expenseAt(m int, n int64) int64 {
	k := int64(m - l.start)
	if k < 0 || k >= n {
		return 0
	}
	base := l.amount / n
	if k == n-1 {
		return l.amount - base*(n-1)
	}
	return base
}

// expensedBefore is the layer's expense over every month before index m.
func (l layer) expensedBefore(m int, n int64) int64 {
	k := int64(m - l.start)
	switch {
	case k <= 0:
		return 0
	case k >= n:
		return l.amount
	}
	return (l.amount / n) * k
}

// Amortize computes one project's schedule over [from, to]. capitalized
// holds the capitalized cents by month index (any months; those after to
// are ignored); inService is the month index of placed_in_service, or nil.
func Amortize(capitalized map[int]int64, months int64, inService *int, from, to Period) (opening AmortTotals, out []AmortMonth) {
	f, t := monthIndex(from), monthIndex(to)
	var layers []layer
	var cip int64 // capitalized up to and including the in-service month
	for m, a := range capitalized {
		if m > t || a == 0 {
			continue
		}
		if inService == nil || m <= *inService {
			cip += a
		} else {
			layers = append(layers, layer{start: m + 1, amount: a})
		}
	}
	if inService != nil && cip != 0 {
		layers = append(layers, layer{start: *inService + 1, amount: cip})
	}
	var capBefore, accBefore int64
	for m, a := range capitalized {
		if m < f {
			capBefore += a
		}
	}
	for _, l := range layers {
		accBefore += l.expensedBefore(f, months)
	}
	opening = AmortTotals{AccumulatedAmortizationCents: accBefore, NetBookValueCents: capBefore - accBefore}
	capTo, acc := capBefore, accBefore
	out = make([]AmortMonth, 0, t-f+1)
	for m := f; m <= t; m++ {
		row := AmortMonth{Period: periodAt(m).String(), InService: inService != nil && m > *inService,
			CapitalizedCents: capitalized[m]}
		for _, l := range layers {
			row.AmortizationCents += l.expenseAt(m, months)
		}
		capTo += row.CapitalizedCents
		acc += row.AmortizationCents
		row.AccumulatedAmortizationCents = acc
		row.NetBookValueCents = capTo - acc
		if !row.InService {
			row.ConstructionInProgressCents = capTo
		}
		out = append(out, row)
	}
	return opening, out
}

func timeMonth(m int) time.Month { return time.Month(m) }
