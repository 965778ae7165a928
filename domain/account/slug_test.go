package account

import (
	"regexp"
	"strings"
	"testing"
)

// TestPersonalSlug: the personal org's slug is the email's local part in
// a-z, 0-9 and single dashes (at most 60), then a random suffix.
func TestPersonalSlug(t *testing.T) {
	t.Parallel()
	for email, base := range map[string]string{
		"Ada.Lovelace+x@example.com":             "ada-lovelace-x",
		"`az{09/:@example.com":                   "az-09",
		"@AZ[@example.com":                       "user",
		"..--__@example.com":                     "user",
		"a..b@example.com":                       "a-b",
		"Zoë9@example.com":                       "zo-9",
		strings.Repeat("x", 61) + "@example.com": strings.Repeat("x", 60),
		strings.Repeat("y", 60) + "@example.com": strings.Repeat("y", 60),
	} {
		got := personalSlug(email)
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `-[0-9a-f]{8}$`).MatchString(got) {
			t.Errorf("personalSlug(%q) = %q, want %s-xxxxxxxx", email, got, base)
		}
	}
	if a, b := personalSlug("ada@example.com"), personalSlug("ada@example.com"); a == b {
		t.Fatalf("two slugs of one email are equal: %s", a)
	}
}

// TestMaxScope ranks scopes: a JWT session's "*" outranks admin.
func TestMaxScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scopes []string
		want   int
	}{
		{nil, 0}, {[]string{"read"}, 1}, {[]string{"read", "write"}, 2}, {[]string{"admin", "read"}, 3}, {[]string{"read", "*"}, 99},
	} {
		if got := maxScope(tc.scopes); got != tc.want {
			t.Errorf("maxScope(%q) = %d, want %d", tc.scopes, got, tc.want)
		}
	}
}
