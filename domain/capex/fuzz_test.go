package capex

import (
	"strings"
	"testing"
)

// FuzzSafeCell: an escaped cell never starts a formula, and escaping only
// ever adds the one quote.
func FuzzSafeCell(f *testing.F) {
	for _, s := range []string{"", "=1+1", "-12.50", "@x", "\tx", "\r", "-", "plain", "'=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SafeCell(s)
		if got != s && got != "'"+s {
			t.Fatalf("%q → %q", s, got)
		}
		if got != "" && strings.ContainsRune("=+@\t\r", rune(got[0])) {
			t.Fatalf("%q → %q starts a formula", s, got)
		}
		if got != "" && got[0] == '-' && !isPlainNumber(got) {
			t.Fatalf("%q → %q", s, got)
		}
	})
}
