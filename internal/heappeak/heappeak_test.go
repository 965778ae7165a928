package heappeak

import (
	"testing"
	"time"
)

var sink [][]byte

// A function that holds 64 MiB while it runs shows at least that peak; one
// that allocates nothing shows far less.
func TestMeasure(t *testing.T) {
	held := Measure(time.Millisecond, func() {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
		}
		time.Sleep(5 * time.Millisecond)
		sink = nil
	})
	if held < 64<<20 {
		t.Fatalf("peak %d bytes while holding 64 MiB", held)
	}
	idle := Measure(time.Millisecond, func() { time.Sleep(5 * time.Millisecond) })
	if idle >= 8<<20 {
		t.Fatalf("peak %d bytes while allocating nothing", idle)
	}
}
