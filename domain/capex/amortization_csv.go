package capex

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// AmortCSVHeader is the header of the amortization CSV.
var AmortCSVHeader = []string{"Period", "ProjectKey", "Project", "AmortizationMonths", "PlacedInService", "InService",
	"Capitalized", "AmortizationExpense", "AccumulatedAmortization", "ConstructionInProgress", "NetBookValue"}

// WriteAmortCSV renders one row per (project, month), by project key and
// month, money in currency units with two decimals, RFC 4180 with CRLF and
// every cell through SafeCell; a last row "Total" carries the report's
// totals (capitalized and expense over the range, balances at its end).
func WriteAmortCSV(r AmortReport) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(AmortCSVHeader); err != nil {
		return nil, err
	}
	money := func(c int64) string { return CentsAsDecimal(c).String() }
	for _, p := range r.Projects {
		for _, m := range p.Months {
			if err := w.Write(SafeRow([]string{
				m.Period, p.ProjectKey, p.ProjectName, strconv.FormatInt(p.AmortizationMonths, 10), deref(p.PlacedInService),
				strconv.FormatBool(m.InService), money(m.CapitalizedCents), money(m.AmortizationCents),
				money(m.AccumulatedAmortizationCents), money(m.ConstructionInProgressCents), money(m.NetBookValueCents),
			})); err != nil {
				return nil, err
			}
		}
	}
	var cip int64
	if n := len(r.Months); n > 0 {
		cip = r.Months[n-1].ConstructionInProgressCents
	}
	t := r.Totals
	if err := w.Write(SafeRow([]string{"Total", "", "", "", "", "", money(t.CapitalizedCents), money(t.AmortizationCents),
		money(t.AccumulatedAmortizationCents), money(cip), money(t.NetBookValueCents)})); err != nil {
		return nil, err
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
