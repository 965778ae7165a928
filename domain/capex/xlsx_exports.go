package capex

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// XLSXHeader is the capitalization XLSX's header: the CSV's columns, with
// the budget and spend in currency units (Budget, Spent) instead of cents.
var XLSXHeader = []string{"Period", "Project", "ProjectKey", "Employee", "Department", "CostCenter", "Hours",
	"ActivityType", "Phase", "CapExOpEx", "LoadedRate", "Amount", "Team", "Tags", "Budget", "Spent", "Utilization"}

var xlsxKinds = []xkind{xMonth, xText, xText, xText, xText, xText, xDec2,
	xText, xText, xText, xMoney, xMoney, xText, xText, xMoney, xMoney, xDec2}

func columns(names []string, kinds []xkind, widths map[string]float64) []xcol {
	cols := make([]xcol, len(names))
	for i, n := range names {
		cols[i] = xcol{name: n, kind: kinds[i], width: widths[n]}
	}
	return cols
}

// WriteXLSX writes the capitalization export as XLSX to w: the rows of
// WriteCSV in its order, typed, then a totals row with the report's
// total hours (from the summed minutes) and total amount.
func WriteXLSX(w io.Writer, period Period, lines []capexdb.Line, x CSVExtras) error {
	xw, err := newXLSX("Capitalization", columns(XLSXHeader, xlsxKinds,
		map[string]float64{"Project": 24, "Employee": 22, "Tags": 24, "Team": 18}))
	if err != nil {
		return err
	}
	for _, l := range exportOrder(lines) {
		b := budgetOf(*l, x.Spent)
		var rate any
		if c, ok := loadedRateCents(*l); ok {
			rate = c
		}
		if err := xw.add(period, l.ProjectName, l.ProjectKey, l.DisplayName, x.Departments[l.UserID], deref(l.CostCenterID),
			HoursOf(l.Minutes), l.ActivityType, deref(l.DevelopmentPhase), classOf(l),
			rate, l.AmountCents, deref(l.TeamName), tagsCell(x.ProjectTags[l.ProjectID]), optInt(b.BudgetCents),
			optInt(b.SpentCents), optDec(b.BudgetUtilizationPct)); err != nil {
			xw.close()
			return err
		}
	}
	t := totalsOf(lines)
	vals := make([]any, len(XLSXHeader))
	vals[6], vals[11] = t.TotalHours, t.TotalAmountCents
	if err := xw.total(vals...); err != nil {
		xw.close()
		return err
	}
	return xw.finish(w)
}

func optInt(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

func optDec(v *Decimal2) any {
	if v == nil {
		return nil
	}
	return *v
}

// ExportXLSX renders the report of qr as the capitalization XLSX; a closed
// month is rendered from its snapshot (the numbers of its stored CSV).
func (s *Service) ExportXLSX(ctx context.Context, p domain.Principal, qr Query) ([]byte, error) {
	q := s.DB.Q()
	f, err := s.filterFor(ctx, q, p, &qr)
	if err != nil {
		return nil, err
	}
	return renderXLSX(ctx, q, qr, f, s.now())
}

// renderXLSX aggregates f (a closed month from its snapshot) and renders
// the XLSX.
func renderXLSX(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter, now time.Time) ([]byte, error) {
	lines, x, err := exportLines(ctx, q, qr, f, now)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, qr.Period, lines, x); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// exportLines reads the export's (project, user, activity type) lines and
// the columns the aggregate does not carry: from the snapshot for a closed
// month (as closed.csv does), else live.
func exportLines(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter, now time.Time) ([]capexdb.Line, CSVExtras, error) {
	cl, ok, err := closedOf(ctx, q, qr.OrgID, qr.Period)
	if err != nil {
		return nil, CSVExtras{}, err
	}
	if ok {
		lines, err := cl.classified(ctx, q, f, capexdb.Grouping{Full: true}, cl.doc.Policy)
		return lines, CSVExtras{ProjectTags: cl.doc.ProjectTags, Departments: cl.doc.Departments, Spent: cl.doc.Spent}, err
	}
	pol, err := policyInForce(ctx, q, qr.OrgID, qr.Period, now)
	if err != nil {
		return nil, CSVExtras{}, err
	}
	lines, err := classified(ctx, q, capexdb.Aggregate, f, capexdb.Grouping{Full: true}, pol)
	if err != nil {
		return nil, CSVExtras{}, err
	}
	x, err := rollup.csvExtras(ctx, q, qr, lines)
	return lines, x, err
}

// EntriesXLSXHeader is the drill-down XLSX's header (the CSV's columns).
var EntriesXLSXHeader = EntriesCSVHeader

var entriesXLSXKinds = []xkind{xMonth, xText, xDate, xText, xText, xText, xText, xText,
	xText, xInt, xDec2, xMoney, xMoney, xText}

// EntriesXLSX is EntriesCSV as XLSX: one typed row per entry, streamed
// through excelize's StreamWriter (memory stays flat whatever the count),
// then a totals row with the entries' minutes, hours (from the summed
// minutes) and amount — the drill-down's total_hours and
// total_amount_cents. Authorization and the totals' query run before the
// first byte; the returned writer runs later, under ctx without its cancel.
func (s *Service) EntriesXLSX(ctx context.Context, p domain.Principal, eq EntriesQuery) (func(io.Writer) error, error) {
	q := s.DB.Q()
	d, err := s.prepareDrill(ctx, q, p, &eq)
	if err != nil {
		return nil, err
	}
	period := eq.Period
	ctx = context.WithoutCancel(ctx)
	return func(out io.Writer) error {
		return writeEntriesXLSX(out, period, d.pol != nil, func(fn func(EntryLine) error) error {
			return s.DB.ReadOnly(ctx, func(q store.Querier) error {
				return capexdb.EachEntry(ctx, q, d.src, d.f, uuid.Nil, 0, func(r capexdb.EntryRow) error { return fn(d.line(r)) })
			})
		})
	}, nil
}

// writeEntriesXLSX writes the drill-down workbook of the entries each
// yields, then the totals row. each runs on its own goroutine (for the
// export: the query, pgx's scanning and the pricing of every entry) which
// also turns every entry into its row of typed cells (ids formatted, dates
// as serial numbers) and hands over batches of rows, while this goroutine
// only feeds them to excelize's stream writer: the two halves of the work
// share the machine's cores instead of taking turns. Rows keep their
// order; a writing error stops the reader. rationale adds the CSV's
// Classification, RuleID and Reason columns (under a policy).
func writeEntriesXLSX(out io.Writer, period Period, rationale bool, each func(func(EntryLine) error) error) error {
	header, kinds := EntriesXLSXHeader, entriesXLSXKinds
	if rationale {
		header = append(header[:len(header):len(header)], EntriesCSVRationale...)
		kinds = append(kinds[:len(kinds):len(kinds)], xText, xText, xText)
	}
	xw, err := newXLSX("Entries", columns(header, kinds,
		map[string]float64{"EntryID": 38, "UserID": 38, "Employee": 22, "TicketTitle": 40, "Reason": 60}))
	if err != nil {
		return err
	}
	// Four batches in flight and two spare: memory stays flat.
	batches, free, stop := make(chan []entryRow, 4), make(chan []entryRow, 2), make(chan struct{})
	var readErr error
	go func() {
		defer close(batches)
		readErr = readEntryBatches(xw, period, each, batches, free, stop)
	}()
	var minutes, amount int64
	for b := range batches {
		for i := range b {
			if err != nil {
				break
			}
			minutes += b[i].minutes
			amount += b[i].amount
			err = xw.putCells(b[i].cells)
		}
		if err != nil && stop != nil {
			close(stop) // the reader stops at its next batch; the rest is drained
			stop = nil
		}
		select {
		case free <- b[:0]: // the reader refills it
		default:
		}
	}
	if err == nil {
		err = readErr // batches is closed: the reader has returned
	}
	if err == nil {
		vals := make([]any, len(xw.cols))
		vals[9], vals[10], vals[12] = minutes, HoursOf(minutes), amount
		err = xw.total(vals...)
	}
	if err != nil {
		xw.close()
		return err
	}
	return xw.finish(out)
}

// entryRow is one entry's row of cells, prepared by the reader, and the
// numbers the totals row sums.
type entryRow struct {
	minutes, amount int64
	cells           []excelize.Cell
}

const entryBatchRows = 256

var errWriterStopped = errors.New("xlsx: writer stopped")

// readEntryBatches runs each and sends its entries as rows of cells in
// batches (reusing the ones the writer hands back on free, cells and all)
// until each ends or stop is closed. The month's cell and the dates' cells
// are converted once per workbook, not per row.
func readEntryBatches(xw *xlsxWriter, period Period, each func(func(EntryLine) error) error, batches chan<- []entryRow,
	free <-chan []entryRow, stop <-chan struct{}) error {
	batch := make([]entryRow, 0, entryBatchRows)
	send := func() error {
		select {
		case batches <- batch:
			select {
			case batch = <-free:
			default:
				batch = make([]entryRow, 0, entryBatchRows)
			}
			return nil
		case <-stop:
			return errWriterStopped
		}
	}
	var month any = period
	if s, ok := dateSerial(period.Start()); ok {
		month = s
	}
	dates := map[string]any{} // at most the month's days
	vals := make([]any, len(xw.cols))
	err := each(func(l EntryLine) error {
		date, ok := dates[l.Date]
		if !ok {
			date = dateOf(l.Date)
			if t, isTime := date.(time.Time); isTime {
				if s, ok := dateSerial(t); ok {
					date = s
				}
			}
			if len(dates) < 64 {
				dates[l.Date] = date
			}
		}
		vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6] = month, l.EntryID.String(), date, l.DisplayName,
			l.UserID.String(), l.TicketRef, l.TicketTitle
		vals[7], vals[8], vals[9], vals[10], vals[11], vals[12], vals[13] = l.ProjectKey, l.ActivityType,
			l.DurationMinutes, l.Hours, optInt(l.RateCents), l.AmountCents, l.CapExOpEx
		if len(vals) > 14 {
			vals[14], vals[15], vals[16] = l.Classification, l.RuleID, l.Reason
		}
		n := len(batch)
		batch = batch[:n+1]
		r := &batch[n]
		if r.cells == nil {
			r.cells = make([]excelize.Cell, len(vals))
		}
		r.minutes, r.amount = l.DurationMinutes, l.AmountCents
		if err := xw.cellsOf(r.cells, &xw.plain, vals); err != nil {
			return err
		}
		if len(batch) == entryBatchRows {
			return send()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = send()
	}
	return err
}

// AmortXLSXHeader is the amortization XLSX's header (the CSV's columns).
var AmortXLSXHeader = AmortCSVHeader

var amortXLSXKinds = []xkind{xMonth, xText, xText, xInt, xDate, xBool, xMoney, xMoney, xMoney, xMoney, xMoney}

// WriteAmortXLSX writes the amortization schedule as XLSX to w: the rows of
// WriteAmortCSV, typed, and its Total row (capitalized and expense over the
// range, balances at its end).
func WriteAmortXLSX(w io.Writer, r AmortReport) error {
	xw, err := newXLSX("Amortization", columns(AmortXLSXHeader, amortXLSXKinds,
		map[string]float64{"Project": 24, "AmortizationMonths": 20, "AccumulatedAmortization": 24, "ConstructionInProgress": 24}))
	if err != nil {
		return err
	}
	for _, p := range r.Projects {
		var placed any
		if p.PlacedInService != nil {
			placed = dateOf(*p.PlacedInService)
		}
		for _, m := range p.Months {
			if err := xw.add(monthOf(m.Period), p.ProjectKey, p.ProjectName, p.AmortizationMonths, placed, m.InService,
				m.CapitalizedCents, m.AmortizationCents, m.AccumulatedAmortizationCents, m.ConstructionInProgressCents,
				m.NetBookValueCents); err != nil {
				xw.close()
				return err
			}
		}
	}
	var cip int64
	if n := len(r.Months); n > 0 {
		cip = r.Months[n-1].ConstructionInProgressCents
	}
	t := r.Totals
	if err := xw.total(nil, nil, nil, nil, nil, nil, t.CapitalizedCents, t.AmortizationCents,
		t.AccumulatedAmortizationCents, cip, t.NetBookValueCents); err != nil {
		xw.close()
		return err
	}
	return xw.finish(w)
}

// monthOf reads a YYYY-MM month; text that is not one stays text.
func monthOf(s string) any {
	p, err := ParsePeriod("period", s)
	if err != nil {
		return s
	}
	return p
}
