package capex

import (
	"archive/zip"
	"fmt"
	"io"
	"time"

	"github.com/xuri/excelize/v2"
)

// The XLSX exports: the same rows as the CSVs, as typed
// cells a spreadsheet program opens as data. Written with excelize's
// StreamWriter, which keeps at most a fixed buffer of rows in memory (the
// rest goes to a temporary file until the workbook is zipped), so a 100k-row
// drill-down stays flat in memory.
//
//   - numbers are numbers; money is a number in currency units built from
//     integer cents (cents/100, which a double holds to the cent) with the
//     format #,##0.00; hours and percentages have the format 0.00;
//   - dates are real dates (format yyyy-mm-dd), a month is its first day
//     (format yyyy-mm);
//   - text is an inline string: a spreadsheet never evaluates it, so unlike
//     the CSVs no cell is prefixed with a quote and text stays as stored;
//   - row 1 is the bold header, the panes are frozen under it, and the last
//     row is a bold totals row whose label is "Total".

// XLSXContentType is the media type of the XLSX exports.
const XLSXContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// Number formats of the typed cells.
const (
	XLSXMoneyFormat = "#,##0.00"
	XLSXDec2Format  = "0.00"
	XLSXIntFormat   = "0"
	XLSXDateFormat  = "yyyy-mm-dd"
	XLSXMonthFormat = "yyyy-mm"
)

// xkind is how a column's values are typed and formatted.
type xkind int

const (
	xText  xkind = iota // string
	xInt                // int64
	xDec2               // Decimal2
	xMoney              // int64 cents
	xDate               // time.Time (a day)
	xMonth              // Period
	xBool               // bool
	nKinds
)

// xcol is one column: header and kind.
type xcol struct {
	name  string
	kind  xkind
	width float64
}

// xlsxWriter streams one sheet.
type xlsxWriter struct {
	f     *excelize.File
	sw    *excelize.StreamWriter
	cols  []xcol
	plain [nKinds]int // style per kind
	bold  [nKinds]int // the same, bold (totals row)
	row   int         // last row written
	// One row's cells, reused for every row: row[i] is &cells[i] (or nil
	// for a blank cell), so a row costs no allocation of its own.
	cells []excelize.Cell
	vals  []any
}

// newXLSX starts a workbook with one sheet named sheet, its widths, frozen
// panes and bold header row written.
func newXLSX(sheet string, cols []xcol) (*xlsxWriter, error) {
	f := excelize.NewFile()
	x := &xlsxWriter{f: f, cols: cols, cells: make([]excelize.Cell, len(cols)), vals: make([]any, len(cols))}
	fail := func(err error) (*xlsxWriter, error) {
		_ = f.Close()
		return nil, err
	}
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return fail(err)
	}
	formats := [nKinds]string{xInt: XLSXIntFormat, xDec2: XLSXDec2Format, xMoney: XLSXMoneyFormat,
		xDate: XLSXDateFormat, xMonth: XLSXMonthFormat}
	for k := range nKinds {
		for _, b := range []bool{false, true} {
			st := &excelize.Style{Font: &excelize.Font{Bold: b}}
			if formats[k] != "" {
				nf := formats[k]
				st.CustomNumFmt = &nf
			}
			id, err := f.NewStyle(st)
			if err != nil {
				return fail(err)
			}
			if b {
				x.bold[k] = id
			} else {
				x.plain[k] = id
			}
		}
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return fail(err)
	}
	x.sw = sw
	for i, c := range cols {
		w := c.width
		if w == 0 {
			w = 14
		}
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return fail(err)
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}); err != nil {
		return fail(err)
	}
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = excelize.Cell{StyleID: x.bold[xText], Value: c.name}
	}
	if err := x.put(header); err != nil {
		return fail(err)
	}
	return x, nil
}

// add writes one data row: vals[i] has the Go type of column i's kind (a
// date column may also hold its serial number as a float64), or is nil
// for an empty cell.
func (x *xlsxWriter) add(vals ...any) error { return x.write(vals, &x.plain) }

// total writes the bold totals row; column 0 holds the label "Total".
func (x *xlsxWriter) total(vals ...any) error {
	vals[0] = "Total"
	return x.write(vals, &x.bold)
}

func (x *xlsxWriter) write(vals []any, styles *[nKinds]int) error {
	if err := x.cellsOf(x.cells, styles, vals); err != nil {
		return err
	}
	return x.putCells(x.cells)
}

// cellsOf converts one row's values into dst (len(x.cols) cells, a nil
// Value for a blank cell) with the styles of their kinds. It only reads x,
// so the drill-down's reader goroutine converts its rows ahead of the
// writer.
func (x *xlsxWriter) cellsOf(dst []excelize.Cell, styles *[nKinds]int, vals []any) error {
	if len(vals) != len(x.cols) || len(dst) != len(x.cols) {
		return fmt.Errorf("xlsx: %d values for %d columns", len(vals), len(x.cols))
	}
	for i, v := range vals {
		kind := x.cols[i].kind
		var cell any
		switch v := v.(type) {
		case nil:
		case string:
			if v != "" { // "" is a blank cell, as in the CSV
				cell, kind = v, xText // a label in a typed column is text
			}
		case int64:
			if kind == xMoney {
				cell = float64(v) / 100
			} else {
				cell = v
			}
		case Decimal2:
			cell = float64(v) / 100
		case time.Time:
			cell = dateCellValue(v)
		case Period:
			cell = dateCellValue(v.Start())
		case bool:
			cell = v
		case float64: // a date's serial number (dateSerial), boxed once by the caller
			cell = vals[i]
		default:
			return fmt.Errorf("xlsx: column %s: unsupported value %T", x.cols[i].name, v)
		}
		dst[i] = excelize.Cell{StyleID: styles[kind], Value: cell}
	}
	return nil
}

// putCells writes one row of cells (blank where Value is nil).
func (x *xlsxWriter) putCells(cells []excelize.Cell) error {
	for i := range cells {
		if cells[i].Value == nil {
			x.vals[i] = nil
		} else {
			x.vals[i] = &cells[i]
		}
	}
	return x.put(x.vals)
}

func (x *xlsxWriter) put(cells []any) error {
	x.row++
	ref, err := excelize.CoordinatesToCellName(1, x.row)
	if err != nil {
		return err
	}
	return x.sw.SetRow(ref, cells)
}

// dateSerial is the serial number of a UTC day from 1900-03-01 on (days
// since 1899-12-30: Excel counts a 29 February 1900 that did not exist),
// the number excelize writes for that time.Time; ok is false for any
// other time (a time of day, another zone, an earlier day), which is left
// to excelize.
func dateSerial(t time.Time) (serial float64, ok bool) {
	const day = 24 * 60 * 60
	secs := t.Unix() - time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).Unix()
	if t.Location() != time.UTC || t.Nanosecond() != 0 || secs%day != 0 || secs < 61*day { // 61: 1900-03-01
		return 0, false
	}
	return float64(secs / day), true
}

// dateCellValue is a date cell's value: its serial number (a number cell
// in the date's style, as excelize writes a time.Time, without the
// workbook lookup and time arithmetic it does per cell), else the time.
func dateCellValue(t time.Time) any {
	if s, ok := dateSerial(t); ok {
		return s
	}
	return t
}

// finish ends the sheet and writes the workbook to w; the temporary file
// of the stream is removed whatever happens.
//
// The zip goes straight to w: excelize's Write would assemble the whole
// zipped workbook in a bytes.Buffer first (memory growing with the rows),
// so its zip writer is replaced by one on w and the buffer it is handed
// stays empty. The sheet is deflated at flate.BestSpeed by
// github.com/klauspost/compress/flate: the default level spent about half
// of a 100k-entry export's CPU time compressing, for a file about a
// quarter smaller, and klauspost's level 1 deflates the 100k-entry sheet
// (78 MB of XML) in half the time of the standard library's, 3% smaller;
// in 1 MiB blocks on every core (parallelDeflate; figures in
// docs/performance.md).
func (x *xlsxWriter) finish(w io.Writer) error {
	defer x.close()
	if err := x.sw.Flush(); err != nil {
		return err
	}
	x.f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		zw := zip.NewWriter(w)
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return newParallelDeflate(out), nil
		})
		return zw
	})
	return x.f.Write(io.Discard) // what excelize buffered: nothing
}

// close releases the workbook (and the stream's temporary file).
func (x *xlsxWriter) close() { _ = x.f.Close() }

// dateOf reads a YYYY-MM-DD date; text that is not one stays text.
func dateOf(s string) any {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return s
	}
	return t
}
