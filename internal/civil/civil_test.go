package civil

import (
	"encoding/json"
	"testing"
)

func TestDateJSON(t *testing.T) {
	d := Date{Year: 2024, Month: 2, Day: 29}
	b, err := json.Marshal(d)
	if err != nil || string(b) != `"2024-02-29"` {
		t.Fatalf("%s, %v", b, err)
	}
	var back Date
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Fatalf("%v, %v", back, err)
	}
	for _, bad := range []string{`"2023-02-29"`, `"2024-2-29"`, `" 2024-02-29"`, `20240229`, `"2024-02-29T00:00:00Z"`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s read as %v", bad, back)
		}
	}
	if d.AddDays(1) != (Date{2024, 3, 1}) || !d.Before(d.AddDays(1)) || d.Before(d) || !(Date{}).IsZero() {
		t.Error("date arithmetic")
	}
}

func TestDecimalText(t *testing.T) {
	for s, want := range map[string]Decimal{
		"0": 0, "12.5": 1250, "12.50": 1250, "12.500": 1250, "-0.05": -5, "-3": -300,
		"92233720368547758.07": 9223372036854775807,
	} {
		got, err := ParseDecimal(s)
		if err != nil || got != want {
			t.Errorf("ParseDecimal(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "-", ".5", "1.", "1.005", "1e2", "+1", "1.2.3", "92233720368547758.08", " 1"} {
		if got, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) = %d, want an error", bad, got)
		}
	}
	for x, want := range map[Decimal]string{0: "0.00", 1250: "12.50", -5: "-0.05", -100: "-1.00", 7: "0.07",
		-9223372036854775808: "-92233720368547758.08"} {
		if got := x.String(); got != want {
			t.Errorf("%d renders %s, want %s", int64(x), got, want)
		}
		if b, _ := json.Marshal(x); string(b) != want {
			t.Errorf("%d marshals %s", int64(x), b)
		}
	}
}
