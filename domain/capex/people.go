package capex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"io"
	"slices"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/capexdb"
)

// PeopleReport is the capitalization of a period per person: their hours
// and amounts, the capitalized part, and their FTE against the policy's
// standard hours a month (DefaultStandardHours without a policy).
type PeopleReport struct {
	Period                string       `json:"period"`
	StandardHoursPerMonth int64        `json:"standard_hours_per_month"`
	People                []PersonLine `json:"people"`
	Policy                *PolicyRef   `json:"policy,omitempty"`
	Close                 *CloseInfo   `json:"close,omitempty"`
}

// PersonLine is one person's month. Percentages and FTE have two decimals;
// capitalized_pct is the capitalized share of their hours (null without
// hours).
type PersonLine struct {
	UserID           uuid.UUID `json:"user_id"`
	DisplayName      string    `json:"display_name"`
	Hours            Decimal2  `json:"hours"`
	CapExHours       Decimal2  `json:"capex_hours"`
	OpExHours        Decimal2  `json:"opex_hours"`
	CapitalizedPct   *Decimal2 `json:"capitalized_pct"`
	FTE              Decimal2  `json:"fte"`
	CapExFTE         Decimal2  `json:"capex_fte"`
	AmountCents      int64     `json:"amount_cents"`
	CapExAmountCents int64     `json:"capex_amount_cents"`
}

// People computes the people report of qr (Admin, as the report): the
// report's filters apply, and a closed month comes from its snapshot.
func (s *Service) People(ctx context.Context, p domain.Principal, qr Query) (PeopleReport, error) {
	q := s.DB.Q()
	f, err := s.filterFor(ctx, q, p, &qr)
	if err != nil {
		return PeopleReport{}, err
	}
	out := PeopleReport{Period: qr.Period.String(), People: []PersonLine{}}
	g := capexdb.Grouping{OnlyUsers: true}
	cl, ok, err := closedOf(ctx, q, qr.OrgID, qr.Period)
	if err != nil {
		return out, err
	}
	var lines []capexdb.Line
	if ok {
		out.Policy = cl.doc.Policy
		info := toCloseInfo(cl.info)
		out.Close = &info
		lines, err = cl.classified(ctx, q, f, g, out.Policy)
	} else {
		out.Policy, lines, err = inForce(ctx, q, capexdb.Aggregate, f, g, qr.OrgID, qr.Period, s.now())
	}
	if err != nil {
		return out, err
	}
	out.StandardHoursPerMonth = out.Policy.standardHours()
	out.Policy = out.Policy.public()
	type sums struct {
		name                                  string
		minutes, capexMinutes, amount, capexA int64
	}
	per := map[uuid.UUID]*sums{}
	var order []uuid.UUID
	for _, l := range byUser(refs(lines)) {
		u := per[l.UserID]
		if u == nil {
			u = &sums{name: l.DisplayName}
			per[l.UserID] = u
			order = append(order, l.UserID)
		}
		u.minutes += l.Minutes
		u.amount += l.AmountCents
		if classOf(l) == CapEx {
			u.capexMinutes += l.Minutes
			u.capexA += l.AmountCents
		}
	}
	std := out.StandardHoursPerMonth * 60 // minutes
	for _, id := range order {
		u := per[id]
		out.People = append(out.People, PersonLine{UserID: id, DisplayName: u.name, Hours: HoursOf(u.minutes),
			CapExHours: HoursOf(u.capexMinutes), OpExHours: HoursOf(u.minutes - u.capexMinutes),
			CapitalizedPct: UtilizationPct(u.capexMinutes, u.minutes), FTE: Decimal2(mulRoundDiv(u.minutes, 100, std)),
			CapExFTE: Decimal2(mulRoundDiv(u.capexMinutes, 100, std)), AmountCents: u.amount, CapExAmountCents: u.capexA})
	}
	slices.SortStableFunc(out.People, func(a, b PersonLine) int {
		return cmp.Or(cmp.Compare(a.DisplayName, b.DisplayName), cmpID(a.UserID, b.UserID))
	})
	return out, nil
}

// standardHours is the policy's standard hours a month, the default
// without one.
func (pol *PolicyRef) standardHours() int64 {
	if pol == nil || pol.StandardHoursPerMonth <= 0 {
		return DefaultStandardHours
	}
	return pol.StandardHoursPerMonth
}

// PeopleHeader is the people report's CSV and XLSX header.
var PeopleHeader = []string{"Period", "UserID", "Employee", "Hours", "CapExHours", "OpExHours", "CapitalizedPct", "FTE",
	"CapExFTE", "Amount", "CapExAmount"}

// WritePeopleCSV renders the people report as CSV (RFC 4180, CRLF,
// formula-like cells escaped; amounts in currency units).
func WritePeopleCSV(r PeopleReport) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(PeopleHeader); err != nil {
		return nil, err
	}
	for _, p := range r.People {
		if err := w.Write(SafeRow([]string{r.Period, p.UserID.String(), p.DisplayName, p.Hours.String(), p.CapExHours.String(),
			p.OpExHours.String(), decCell(p.CapitalizedPct), p.FTE.String(), p.CapExFTE.String(),
			CentsAsDecimal(p.AmountCents).String(), CentsAsDecimal(p.CapExAmountCents).String()})); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

var peopleXLSXKinds = []xkind{xMonth, xText, xText, xDec2, xDec2, xDec2, xDec2, xDec2, xDec2, xMoney, xMoney}

// WritePeopleXLSX writes the people report as XLSX to w, typed, with a
// totals row.
func WritePeopleXLSX(w io.Writer, r PeopleReport) error {
	xw, err := newXLSX("People", columns(PeopleHeader, peopleXLSXKinds, map[string]float64{"Employee": 22, "UserID": 38}))
	if err != nil {
		return err
	}
	var hours, capexHours, opexHours, fte, capexFTE Decimal2
	var amount, capexAmount int64
	for _, p := range r.People {
		if err := xw.add(monthOf(r.Period), p.UserID.String(), p.DisplayName, p.Hours, p.CapExHours, p.OpExHours,
			optDec(p.CapitalizedPct), p.FTE, p.CapExFTE, p.AmountCents, p.CapExAmountCents); err != nil {
			xw.close()
			return err
		}
		hours, capexHours, opexHours = hours+p.Hours, capexHours+p.CapExHours, opexHours+p.OpExHours
		fte, capexFTE = fte+p.FTE, capexFTE+p.CapExFTE
		amount, capexAmount = amount+p.AmountCents, capexAmount+p.CapExAmountCents
	}
	if err := xw.total(nil, nil, nil, hours, capexHours, opexHours, nil, fte, capexFTE, amount, capexAmount); err != nil {
		xw.close()
		return err
	}
	return xw.finish(w)
}
