package capex

import "testing"

// TestSameNormEqualsNorm: the allocation-free comparison Classify uses
// answers exactly as comparing norm's strings.
func TestSameNormEqualsNorm(t *testing.T) {
	inputs := []string{"", "ApplicationDevelopment", "application development", "Application-Development", "APPLICATION_DEVELOPMENT",
		" applicationdevelopment ", "ApplicationDevelopmentX", "ApplicationDevelopmen", "Preliminary", "expensed", "OpEx", "op-ex",
		"Expense", "expenses", "\u00a0opex\t", "ＯｐＥｘ", "İopex", "opeẋ", "\uFFFDopex", "opex\uFFFD", "a\uFFFD"}
	targets := []string{norm(PhaseApplicationDevelopment), "expensed", "opex", "expense", "", "a\uFFFD"}
	for _, s := range inputs {
		for _, n := range targets {
			if got, want := sameNorm(s, n), norm(s) == n; got != want {
				t.Errorf("sameNorm(%q, %q) = %v, norm says %v", s, n, got, want)
			}
		}
	}
}
