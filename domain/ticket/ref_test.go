package ticket

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	cases := []struct {
		in     string
		key    string
		number int64
		ok     bool
	}{
		{"PROJ-12", "PROJ", 12, true},
		{" proj-#12 ", "PROJ", 12, true},
		{"my-proj-007", "MY-PROJ", 7, true},
		{"#42", "", 42, true},
		{"42", "", 42, true},
		{"12-5", "12", 5, true},
		{"999999999", "", 999999999, true},
		{"1000000000", "", 0, false}, // more than nine digits
		{"PROJ-0", "", 0, false},
		{"#0", "", 0, false},
		{"", "", 0, false},
		{"-5", "", 0, false},
		{"PROJ-", "", 0, false},
		{"PROJ 12", "", 0, false},
		{"ÄB-1", "", 0, false},
		{"0b1e0a6e-8c5f-4a51-9d3e-1f2a3b4c5d6e", "", 0, false},
	}
	for _, c := range cases {
		key, n, ok := ParseRef(c.in)
		if key != c.key || n != c.number || ok != c.ok {
			t.Errorf("ParseRef(%q) = %q, %d, %v; want %q, %d, %v", c.in, key, n, ok, c.key, c.number, c.ok)
		}
	}
}

// FuzzParseRef: any text parses without panic; a reference has a positive
// number, an upper-case ASCII key (or none), and its canonical form parses
// back to the same reference; the input names the same key and number.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"PROJ-12", "proj-#7", "#42", "42", "my-proj-007", "A--5", "12-5", "", " ", "-", "#",
		"PROJ-0", "PROJ-9999999999", "PROJ-999999999", "0b1e0a6e-8c5f-4a51-9d3e-1f2a3b4c5d6e", "ÄB-1", "a\x00-1", "\xff-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		key, n, ok := ParseRef(s)
		if !ok {
			if key != "" || n != 0 {
				t.Fatalf("ParseRef(%q) not ok but returned %q, %d", s, key, n)
			}
			return
		}
		if n < 1 || n > 999_999_999 {
			t.Fatalf("ParseRef(%q) number %d out of range", s, n)
		}
		if key != strings.ToUpper(key) || strings.TrimLeft(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || strings.HasPrefix(key, "-") {
			t.Fatalf("ParseRef(%q) key %q not an upper-case ASCII key", s, key)
		}
		canon := FormatRef(key, n)
		k2, n2, ok2 := ParseRef(canon)
		if !ok2 || k2 != key || n2 != n {
			t.Fatalf("ParseRef(%q) = %q, %d; canonical %q reads back as %q, %d, %v", s, key, n, canon, k2, n2, ok2)
		}
		// The input holds the key (any case) and the number (leading zeros
		// allowed) at its end.
		in := strings.ToUpper(strings.TrimSpace(s))
		digits := strings.TrimLeft(in[strings.LastIndexAny(in, "-#")+1:], "0")
		if digits != strconv.FormatInt(n, 10) || !strings.HasPrefix(in, key) {
			t.Fatalf("ParseRef(%q) = %q, %d does not match its input", s, key, n)
		}
	})
}
