package domain_test

import (
	"strings"
	"testing"

	"tracker/domain"
)

func TestValidTextAndJSONHasNUL(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"": true, "plain": true, "ünï €": true, "a\x00b": false, "\xff": false, "a\xc3": false} {
		if got := domain.ValidText(s); got != want {
			t.Errorf("ValidText(%q) = %v", s, got)
		}
	}
	for s, want := range map[string]bool{`{"a":"x"}`: false, `{"a":"\u0000"}`: true, `{"a":"\\u0000"}`: false,
		`{"a":"\\\u0000"}`: true, `{"\u0000":1}`: true, `{"a":"\u00001"}`: true, `{"a":"\u0001"}`: false} {
		if got := domain.JSONHasNUL([]byte(s)); got != want {
			t.Errorf("JSONHasNUL(%s) = %v", s, got)
		}
	}
}

func TestJSONNumbersFit(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{`{}`: true, `{"a":1}`: true, `[-1.5e10, 0, true, null]`: true,
		`{"a":99999999999999999999999}`: true, `{"a":-9223372036854775808}`: true, `{"a":1e-400}`: true,
		`{"a":1e400}`: false, `[{"b":[-1E+309]}]`: false, `{"1e400":"1e400"}`: true, `{"a":"\"1e400"}`: true,
		`{"a":"\\","b":1e400}`: false} {
		if got := domain.JSONNumbersFit([]byte(s)); got != want {
			t.Errorf("JSONNumbersFit(%s) = %v", s, got)
		}
	}
	// Around the unparsed path (no exponent, at most 308 characters): a
	// 309-digit integer may or may not fit, and is parsed.
	for s, want := range map[string]bool{
		"[" + strings.Repeat("9", 308) + "]":             true,
		"[-" + strings.Repeat("9", 307) + "]":            true,
		"[" + strings.Repeat("9", 309) + "]":             false,
		"[1" + strings.Repeat("0", 308) + "]":            true,  // 1e308
		"[17" + strings.Repeat("0", 307) + "]":           true,  // 1.7e308
		"[18" + strings.Repeat("0", 307) + "]":           false, // 1.8e308, over the largest double
		"[" + strings.Repeat("9", 300) + "." + "5" + "]": true,
	} {
		if got := domain.JSONNumbersFit([]byte(s)); got != want {
			t.Errorf("JSONNumbersFit(%.20s… %d chars) = %v", s, len(s), got)
		}
	}
}
