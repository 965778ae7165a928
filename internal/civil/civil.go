// Package civil holds the two values a row may carry that Go has no type
// for: a calendar date (PostgreSQL date) and a decimal with two places
// (PostgreSQL numeric). Both scan from and encode to PostgreSQL through
// pgx's DateScanner/DateValuer and NumericScanner/NumericValuer, inside
// arrays too, and render in JSON as the API writes them ("2026-03-31",
// 12.50), so a row field of either type reaches SQL, the API and the export
// with no conversion code.
package civil

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// DateLayout is how a Date is written: in JSON, in the export and in URLs.
const DateLayout = "2006-01-02"

// Date is a day of the calendar, without a time or a zone. The zero Date is
// not a valid day (IsZero).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the day of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate reads a YYYY-MM-DD date; anything else (surrounding spaces, a
// day that does not exist) is an error.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a date in the form YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// Time is the start of the day in UTC.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// Before reports whether d is a day earlier than e.
func (d Date) Before(e Date) bool { return d.Time().Before(e.Time()) }

// AddDays is the date n days after d (before, for a negative n).
func (d Date) AddDays(n int) Date { return DateOf(d.Time().AddDate(0, 0, n)) }

// String is the date as YYYY-MM-DD.
func (d Date) String() string { return string(d.AppendText(nil)) }

// AppendText appends the date as YYYY-MM-DD.
func (d Date) AppendText(b []byte) []byte { return d.Time().AppendFormat(b, DateLayout) }

// AppendJSON appends the date as a JSON string (the generated encoders call
// it).
func (d Date) AppendJSON(b []byte) []byte {
	b = append(b, '"')
	b = d.AppendText(b)
	return append(b, '"')
}

// MarshalJSON renders "YYYY-MM-DD".
func (d Date) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil), nil }

// UnmarshalJSON reads "YYYY-MM-DD".
func (d *Date) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return errors.New("a date is a string in the form YYYY-MM-DD")
	}
	*d, err = ParseDate(s)
	return err
}

// ScanDate is pgx's scan of a date column; infinity has no Date.
func (d *Date) ScanDate(v pgtype.Date) error {
	if !v.Valid {
		return errors.New("civil.Date: NULL date (scan into *civil.Date)")
	}
	if v.InfinityModifier != pgtype.Finite {
		return errors.New("civil.Date: infinite date")
	}
	*d = DateOf(v.Time)
	return nil
}

// DateValue is pgx's encoding of the date.
func (d Date) DateValue() (pgtype.Date, error) {
	return pgtype.Date{Time: d.Time(), Valid: true}, nil
}

// Decimal is a number with two decimal places, held exactly in hundredths:
// Decimal(1250) is 12.50.
type Decimal int64

// String renders the value with two decimal places ("-0.05", "12.50").
func (x Decimal) String() string { return string(x.AppendJSON(nil)) }

// AppendJSON appends the value as a JSON number with two decimal places.
func (x Decimal) AppendJSON(b []byte) []byte {
	n := int64(x)
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = uint64(-n) // math.MinInt64 negates to itself, as uint64 the right magnitude
	}
	b = strconv.AppendUint(b, u/100, 10)
	b = append(b, '.', byte('0'+u%100/10), byte('0'+u%10))
	return b
}

// MarshalJSON renders a JSON number with two decimal places.
func (x Decimal) MarshalJSON() ([]byte, error) { return x.AppendJSON(nil), nil }

// UnmarshalJSON reads a JSON number of at most two decimal places (more
// places are an error, not a rounding), without passing through a float.
func (x *Decimal) UnmarshalJSON(b []byte) error {
	d, err := ParseDecimal(string(b))
	if err != nil {
		return err
	}
	*x = d
	return nil
}

// ParseDecimal reads [-]digits[.d[d]] exactly; trailing zeros past the
// second place are allowed, other digits there are an error.
func ParseDecimal(s string) (Decimal, error) {
	bad := fmt.Errorf("%q is not a number with at most two decimal places", s)
	neg := strings.HasPrefix(s, "-")
	whole, frac, dot := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" || dot && frac == "" || strings.TrimLeft(frac, "0123456789") != "" || strings.TrimLeft(whole, "0123456789") != "" {
		return 0, bad
	}
	if len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, bad
		}
		frac = frac[:2]
	}
	frac += "00"[len(frac):]
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, bad
	}
	if neg {
		n = -n
	}
	return Decimal(n), nil
}

// ScanNumeric is pgx's scan of a numeric column: exact, so a value with a
// third decimal place, NaN or infinity is an error rather than a rounding.
func (x *Decimal) ScanNumeric(v pgtype.Numeric) error {
	if !v.Valid {
		return errors.New("civil.Decimal: NULL numeric (scan into *civil.Decimal)")
	}
	if v.NaN || v.InfinityModifier != pgtype.Finite {
		return errors.New("civil.Decimal: NaN or infinite numeric")
	}
	n := new(big.Int).Set(v.Int)
	ten := big.NewInt(10)
	for e := v.Exp + 2; e != 0; {
		if e > 0 {
			n.Mul(n, ten)
			e--
			continue
		}
		q, r := new(big.Int).QuoRem(n, ten, new(big.Int))
		if r.Sign() != 0 {
			return errors.New("civil.Decimal: numeric has more than two decimal places")
		}
		n = q
		e++
	}
	if !n.IsInt64() {
		return errors.New("civil.Decimal: numeric out of range")
	}
	*x = Decimal(n.Int64())
	return nil
}

// NumericValue is pgx's encoding of the value.
func (x Decimal) NumericValue() (pgtype.Numeric, error) {
	return pgtype.Numeric{Int: big.NewInt(int64(x)), Exp: -2, Valid: true}, nil
}
