package worker

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// timerBuckets are the histogram buckets (seconds) of the SDK's timers:
// poll and task latencies from a millisecond to a long poll's minute.
var timerBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// NewMetricsHandler is the Temporal SDK's metrics handler on a Prometheus
// registry (the service's one registry), without the tally bridge. Counters
// become <name>_total, timers <name>_seconds histograms, gauges keep their
// name. The SDK tags one metric with different label sets over time, which
// Prometheus forbids within a family, so series are kept here and rendered
// at scrape time with the union of a family's labels (missing ones empty).
func NewMetricsHandler(reg prometheus.Registerer) client.MetricsHandler {
	c := &collector{families: map[string]*family{}}
	reg.MustRegister(c)
	return handler{c: c}
}

type kind int

const (
	counterKind kind = iota
	gaugeKind
	timerKind
)

type series struct {
	labels  map[string]string
	value   float64  // counter, gauge
	count   uint64   // timer
	sum     float64  // timer, seconds
	buckets []uint64 // timer, cumulative at render time
}

type family struct {
	name   string
	kind   kind
	series map[string]*series
}

type collector struct {
	mu       sync.Mutex
	families map[string]*family
}

func (c *collector) Describe(chan<- *prometheus.Desc) {} // unchecked: families appear as the SDK emits them

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.families {
		keys := map[string]bool{}
		for _, s := range f.series {
			for k := range s.labels {
				keys[k] = true
			}
		}
		names := slices.Sorted(maps.Keys(keys))
		desc := prometheus.NewDesc(f.name, "Temporal SDK metric "+f.name+".", names, nil)
		for _, s := range f.series {
			values := make([]string, len(names))
			for i, n := range names {
				values[i] = s.labels[n]
			}
			switch f.kind {
			case counterKind:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, s.value, values...)
			case gaugeKind:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, s.value, values...)
			case timerKind:
				cum := map[float64]uint64{}
				var run uint64
				for i, b := range timerBuckets {
					run += s.buckets[i]
					cum[b] = run
				}
				ch <- prometheus.MustNewConstHistogram(desc, s.count, s.sum, cum, values...)
			}
		}
	}
}

// series finds or creates the series of name+suffix with labels.
func (c *collector) series(name string, k kind, labels map[string]string) *series {
	suffix := map[kind]string{counterKind: "_total", timerKind: "_seconds"}[k]
	full := sanitize(name) + suffix
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.families[full]
	if f == nil {
		f = &family{name: full, kind: k, series: map[string]*series{}}
		c.families[full] = f
	}
	keys := slices.Sorted(maps.Keys(labels))
	var id strings.Builder
	for _, key := range keys {
		id.WriteString(key + "\x00" + labels[key] + "\x00")
	}
	s := f.series[id.String()]
	if s == nil {
		s = &series{labels: labels}
		if k == timerKind {
			s.buckets = make([]uint64, len(timerBuckets))
		}
		f.series[id.String()] = s
	}
	return s
}

func (c *collector) add(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

type (
	counterFunc func(int64)
	gaugeFunc   func(float64)
	timerFunc   func(time.Duration)
)

func (f counterFunc) Inc(d int64)          { f(d) }
func (f gaugeFunc) Update(v float64)       { f(v) }
func (f timerFunc) Record(d time.Duration) { f(d) }

type handler struct {
	c    *collector
	tags map[string]string
}

func (h handler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range tags {
		merged[sanitize(k)] = v
	}
	return handler{c: h.c, tags: merged}
}

func (h handler) Counter(name string) client.MetricsCounter {
	s := h.c.series(name, counterKind, h.labels())
	return counterFunc(func(d int64) { h.c.add(func() { s.value += float64(d) }) })
}

func (h handler) Gauge(name string) client.MetricsGauge {
	s := h.c.series(name, gaugeKind, h.labels())
	return gaugeFunc(func(v float64) { h.c.add(func() { s.value = v }) })
}

func (h handler) Timer(name string) client.MetricsTimer {
	s := h.c.series(name, timerKind, h.labels())
	return timerFunc(func(d time.Duration) {
		sec := d.Seconds()
		h.c.add(func() {
			s.count++
			s.sum += sec
			for i, b := range timerBuckets {
				if sec <= b {
					s.buckets[i]++
					break
				}
			}
		})
	})
}

func (h handler) labels() map[string]string {
	if h.tags == nil {
		return map[string]string{}
	}
	return maps.Clone(h.tags)
}

// sanitize makes a Prometheus metric or label name.
func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
