package svgchart_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"tracker/internal/svgchart"
	"tracker/internal/svgchart/svgcharttest"
)

func TestLinePointsReadBackFromTheAxis(t *testing.T) {
	vals := []float64{13, 13, 11, 8, 8, 3, 0}
	c := svgchart.Chart{Kind: svgchart.Line, Title: "Burndown", XTitle: "Day", YTitle: "Tickets", Integer: true,
		Categories: []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7"},
		Series:     []svgchart.Series{{Name: "Remaining", Color: "#2563eb", Values: vals}}}
	p, err := svgcharttest.Parse(c.Render())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := p.Scale(svgcharttest.Number)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := p.Points("Remaining")
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(vals) {
		t.Fatalf("%d points, want %d", len(pts), len(vals))
	}
	for i, pt := range pts {
		if got := sc.Value(pt[1]); math.Abs(got-vals[i]) > 0.05 {
			t.Errorf("point %d reads %v, want %v", i, got, vals[i])
		}
		if i > 0 && pt[0] <= pts[i-1][0] {
			t.Errorf("x not increasing at %d: %v", i, pts)
		}
	}
	if got := p.Legend(); len(got) != 1 || got[0] != "Remaining" {
		t.Errorf("legend %v", got)
	}
}

func TestBarsReadBackFromTheAxis(t *testing.T) {
	capex := []float64{1234.56, 0, 98765.43}
	opex := []float64{200, 7.5, 0}
	c := svgchart.Chart{Kind: svgchart.Bars, Title: "Trend", Categories: []string{"2026-01", "2026-02", "2026-03"},
		Format: func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) },
		Series: []svgchart.Series{{Name: "CapEx", Color: "#16a34a", Values: capex}, {Name: "OpEx", Color: "#f59e0b", Values: opex}}}
	p, err := svgcharttest.Parse(c.Render())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := p.Scale(svgcharttest.Number)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]float64{"CapEx": capex, "OpEx": opex} {
		bars, err := p.Bars(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bars {
			// The bar's top reads the value and its height reaches the baseline.
			if got := sc.Value(b[1]); math.Abs(got-want[i]) > 0.01*100000/280 {
				t.Errorf("%s bar %d reads %v, want %v", name, i, got, want[i])
			}
			if math.Abs(sc.Value(b[1]+b[2])) > 1 {
				t.Errorf("%s bar %d does not stand on 0", name, i)
			}
		}
	}
}

// TestHostileTextIsEscaped: titles, labels and series names are user input.
func TestHostileTextIsEscaped(t *testing.T) {
	hostile := `</text><script>alert(1)</script><!-- & "quoted" 'single' ]]> ` + "\x00\x1b\xff"
	c := svgchart.Chart{Kind: svgchart.Line, Title: hostile, XTitle: hostile, YTitle: hostile,
		Categories: []string{hostile, "b"},
		Series:     []svgchart.Series{{Name: hostile, Color: `red" onload="alert(1)`, Values: []float64{1, 2}}}}
	out := c.Render()
	for _, bad := range []string{"<script", "onload=\"", "<!--", "\x00", "\x1b"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("output holds %q:\n%s", bad, out)
		}
	}
	p, err := svgcharttest.Parse(out)
	if err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, out)
	}
	if !strings.HasPrefix(p.Title, `</text><script>alert(1)</script><!-- & "quoted"`) {
		t.Errorf("title reads back as %q", p.Title)
	}
	p.Root.Walk(func(n svgcharttest.Node) {
		if n.XMLName.Local == "script" || n.XMLName.Local == "foreignObject" {
			t.Errorf("element %s in output", n.XMLName.Local)
		}
		for _, a := range n.Attrs {
			if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
				t.Errorf("event attribute %s", a.Name.Local)
			}
		}
	})
}

func TestEmptyAndDegenerateCharts(t *testing.T) {
	for name, c := range map[string]svgchart.Chart{
		"no categories": {Kind: svgchart.Line},
		"all zero":      {Kind: svgchart.Bars, Categories: []string{"a"}, Series: []svgchart.Series{{Name: "s", Values: []float64{0}}}},
		"non-finite":    {Kind: svgchart.Line, Categories: []string{"a", "b"}, Series: []svgchart.Series{{Name: "s", Values: []float64{math.NaN(), math.Inf(1)}}}},
		"one point":     {Kind: svgchart.Line, Categories: []string{"a"}, Series: []svgchart.Series{{Name: "s", Values: []float64{5}}}},
	} {
		if _, err := svgcharttest.Parse(c.Render()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
