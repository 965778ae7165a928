package sprints_test

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"tracker/internal/svgchart/svgcharttest"
)

// TestBurndownSVGRendersInChromium draws the served chart in headless
// Chromium as an <img>, once: the PNG is the chart's size, its background
// is white, and the Remaining line's pixels are blue where the SVG says its
// points are.
func TestBurndownSVGRendersInChromium(t *testing.T) {
	t.Parallel()
	svgcharttest.Chromium(t) // skips, saying why, before building a world
	w := setup(t)
	id := burndownWorld(t, w, "Sprint <rendered> & drawn")
	body := w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", w.Viewer.Token, nil).Expect(t, 200).Body
	c, err := svgcharttest.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := c.Points("Remaining")
	if err != nil {
		t.Fatal(err)
	}
	img := svgcharttest.RenderPNG(t, body, 720, 360)
	if b := img.Bounds(); b.Dx() != 720 || b.Dy() != 360 {
		t.Fatalf("screenshot %v, want 720x360", b)
	}
	if dir := os.Getenv("TRACKER_CHART_PNG_DIR"); dir != "" { // to look at it
		f, err := os.Create(filepath.Join(dir, "burndown.png"))
		if err == nil {
			_ = png.Encode(f, img)
			_ = f.Close()
		}
	}
	// The corner is the white background.
	if !isWhite(img, 3, 3) {
		t.Errorf("corner pixel %v is not the background", img.At(3, 3))
	}
	// Every vertex of the Remaining line (#2563eb), and the middle of each
	// segment, is drawn blue (within a pixel or two of antialiasing).
	check := func(x, y float64) {
		if !near(img, x, y, 2, isBlue) {
			t.Errorf("no line pixel near (%.1f, %.1f)", x, y)
		}
	}
	for i, p := range pts {
		check(p[0], p[1])
		if i > 0 {
			check((p[0]+pts[i-1][0])/2, (p[1]+pts[i-1][1])/2)
		}
	}
	// And the line is not everywhere: half-way between the top of the plot
	// and the first point, well above it, is background or grid.
	if near(img, pts[0][0], pts[0][1]-40, 0, isBlue) {
		t.Errorf("blue above the line at (%.1f, %.1f)", pts[0][0], pts[0][1]-40)
	}
	blue := 0
	for y := 0; y < 360; y++ {
		for x := 0; x < 720; x++ {
			if isBlue(img, x, y) {
				blue++
			}
		}
	}
	if blue < 200 || blue > 20000 {
		t.Errorf("%d blue pixels: not a line", blue)
	}
}

func rgb(img image.Image, x, y int) (r, g, b uint32) {
	r, g, b, _ = img.At(x, y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

func isWhite(img image.Image, x, y int) bool {
	r, g, b := rgb(img, x, y)
	return r > 245 && g > 245 && b > 245
}

// isBlue: clearly blue, as #2563eb (37, 99, 235) antialiased onto white.
func isBlue(img image.Image, x, y int) bool {
	r, g, b := rgb(img, x, y)
	return b > 150 && int(b)-int(r) > 60 && int(b)-int(g) > 30
}

func near(img image.Image, fx, fy float64, radius int, ok func(image.Image, int, int) bool) bool {
	cx, cy := int(fx), int(fy)
	for dy := -radius; dy <= radius; dy++ {
		for dx := -radius; dx <= radius; dx++ {
			if ok(img, cx+dx, cy+dy) {
				return true
			}
		}
	}
	return false
}
