package domain_test

import (
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
