package jsonw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Every byte and a range of runes, alone and in text, quote as json.Marshal
// quotes them.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	for r := rune(0x80); r < 0x3000; r += 7 {
		cases = append(cases, "x"+string(r)+"y")
	}
	cases = append(cases, "\u2028\u2029", "bad \xff\xfe utf8", "<script>&amp;</script>", strings.Repeat("é", 100), "")
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
