package export

import (
	"slices"
	"testing"
)

func TestSprintNames(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"A", "B"}, []string{"A", "B"}},
		{[]string{"S", "S", "S"}, []string{"S", "S (2)", "S (3)"}},
		// "S (2)" is another sprint's own name: the duplicate skips it.
		{[]string{"S", "S", "S (2)"}, []string{"S", "S (3)", "S (2)"}},
		// Applied again to its own output, the rule changes nothing (round trips).
		{[]string{"S", "S (3)", "S (2)"}, []string{"S", "S (3)", "S (2)"}},
	} {
		if got := SprintNames(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SprintNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
