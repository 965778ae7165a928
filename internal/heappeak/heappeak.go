// Package heappeak measures how far the Go heap rises while a function runs:
// the memory figure of the export benchmarks (cmd/benchreport's file
// exports and domain/capex's XLSX writer benchmark), where "flat memory"
// means the same peak at every size.
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Measure runs f and returns how far the heap's objects (live and not yet
// swept, runtime/metrics) rose above their level at the start while f ran,
// sampled every interval after a GC.
func Measure(interval time.Duration, f func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	start := read()
	var peak atomic.Uint64
	peak.Store(start)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if v := read(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if v := read(); v > peak.Load() { // a run shorter than one interval
		peak.Store(v)
	}
	return peak.Load() - start
}
