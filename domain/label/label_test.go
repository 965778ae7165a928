package label

import "testing"

func TestColor(t *testing.T) {
	t.Parallel()
	for color, ok := range map[string]bool{
		"#fff": true, "#FFFA": true, "#a1b2c3": true,
		"fff": false, "#ff": false, "#fffff": false, "#a1b2c3d": false, "#ggg": false, "": false, "a1b2c3": false,
	} {
		if colorRE.MatchString(color) != ok {
			t.Errorf("color %q: want ok=%v", color, ok)
		}
	}
}
