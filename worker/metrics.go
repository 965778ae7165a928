package worker

import (
	"github.com/prometheus/client_golang/prometheus"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/opentelemetry"
)

// timerBuckets are the histogram buckets (seconds) of the SDK's timers:
// poll and task latencies from a millisecond to a long poll's minute.
var timerBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// NewMetricsHandler is the Temporal SDK's metrics handler on a Prometheus
// registry (the service's one registry), through the SDK's maintained
// OpenTelemetry integration (go.temporal.io/sdk/contrib/opentelemetry) and
// OpenTelemetry's Prometheus exporter: counters become <name>_total, timers
// <name>_seconds histograms, gauges keep their name.
func NewMetricsHandler(reg prometheus.Registerer) client.MetricsHandler {
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		return client.MetricsNopHandler
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithView(sdkmetric.NewView(
		sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: timerBuckets}})))
	return opentelemetry.NewMetricsHandler(opentelemetry.MetricsHandlerOptions{
		Meter:                mp.Meter("temporal-sdk-go"),
		UseMonotonicCounters: true,
		OnError:              func(error) {},
	})
}
