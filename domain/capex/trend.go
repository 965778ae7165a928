package capex

import (
	"context"
	"fmt"

	"tracker/domain"
)

// MaxTrendSpan bounds the months of one trend: each month is one report.
const MaxTrendSpan = 36

// MaxTrendWork bounds a trend's months × tag pairs (at least one pair
// counted): each month is one report, whose cost grows with the pairs, so
// 12 months take up to 20 pairs (MaxTags) and 36 months up to 6.
const MaxTrendWork = 240

// TrendMonth is one month of the CapEx/OpEx trend: the totals of that
// month's report.
type TrendMonth struct {
	Period           string `json:"period"`
	CapExAmountCents int64  `json:"capex_amount_cents"`
	OpExAmountCents  int64  `json:"opex_amount_cents"`
	Closed           bool   `json:"closed"`
}

// Trend is the capitalization report's CapEx and OpEx totals for each month
// of [from, to] (empty bounds: the twelve months ending with the current
// one), with qr's filters. Each month is exactly the report of that month
// (Report): the same access, the same numbers, a closed month's snapshot.
func (s *Service) Trend(ctx context.Context, p domain.Principal, qr Query, from, to string) ([]TrendMonth, error) {
	f, t, err := s.trendSpan(from, to)
	if err != nil {
		return nil, err
	}
	n := months(f, t)
	if n*max(1, len(qr.Tags)) > MaxTrendWork {
		return nil, domain.Invalid(fmt.Sprintf("tag: a trend of %d months takes at most %d key:value pairs (months × pairs at most %d), got %d",
			n, MaxTrendWork/n, MaxTrendWork, len(qr.Tags)))
	}
	qr.GroupBy, qr.IncludeUsers, qr.IncludeBudget = GroupNone, false, false
	out := make([]TrendMonth, 0, n)
	for per := f; months(per, t) >= 1; per = nextPeriod(per) {
		qr.Period = per
		rep, err := s.Report(ctx, p, qr)
		if err != nil {
			return nil, err
		}
		out = append(out, TrendMonth{Period: rep.Period, CapExAmountCents: rep.CapExAmountCents,
			OpExAmountCents: rep.OpExAmountCents, Closed: rep.Close != nil})
	}
	return out, nil
}

func (s *Service) trendSpan(from, to string) (Period, Period, error) {
	var probs domain.Problems
	t := PeriodOf(s.now())
	if to != "" {
		v, err := ParsePeriod("to", to)
		if err != nil {
			probs = append(probs, domain.AsError(err).Details...)
		}
		t = v
	}
	f := t
	for i := 0; i < 11; i++ {
		f = f.Previous()
	}
	if from != "" {
		v, err := ParsePeriod("from", from)
		if err != nil {
			probs = append(probs, domain.AsError(err).Details...)
		}
		f = v
	}
	if err := probs.Err(); err != nil {
		return Period{}, Period{}, err
	}
	switch n := months(f, t); {
	case n < 1:
		return Period{}, Period{}, domain.Invalid("to: must not be before from")
	case n > MaxTrendSpan:
		return Period{}, Period{}, domain.Invalid(fmt.Sprintf("to: at most %d months after from", MaxTrendSpan))
	}
	return f, t, nil
}

// ParseTrendQuery validates the report filters of a trend (the months come
// from its from and to; there is no grouping).
func ParseTrendQuery(r RawQuery) (Query, error) {
	r.Period, r.GroupBy = "0001-01", GroupNone // replaced by each month of the trend
	return ParseQuery(r)
}
