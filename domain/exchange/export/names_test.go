package export

import (
	"reflect"
	"slices"
	"testing"

	"tracker/internal/civil"
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

// A date or a two-place decimal on ticketdb.Content goes into the SQLite
// file as its text and comes back as the same value, NULL as nil.
func TestSQLiteCivilValuesRoundTrip(t *testing.T) {
	d, x := civil.Date{Year: 2024, Month: 2, Day: 29}, civil.Decimal(-5)
	for _, c := range []struct {
		v    any
		text any
	}{{d, "2024-02-29"}, {&d, "2024-02-29"}, {x, "-0.05"}, {&x, "-0.05"}, {(*civil.Date)(nil), nil}, {(*civil.Decimal)(nil), nil}} {
		stored := sqliteValue(c.v)
		if stored != c.text {
			t.Errorf("%T %v stored as %#v, want %#v", c.v, c.v, stored, c.text)
		}
		back := reflect.New(reflect.TypeOf(c.v))
		if err := setColumn(back.Elem(), stored); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), c.v) {
			t.Errorf("%T %v read back as %v", c.v, c.v, back.Elem().Interface())
		}
	}
}
