package main

import (
	"sync"
	"time"
)

// watch samples the processes' RSS while the bench runs; their VmHWM (the
// kernel's peak, since each process started) is read when it stops.
type watch struct {
	pids []int
	mu   sync.Mutex
	peak map[int]int64
	done chan struct{}
	wg   sync.WaitGroup
}

type mem struct {
	pid          int
	name         string
	hwm, sampled int64
}

func startWatch(pids []int) *watch {
	w := &watch{pids: pids, peak: map[int]int64{}, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *watch) sample() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pid := range w.pids {
		if rss, err := status(pid, "VmRSS"); err == nil {
			w.peak[pid] = max(w.peak[pid], rss)
		}
	}
}

func (w *watch) stop() []mem {
	close(w.done)
	w.wg.Wait()
	var out []mem
	for _, pid := range w.pids {
		hwm, err := status(pid, "VmHWM")
		if err != nil {
			continue
		}
		out = append(out, mem{pid: pid, name: name(pid), hwm: hwm, sampled: w.peak[pid]})
	}
	return out
}
