// Package svgchart renders small, dependency-free SVG charts on the server:
// a line chart (one polyline per series) or grouped bars over a list of
// categories, with axes, tick labels, axis titles, a title and a legend.
//
// Every piece of text (titles, category labels, series names) is XML-escaped
// and stripped of characters XML cannot carry; the output holds no script,
// no external reference and no style sheet, so it is safe to serve as
// image/svg+xml and to embed with <img>.
//
// The geometry is meant to be read back: the value axis has
// <g class="y-tick"> elements whose <line> sits at the tick's y and whose
// <text> is the tick's label, so a reader can recover the scale from the
// axis alone and turn each plotted point back into its value.
package svgchart

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
	"unicode/utf8"
)

// Kind is how series are drawn.
type Kind int

// Chart kinds.
const (
	Line Kind = iota // one polyline per series, one point per category
	Bars             // one bar per series in each category
)

// Series is one named row of values, one per category.
type Series struct {
	Name   string
	Color  string // a CSS color the renderer writes as given; callers pass constants
	Dashed bool   // Line charts: draw dashed (a reference line)
	Values []float64
}

// Chart is what to draw. Width and Height default to 720×360.
type Chart struct {
	Kind       Kind
	Title      string
	XTitle     string
	YTitle     string
	Categories []string
	Series     []Series
	// Integer keeps value-axis ticks on whole numbers (counts).
	Integer bool
	// Format renders a tick value; default: the number with the fewest
	// decimals that shows the step.
	Format func(v float64) string
	Width  int
	Height int
}

// Layout of the plot area inside the canvas.
const (
	marginLeft   = 84
	marginRight  = 24
	marginTop    = 64 // title and legend
	marginBottom = 64 // category labels and the x-axis title
	maxTitle     = 90 // runes of a title shown
	maxLabel     = 16 // runes of a category label shown
	maxXLabels   = 12 // category labels shown at most (evenly thinned)
)

// Render writes the chart as a standalone SVG document.
func (c Chart) Render() []byte {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = 720
	}
	if h <= 0 {
		h = 360
	}
	px0, px1 := float64(marginLeft), float64(w-marginRight)
	py0, py1 := float64(h-marginBottom), float64(marginTop) // py0: the baseline (value 0)
	ticks, top := niceTicks(c.maxValue(), c.Integer)
	format := c.Format
	if format == nil {
		format = plainFormat(ticks)
	}
	yOf := func(v float64) float64 { return py0 - (v/top)*(py0-py1) }

	var b svgBuf
	b.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", itoa(w), "height", itoa(h),
		"viewBox", "0 0 "+itoa(w)+" "+itoa(h), "role", "img", "font-family", "sans-serif", "font-size", "12")
	b.text("title", nil, c.Title)
	b.empty("rect", "class", "background", "x", "0", "y", "0", "width", itoa(w), "height", itoa(h), "fill", "#ffffff")
	b.text("text", []string{"class", "chart-title", "x", ftoa(float64(w) / 2), "y", "22", "text-anchor", "middle",
		"font-size", "16", "font-weight", "bold"}, c.Title)

	// Legend: one swatch and name per series, left to right under the title.
	b.open("g", "class", "legend")
	lx := px0
	for _, s := range c.Series {
		b.open("g", "class", "legend-item", "data-series", clean(s.Name, maxTitle))
		b.empty("rect", "x", ftoa(lx), "y", "36", "width", "14", "height", "10", "fill", s.Color)
		b.text("text", []string{"x", ftoa(lx + 20), "y", "45"}, s.Name)
		b.close("g")
		lx += 34 + 7*float64(utf8.RuneCountInString(clean(s.Name, maxTitle)))
	}
	b.close("g")

	// Value axis: grid lines, ticks, labels and its title.
	b.open("g", "class", "y-axis")
	for _, t := range ticks {
		y := ftoa(yOf(t))
		b.open("g", "class", "y-tick")
		b.empty("line", "x1", ftoa(px0-5), "x2", ftoa(px1), "y1", y, "y2", y, "stroke", "#e5e7eb")
		b.text("text", []string{"x", ftoa(px0 - 8), "y", y, "text-anchor", "end", "dominant-baseline", "middle"}, format(t))
		b.close("g")
	}
	b.empty("line", "class", "axis-line", "x1", ftoa(px0), "x2", ftoa(px0), "y1", ftoa(py0), "y2", ftoa(py1), "stroke", "#374151")
	b.text("text", []string{"class", "axis-title", "x", "16", "y", ftoa((py0 + py1) / 2), "text-anchor", "middle",
		"transform", "rotate(-90 16 " + ftoa((py0+py1)/2) + ")"}, c.YTitle)
	b.close("g")

	// Category axis.
	n := len(c.Categories)
	band := (px1 - px0) / float64(max(n, 1))
	xOf := func(i int) float64 { // a category's center
		if c.Kind == Line && n > 1 {
			return px0 + band/2 + float64(i)*(px1-px0-band)/float64(n-1)
		}
		return px0 + band*(float64(i)+0.5)
	}
	b.open("g", "class", "x-axis")
	b.empty("line", "class", "axis-line", "x1", ftoa(px0), "x2", ftoa(px1), "y1", ftoa(py0), "y2", ftoa(py0), "stroke", "#374151")
	every := (n + maxXLabels - 1) / maxXLabels
	for i, cat := range c.Categories {
		if every > 1 && i%every != 0 && i != n-1 {
			continue
		}
		x := ftoa(xOf(i))
		b.open("g", "class", "x-tick")
		b.empty("line", "x1", x, "x2", x, "y1", ftoa(py0), "y2", ftoa(py0+5), "stroke", "#374151")
		b.text("text", []string{"x", x, "y", ftoa(py0 + 20), "text-anchor", "middle"}, clean(cat, maxLabel))
		b.close("g")
	}
	b.text("text", []string{"class", "axis-title", "x", ftoa((px0 + px1) / 2), "y", itoa(h - 12), "text-anchor", "middle"}, c.XTitle)
	b.close("g")

	// Data.
	b.open("g", "class", "data")
	switch c.Kind {
	case Bars:
		k := float64(max(len(c.Series), 1))
		inner := band * 0.8
		barW := inner / k
		for si, s := range c.Series {
			b.open("g", "class", "series", "data-series", clean(s.Name, maxTitle), "fill", s.Color)
			for i := range c.Categories {
				v := valueAt(s.Values, i)
				x := px0 + band*float64(i) + band*0.1 + barW*float64(si)
				y := yOf(v)
				b.empty("rect", "class", "bar", "x", ftoa(x), "y", ftoa(y), "width", ftoa(barW), "height", ftoa(py0-y))
			}
			b.close("g")
		}
	default:
		for _, s := range c.Series {
			var pts []byte
			for i := range c.Categories {
				if i > 0 {
					pts = append(pts, ' ')
				}
				pts = append(pts, ftoa(xOf(i))+","+ftoa(yOf(valueAt(s.Values, i)))...)
			}
			attrs := []string{"class", "series", "data-series", clean(s.Name, maxTitle), "points", string(pts),
				"fill", "none", "stroke", s.Color, "stroke-width", "2.5", "stroke-linejoin", "round"}
			if s.Dashed {
				attrs = append(attrs, "stroke-dasharray", "6 4")
			}
			b.empty("polyline", attrs...)
		}
	}
	b.close("g")
	b.close("svg")
	return b.Bytes()
}

func (c Chart) maxValue() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v > m && !math.IsInf(v, 0) {
				m = v
			}
		}
	}
	return m
}

// valueAt is the series' value of category i; a missing, negative or
// non-finite value is drawn at 0 (the charts show amounts and counts).
func valueAt(vs []float64, i int) float64 {
	if i >= len(vs) || math.IsNaN(vs[i]) || math.IsInf(vs[i], 0) || vs[i] < 0 {
		return 0
	}
	return vs[i]
}

// niceTicks are 5 or so round tick values from 0 to at least m; the last is
// the axis' top.
func niceTicks(m float64, integer bool) ([]float64, float64) {
	if !(m > 0) {
		m = 1
	}
	raw := m / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, f := range []float64{1, 2, 2.5, 5} {
		if raw <= f*p {
			step = f * p
			break
		}
	}
	if integer && step < 1 {
		step = 1
	}
	if integer {
		step = math.Ceil(step)
	}
	count := int(math.Ceil(m/step - 1e-9))
	out := make([]float64, 0, count+1)
	for i := 0; i <= count; i++ {
		out = append(out, float64(i)*step)
	}
	return out, float64(count) * step
}

// plainFormat shows ticks with as many decimals as their step needs.
func plainFormat(ticks []float64) func(float64) string {
	dec := 0
	if len(ticks) > 1 {
		step := ticks[1] - ticks[0]
		for dec < 4 && math.Abs(step*math.Pow(10, float64(dec))-math.Round(step*math.Pow(10, float64(dec)))) > 1e-9 {
			dec++
		}
	}
	return func(v float64) string { return strconv.FormatFloat(v, 'f', dec, 64) }
}

func itoa(i int) string { return strconv.Itoa(i) }

// ftoa writes a coordinate with two decimals at most.
func ftoa(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }

// clean keeps what XML can carry of s (control characters and invalid UTF-8
// become U+FFFD) and shortens it to limit runes with an ellipsis.
func clean(s string, limit int) string {
	out := make([]rune, 0, min(len(s), limit+1))
	for _, r := range s {
		if len(out) == limit {
			out[limit-1] = '…'
			break
		}
		if !xmlChar(r) {
			r = '\uFFFD'
		}
		out = append(out, r)
	}
	return string(out)
}

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF && r != utf8.RuneError) ||
		(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// svgBuf writes elements with escaped attribute values and text.
type svgBuf struct{ bytes.Buffer }

func (b *svgBuf) attrs(kv []string) {
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteByte(' ')
		b.WriteString(kv[i]) // names are constants of this package
		b.WriteString(`="`)
		_ = xml.EscapeText(b, []byte(clean(kv[i+1], 1<<16)))
		b.WriteByte('"')
	}
}

func (b *svgBuf) open(name string, kv ...string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.attrs(kv)
	b.WriteString(">\n")
}

func (b *svgBuf) empty(name string, kv ...string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.attrs(kv)
	b.WriteString("/>\n")
}

func (b *svgBuf) close(name string) {
	b.WriteString("</")
	b.WriteString(name)
	b.WriteString(">\n")
}

// text writes <name attrs>escaped s</name>, s shortened to a title's length.
func (b *svgBuf) text(name string, kv []string, s string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.attrs(kv)
	b.WriteByte('>')
	_ = xml.EscapeText(b, []byte(clean(s, maxTitle)))
	b.close(name)
}
