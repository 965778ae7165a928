package domain

import (
	"strconv"
	"unicode/utf8"
)

// MaxFreeText is the most characters a free-text field (a comment body, a
// description, a goal) may hold.
const MaxFreeText = 100_000

// MaxName is the most characters a name may hold where the spec gives only
// a minimum (label, sprint and workflow names, statuses).
const MaxName = 255

// ValidText reports whether s can be stored as text: valid UTF-8 without a
// NUL character (PostgreSQL refuses both).
func ValidText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// JSONHasNUL reports whether a JSON text holds the escape \u0000 inside a
// string (a NUL character once decoded). A backslash that is itself escaped
// (`\\u0000`, the six characters of text) does not count.
func JSONHasNUL(b []byte) bool {
	const esc = `\u0000`
	for i := 0; i+len(esc) <= len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if string(b[i:i+len(esc)]) == esc {
			return true
		}
		i++ // skip the escaped character, so `\\` never starts an escape
	}
	return false
}

// JSONNumbersFit reports whether every number in a valid JSON text is an
// IEEE 754 double (RFC 7493, I-JSON, §2.2): 1e400 is not, and a generic
// JSON reader (a client, a proxy, an OpenAPI validator) cannot decode a
// body holding it, even in a field the service ignores.
func JSONNumbersFit(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || (b[j] >= '0' && b[j] <= '9')) {
				j++
			}
			if !plainFits(b[i:j]) {
				if _, err := strconv.ParseFloat(string(b[i:j]), 64); err != nil {
					return false
				}
			}
			i = j - 1
		}
	}
	return true
}

// JSONText checks a valid JSON text for what every JSON reader of the
// service refuses (422): invalid UTF-8, a NUL character (which PostgreSQL
// cannot store) and a number no double holds. Bind, the SCIM routes and
// the import document all read bodies through it.
func JSONText(b []byte) error {
	switch {
	case !utf8.Valid(b):
		return Invalid("body: must be valid UTF-8")
	case JSONHasNUL(b):
		return Invalid("body: strings must not contain NUL characters (\\u0000)")
	case !JSONNumbersFit(b):
		return Invalid("body: numbers must fit a 64-bit float (I-JSON, RFC 7493)")
	}
	return nil
}

// plainFits tells, without parsing, that a number fits a double: no
// exponent and at most 308 characters, so below 10^308 (the largest double
// is about 1.8e308). Most numbers of a body (an import's many) take this
// path.
func plainFits(n []byte) bool {
	if len(n) > 308 {
		return false
	}
	for _, c := range n {
		if c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// MaxCents bounds every money input (10^15 cents): sums and products of
// such amounts stay far from int64 overflow.
const MaxCents = 1_000_000_000_000_000

// MinYear and MaxYear bound every date and time input.
const (
	MinYear = 1900
	MaxYear = 9999
)
