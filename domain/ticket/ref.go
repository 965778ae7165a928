package ticket

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	keyNumber  = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_-]*)-#?([0-9]{1,9})$`)
	bareNumber = regexp.MustCompile(`^#?([0-9]{1,9})$`)
)

// ParseRef reads a human ticket reference, surrounding spaces ignored:
// KEY-NUMBER (also KEY-#NUMBER; key in any case, returned upper-case) or a
// bare NUMBER / #NUMBER (key ""). The number is 1 to 999,999,999 (leading
// zeros allowed); anything else, a UUID included, is not a reference (ok
// false) and resolve searches it as text.
func ParseRef(s string) (key string, number int64, ok bool) {
	s = strings.TrimSpace(s)
	if m := bareNumber.FindStringSubmatch(s); m != nil {
		key, s = "", m[1]
	} else if m := keyNumber.FindStringSubmatch(s); m != nil {
		key, s = strings.ToUpper(m[1]), m[2]
	} else {
		return "", 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return "", 0, false
	}
	return key, n, true
}

// FormatRef is the canonical text of a reference: KEY-NUMBER, or NUMBER
// when key is "". ParseRef reads it back to the same key and number.
func FormatRef(key string, number int64) string {
	if key == "" {
		return strconv.FormatInt(number, 10)
	}
	return key + "-" + strconv.FormatInt(number, 10)
}
