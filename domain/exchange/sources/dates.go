package sources

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// months are the month abbreviations (and names) Jira writes in the
// exporting user's language, lower case without the trailing dot.
var months = map[string]time.Month{}

func init() {
	lists := [][]string{
		{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
		{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"},
		{"janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"},
		{"jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"},
		{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},
		{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
		{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"},
	}
	for _, l := range lists {
		for i, m := range l {
			months[m] = time.Month(i + 1)
		}
	}
	months["sept"], months["fevr"], months["aout"], months["dec"], months["mrz"], months["fév"] = 9, 2, 8, 12, 3, 2
}

var (
	jiraDate = regexp.MustCompile(`^(\d{1,2})/([^/\s]+)/(\d{2}|\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([aApP])?\.?\s*[mM]?\.?)?$`)
	isoDates = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02 15:04",
		"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006/01/02 15:04", "2006/01/02",
		// JavaScript's Date.toString(), as Linear's CSV export wrote dates
		// ("Tue Aug 23 2022 13:54:01 GMT+0000", the zone's name after it
		// in parentheses cut off first).
		"Mon Jan 02 2006 15:04:05 GMT-0700"}
)

// parseDate reads a date as the exporting tool wrote it: the mapping's
// layout when given, ISO forms, JavaScript's Date.toString() (Linear), or Jira's dd/MMM/yy [h:mm AM] with the
// month in any of the languages above ("10/oct./16 11:54 AM",
// "06/août/15"). Dates without a zone are UTC.
func parseDate(s, layout string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	if layout != "" {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	for _, l := range isoDates {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	m := jiraDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	day, _ := strconv.Atoi(m[1])
	mon, ok := months[strings.TrimSuffix(strings.ToLower(m[2]), ".")]
	if !ok {
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 || n > 12 {
			return time.Time{}, false
		}
		mon = time.Month(n)
	}
	year, _ := strconv.Atoi(m[3])
	if len(m[3]) == 2 {
		year += 2000
		if year > 2069 {
			year -= 100
		}
	}
	hour, min, sec := 0, 0, 0
	if m[4] != "" {
		hour, _ = strconv.Atoi(m[4])
		min, _ = strconv.Atoi(m[5])
		if m[6] != "" {
			sec, _ = strconv.Atoi(m[6])
		}
		switch strings.ToLower(m[7]) {
		case "p":
			if hour < 12 {
				hour += 12
			}
		case "a":
			if hour == 12 {
				hour = 0
			}
		}
	}
	if day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, mon, day, hour, min, sec, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}
