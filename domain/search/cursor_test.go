package search

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/search/query"
	"tracker/store/searchdb"
)

// A cursor has one spelling: it decodes to the key it encodes, and the same
// text with a CR or LF in it (which Go's base64 decoder skips even in
// Strict mode) or for another sort is refused.
func TestCursorHasOneSpelling(t *testing.T) {
	key := searchdb.Key{ID: uuid.MustParse("0190a3b4-0000-7000-8000-000000000001"),
		Time: time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), Int: 3}
	for _, s := range []query.Sort{{Key: query.SortID}, {Key: query.SortUpdated, Desc: true}} {
		c := EncodeCursor(key, s)
		got, ok := DecodeCursor(c, s)
		if !ok || got.ID != key.ID {
			t.Fatalf("%v: %q decoded to %+v, %v", s, c, got, ok)
		}
		for _, bad := range []string{c + "\r", c + "\n", c[:4] + "\r\n" + c[4:], "\n" + c} {
			if got, ok := DecodeCursor(bad, s); ok {
				t.Errorf("%v: %q decoded to %+v", s, bad, got)
			}
		}
	}
	if _, ok := DecodeCursor(EncodeCursor(key, query.Sort{Key: query.SortUpdated, Desc: true}), query.Sort{Key: query.SortCreated}); ok {
		t.Error("a cursor of another sort decoded")
	}
}
