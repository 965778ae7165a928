package worker

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestMetricsHandler: the SDK's contrib/opentelemetry handler on the
// service's registry gathers cleanly (the SDK tags one metric with
// different label sets over time) with Prometheus names and seconds.
func TestMetricsHandler(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	h := NewMetricsHandler(reg)
	ns := h.WithTags(map[string]string{"namespace": "default"})
	ns.Counter("temporal_request").Inc(2)
	ns.WithTags(map[string]string{"operation": "StartWorkflowExecution"}).Counter("temporal_request").Inc(1)
	ns.Gauge("temporal_num_pollers").Update(3)
	ns.WithTags(map[string]string{"task-queue": "q"}).Timer("temporal_request_latency").Record(30 * time.Millisecond)

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather (label sets must be made consistent): %v", err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		byName[mf.GetName()] = mf
	}
	req := byName["temporal_request_total"]
	if req == nil || len(req.Metric) != 2 {
		t.Fatalf("temporal_request_total: %v", req)
	}
	var sum float64
	for _, m := range req.Metric {
		sum += m.GetCounter().GetValue()
	}
	if sum != 3 {
		t.Errorf("counter sum %v", sum)
	}
	if g := byName["temporal_num_pollers"]; g == nil || g.Metric[0].GetGauge().GetValue() != 3 {
		t.Errorf("gauge %v", g)
	}
	lat := byName["temporal_request_latency_seconds"]
	if lat == nil || lat.Metric[0].GetHistogram().GetSampleCount() != 1 {
		t.Fatalf("timer %v", lat)
	}
	if lat.Metric[0].Label[0].GetName() != "namespace" || lat.Metric[0].Label[1].GetName() != "task_queue" {
		t.Errorf("sanitized labels %v", lat.Metric[0].Label)
	}
	if b := lat.Metric[0].GetHistogram().GetBucket(); len(b) != len(timerBuckets) || b[0].GetUpperBound() != .001 {
		t.Errorf("buckets %v, want the seconds buckets", b)
	}
}
