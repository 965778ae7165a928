package search

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store/searchdb"
	"tracker/store/ticketdb"
)

// A cursor has one spelling: it decodes to the key it encodes, and the same
// text with a CR or LF in it (which Go's base64 decoder skips even in
// Strict mode) or for another sort is refused.
func TestCursorHasOneSpelling(t *testing.T) {
	key := searchdb.Key{ID: uuid.MustParse("0190a3b4-0000-7000-8000-000000000001"),
		Time: time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)}
	for _, s := range []searchquery.Sort{{Key: searchquery.SortID}, {Key: searchquery.SortUpdated, Desc: true}} {
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
	if _, ok := DecodeCursor(EncodeCursor(key, searchquery.Sort{Key: searchquery.SortUpdated, Desc: true}), searchquery.Sort{Key: searchquery.SortCreated}); ok {
		t.Error("a cursor of another sort decoded")
	}
}

// sorts are every sort a list pages by.
var sorts = func() []searchquery.Sort {
	var out []searchquery.Sort
	for _, k := range []string{searchquery.SortID, searchquery.SortCreated, searchquery.SortUpdated, searchquery.SortPriority, searchquery.SortNumber, searchquery.SortRelevance} {
		out = append(out, searchquery.Sort{Key: k}, searchquery.Sort{Key: k, Desc: true})
	}
	return out
}()

// rowAt is a ticket at position k of sort s, if a ticket can be there.
func rowAt(k searchdb.Key, s searchquery.Sort) (ticketdb.Row, bool) {
	r := ticketdb.Row{ID: k.ID}
	switch s.Key {
	case searchquery.SortNumber:
		r.TicketNumber = int32(k.Int)
		return r, int64(r.TicketNumber) == k.Int
	case searchquery.SortPriority:
		if k.Int < 0 || k.Int >= int64(len(ticketdb.Priorities)) {
			return r, false
		}
		r.Priority = ticketdb.Priorities[k.Int]
	case searchquery.SortCreated:
		r.CreatedAt = k.Time
	case searchquery.SortUpdated:
		r.UpdatedAt = k.Time
	}
	return r, true
}

// FuzzSearchCursor: whatever a cursor holds, it is refused, or it decodes
// to the position of a ticket that can exist (a number the int4 column
// holds, a priority of the list: the key a row there has, KeyOf, is the
// key decoded) and is the one text EncodeCursor writes for it. The typed
// arguments are the cursor's own fields, so the fuzzer tries extreme
// numbers and times; raw is any content.
func FuzzSearchCursor(f *testing.F) {
	id := uuid.MustParse("0190a3b4-0000-7000-8000-000000000001")
	f.Add(uint8(8), int64(3), int64(0), float32(0), []byte(`{"s":"number-asc","n":3,"i":"`+id.String()+`"}`))
	f.Add(uint8(8), int64(2147483648), int64(0), float32(0), []byte(`{"s":"number-asc","n":2147483648,"i":"`+id.String()+`"}`))
	f.Add(uint8(7), int64(5), int64(0), float32(0), []byte(`{"s":"priority-desc","n":5,"i":"`+id.String()+`"}`))
	f.Add(uint8(3), int64(0), int64(1_780_000_000_000_000_000), float32(0), []byte(nil))
	f.Add(uint8(11), int64(0), int64(0), float32(0.5), []byte(`{"s":"relevance-desc","r":0.5,"i":"`+id.String()+`"}`))
	f.Fuzz(func(t *testing.T, sort uint8, n, nanos int64, rank float32, raw []byte) {
		s := sorts[int(sort)%len(sorts)]
		var at time.Time
		if nanos != 0 {
			at = time.Unix(0, nanos).UTC()
		}
		typed, err := json.Marshal(cursor{Sort: s.String(), Time: at, Int: n, Rank: rank, ID: id})
		if err != nil {
			return // NaN or ±Inf rank: JSON has no spelling for it
		}
		for _, c := range []string{base64.RawURLEncoding.EncodeToString(typed), base64.RawURLEncoding.EncodeToString(raw), string(raw)} {
			k, ok := DecodeCursor(c, s)
			if !ok {
				continue
			}
			row, ok := rowAt(k, s)
			if !ok {
				t.Fatalf("%v: %q decoded to %+v, a position no ticket can have", s, c, k)
			}
			if got := searchdb.KeyOf(row, k.Rank, s); got.ID != k.ID || got.Int != k.Int || !got.Time.Equal(k.Time) || got.Rank != k.Rank {
				t.Fatalf("%v: %q decoded to %+v; a ticket there has %+v", s, c, k, got)
			}
			if again := EncodeCursor(k, s); again != c {
				t.Fatalf("%v: %q decoded to %+v, which encodes as %q", s, c, k, again)
			}
		}
	})
}
