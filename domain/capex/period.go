package capex

import (
	"fmt"
	"regexp"
	"time"

	"tracker/domain"
)

// Period is one calendar month in UTC, the unit of the report.
type Period struct {
	Year  int
	Month time.Month
}

var periodRE = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})$`)

// ParsePeriod reads YYYY-MM; anything else is a 422 on field.
func ParsePeriod(field, s string) (Period, error) {
	m := periodRE.FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return Period{}, domain.Invalid(field + ": required (YYYY-MM)")
		}
		return Period{}, domain.Invalid(field + ": must be a month in the form YYYY-MM")
	}
	var y, mo int
	_, _ = fmt.Sscanf(m[1]+" "+m[2], "%d %d", &y, &mo)
	if mo < 1 || mo > 12 || y < 1 {
		return Period{}, domain.Invalid(field + ": must be a month in the form YYYY-MM")
	}
	return Period{Year: y, Month: time.Month(mo)}, nil
}

// PeriodOf is the month that t (in UTC) falls in.
func PeriodOf(t time.Time) Period {
	t = t.UTC()
	return Period{Year: t.Year(), Month: t.Month()}
}

// Start is the first day of the month, midnight UTC.
func (p Period) Start() time.Time { return time.Date(p.Year, p.Month, 1, 0, 0, 0, 0, time.UTC) }

// End is the first day of the next month (exclusive bound).
func (p Period) End() time.Time { return p.Start().AddDate(0, 1, 0) }

// Previous is the month before.
func (p Period) Previous() Period { return PeriodOf(p.Start().AddDate(0, -1, 0)) }

// String renders YYYY-MM.
func (p Period) String() string { return fmt.Sprintf("%04d-%02d", p.Year, int(p.Month)) }
