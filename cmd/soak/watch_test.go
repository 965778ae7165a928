package main

import (
	"math"
	"testing"
)

// TestGrows: a steady climb is growth; noise around a level, a climb
// smaller than the floor, and a fall are not.
func TestGrows(t *testing.T) {
	mins := []float64{2, 3, 4, 5, 6, 7, 8, 9, 10}
	line := func(f func(i int) float64) []float64 {
		v := make([]float64, len(mins))
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	const mib = 1 << 20
	for _, c := range []struct {
		name string
		s    series
		want bool
	}{
		{"rss climbing 8 MiB a minute", series{frac: 0.10, floor: 16 * mib, v: line(func(i int) float64 { return 80*mib + float64(i)*8*mib })}, true},
		{"rss noisy around 80 MiB", series{frac: 0.10, floor: 16 * mib, v: line(func(i int) float64 { return 80*mib + float64(i%3-1)*6*mib })}, false},
		{"rss climbing under the floor", series{frac: 0.10, floor: 16 * mib, v: line(func(i int) float64 { return 80*mib + float64(i)*1*mib })}, false},
		{"connections falling", series{frac: 0.20, floor: 5, v: line(func(i int) float64 { return 30 - float64(i) })}, false},
		{"backlog climbing", series{frac: 0.50, floor: 200, v: line(func(i int) float64 { return float64(i) * 100 })}, true},
		{"too few samples", series{frac: 0.10, floor: 1, v: []float64{1, 100}}, false},
	} {
		c.s.t = mins[:len(c.s.v)]
		if got, rise := c.s.grows(); got != c.want {
			t.Errorf("%s: grows %v (rise %.0f), want %v", c.name, got, rise, c.want)
		}
	}
	if s := fit([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}); math.Abs(s-2) > 1e-9 {
		t.Errorf("fit slope %v, want 2", s)
	}
}
