// Package svgcharttest reads a rendered chart back with encoding/xml, the
// way a test checks what was plotted: the value scale is recovered from the
// value axis' tick lines and labels alone, and every plotted point or bar is
// turned back into its value with it.
package svgcharttest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Node is one parsed XML element.
type Node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []Node     `xml:",any"`
}

// Attr is the value of the attribute name ("" if absent).
func (n Node) Attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// Walk calls f on n and every descendant, depth first.
func (n Node) Walk(f func(Node)) {
	f(n)
	for _, c := range n.Nodes {
		c.Walk(f)
	}
}

// Find is every element (n included) of class class.
func (n Node) Find(class string) []Node {
	var out []Node
	n.Walk(func(m Node) {
		for _, c := range strings.Fields(m.Attr("class")) {
			if c == class {
				out = append(out, m)
			}
		}
	})
	return out
}

// Chart is a parsed chart.
type Chart struct {
	Root  Node
	Title string
	// Texts is every <text> of the document, in order.
	Texts []string
	// Ticks maps each y-axis tick's y coordinate to its label.
	Ticks []Tick
}

// Tick is one value-axis tick.
type Tick struct {
	Y     float64
	Label string
}

// Parse decodes an SVG document strictly (it must be well-formed XML with
// an <svg> root in the SVG namespace).
func Parse(data []byte) (Chart, error) {
	var root Node
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	if err := d.Decode(&root); err != nil {
		return Chart{}, err
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		return Chart{}, fmt.Errorf("root is %v, not svg", root.XMLName)
	}
	c := Chart{Root: root}
	root.Walk(func(n Node) {
		switch n.XMLName.Local {
		case "title":
			c.Title = n.Text
		case "text":
			c.Texts = append(c.Texts, n.Text)
		}
	})
	for _, g := range root.Find("y-tick") {
		var t Tick
		for _, k := range g.Nodes {
			switch k.XMLName.Local {
			case "line":
				y, err := strconv.ParseFloat(k.Attr("y1"), 64)
				if err != nil {
					return Chart{}, fmt.Errorf("tick line y1 %q", k.Attr("y1"))
				}
				t.Y = y
			case "text":
				t.Label = k.Text
			}
		}
		c.Ticks = append(c.Ticks, t)
	}
	if len(c.Ticks) < 2 {
		return Chart{}, fmt.Errorf("%d y ticks, want at least 2", len(c.Ticks))
	}
	return c, nil
}

// Scale is the value axis read back: value = (Y0 - y) * PerUnit.
type Scale struct{ Y0, PerUnit float64 }

// Value is the value plotted at y.
func (s Scale) Value(y float64) float64 { return (s.Y0 - y) * s.PerUnit }

// Scale recovers the axis from its first and last tick, reading labels with
// num (which strips units such as "$" and thousands separators); every
// other tick must agree with it.
func (c Chart) Scale(num func(string) (float64, error)) (Scale, error) {
	first, last := c.Ticks[0], c.Ticks[len(c.Ticks)-1]
	v0, err := num(first.Label)
	if err != nil {
		return Scale{}, err
	}
	v1, err := num(last.Label)
	if err != nil {
		return Scale{}, err
	}
	if first.Y == last.Y || v0 == v1 {
		return Scale{}, fmt.Errorf("degenerate axis %+v", c.Ticks)
	}
	per := (v1 - v0) / (first.Y - last.Y)
	s := Scale{Y0: first.Y + v0/per, PerUnit: per}
	for _, t := range c.Ticks {
		v, err := num(t.Label)
		if err != nil {
			return Scale{}, err
		}
		if math.Abs(s.Value(t.Y)-v) > math.Abs(per)*0.02 {
			return Scale{}, fmt.Errorf("tick %q at y=%v off the axis (reads %v)", t.Label, t.Y, s.Value(t.Y))
		}
	}
	return s, nil
}

// Number reads a tick label: digits with an optional "$" and "," separators.
func Number(s string) (float64, error) {
	s = strings.NewReplacer("$", "", ",", "").Replace(strings.TrimSpace(s))
	return strconv.ParseFloat(s, 64)
}

// Points is the (x, y) vertices of the polyline of series name.
func (c Chart) Points(name string) ([][2]float64, error) {
	for _, s := range c.Root.Find("series") {
		if s.Attr("data-series") != name || s.XMLName.Local != "polyline" {
			continue
		}
		var out [][2]float64
		for _, p := range strings.Fields(s.Attr("points")) {
			xs, ys, ok := strings.Cut(p, ",")
			x, err1 := strconv.ParseFloat(xs, 64)
			y, err2 := strconv.ParseFloat(ys, 64)
			if !ok || err1 != nil || err2 != nil {
				return nil, fmt.Errorf("point %q", p)
			}
			out = append(out, [2]float64{x, y})
		}
		return out, nil
	}
	return nil, fmt.Errorf("no polyline for series %q", name)
}

// Bars is the bars of series name: x, top y and height of each.
func (c Chart) Bars(name string) ([][3]float64, error) {
	for _, s := range c.Root.Find("series") {
		if s.Attr("data-series") != name || s.XMLName.Local != "g" {
			continue
		}
		var out [][3]float64
		for _, r := range s.Find("bar") {
			var v [3]float64
			for i, a := range []string{"x", "y", "height"} {
				f, err := strconv.ParseFloat(r.Attr(a), 64)
				if err != nil {
					return nil, fmt.Errorf("bar %s %q", a, r.Attr(a))
				}
				v[i] = f
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no bars for series %q", name)
}

// Legend is the series names of the legend, in order.
func (c Chart) Legend() []string {
	var out []string
	for _, it := range c.Root.Find("legend-item") {
		out = append(out, it.Attr("data-series"))
	}
	return out
}
