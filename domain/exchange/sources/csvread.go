package sources

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"tracker/domain"
)

// Bounds of a CSV file: beyond them the file is refused whole (422).
const (
	MaxRows    = 1_000_000
	MaxColumns = 1_000
	MaxCell    = 1 << 20
)

// csvFile reads a CSV export record by record: the byte-order mark is
// dropped, the separator (',', ';' or tab) is the one the header line uses
// most outside quotes, quotes are lenient (Jira writes bare quotes inside
// unquoted cells) and records may differ in length (trailing empty columns
// are often left out).
type csvFile struct {
	r      *csv.Reader
	Header []string
	row    int // the record read last, counting the header as 1
}

func openCSV(in io.Reader) (*csvFile, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(64 << 10)
	if bytes.HasPrefix(head, []byte("\xEF\xBB\xBF")) {
		_, _ = br.Discard(3)
		head = head[3:]
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, domain.Invalid("file: is empty")
	}
	// NUL never appears in text; invalid UTF-8 alone is named by row and
	// column below (a Latin-1 export, say).
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, domain.Invalid("file: is binary, not UTF-8 text CSV")
	}
	r := csv.NewReader(br)
	r.Comma = sniffSeparator(head)
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	r.ReuseRecord = true // kept cells are copied (jiraHeader.get)
	f := &csvFile{r: r}
	h, err := f.next()
	if err == io.EOF {
		return nil, domain.Invalid("file: has no header row")
	}
	if err != nil {
		return nil, err
	}
	if len(h) > MaxColumns {
		return nil, domain.Invalidf("row 1: has %d columns; at most %d", len(h), MaxColumns)
	}
	f.Header = append([]string(nil), h...) // the reader reuses its record
	for i := range f.Header {
		f.Header[i] = strings.Clone(f.Header[i])
	}
	return f, nil
}

// sniffSeparator counts the candidates on the first line outside quotes.
func sniffSeparator(head []byte) rune {
	counts := map[byte]int{}
	quoted := false
	for _, c := range head {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if c == '\n' {
			break
		}
		if c == ',' || c == ';' || c == '\t' {
			counts[c]++
		}
	}
	best, n := byte(','), 0
	for _, c := range []byte{',', ';', '\t'} {
		if counts[c] > n {
			best, n = c, counts[c]
		}
	}
	return rune(best)
}

// next reads a record and checks its bounds; io.EOF at the end.
func (f *csvFile) next() ([]string, error) {
	rec, err := f.r.Read()
	if err == io.EOF {
		return nil, err
	}
	f.row++
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, domain.Invalidf("row %d (line %d), column %d: %v", f.row, pe.Line, pe.Column, pe.Err)
		}
		return nil, domain.Invalidf("row %d: %v", f.row, err)
	}
	if f.row > MaxRows+1 {
		return nil, domain.Invalidf("file: has more than %d rows", MaxRows)
	}
	if len(rec) > MaxColumns {
		return nil, domain.Invalidf("row %d: has %d columns; at most %d", f.row, len(rec), MaxColumns)
	}
	for i, c := range rec {
		if len(c) > MaxCell {
			return nil, domain.Invalidf("row %d, column %d: a cell over %d bytes", f.row, i+1, MaxCell)
		}
		if !utf8.ValidString(c) || bytes.IndexByte([]byte(c), 0) >= 0 {
			return nil, domain.Invalidf("row %d, column %d: is binary, not UTF-8 text", f.row, i+1)
		}
	}
	return rec, nil
}

// columnName names a column for a problem: its header and position.
func (f *csvFile) columnName(i int) string {
	if i < len(f.Header) {
		return f.Header[i]
	}
	return fmt.Sprintf("column %d", i+1)
}
