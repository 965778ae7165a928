package worker

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tracker/store/outboxdb"
)

// relayMetrics are the outbox's backlog and the relay's outcomes.
type relayMetrics struct {
	pending    prometheus.Gauge       // outbox_pending_rows
	oldest     prometheus.Gauge       // outbox_oldest_pending_age_seconds
	dead       prometheus.Gauge       // outbox_dead_rows
	dispatched *prometheus.CounterVec // outbox_dispatched_total{topic}
	failures   *prometheus.CounterVec // outbox_dispatch_failures_total{topic}
	parked     *prometheus.CounterVec // outbox_parked_total{topic}
}

func newRelayMetrics(reg prometheus.Registerer) *relayMetrics {
	m := &relayMetrics{
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "outbox_pending_rows",
			Help: "Outbox rows neither dispatched nor parked (all relays)."}),
		oldest: prometheus.NewGauge(prometheus.GaugeOpts{Name: "outbox_oldest_pending_age_seconds",
			Help: "Age of the oldest pending outbox row; 0 with none. Growing means the relay is behind or stuck."}),
		dead: prometheus.NewGauge(prometheus.GaugeOpts{Name: "outbox_dead_rows",
			Help: "Outbox rows parked after too many failed dispatches (tracker outbox dead lists them)."}),
		dispatched: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "outbox_dispatched_total",
			Help: "Outbox rows handed to Temporal by this relay, by topic."}, []string{"topic"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "outbox_dispatch_failures_total",
			Help: "Failed dispatch attempts of outbox rows by this relay, by topic."}, []string{"topic"}),
		parked: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "outbox_parked_total",
			Help: "Outbox rows this relay parked as dead, by topic."}, []string{"topic"}),
	}
	if reg == nil {
		return m
	}
	register := func(c prometheus.Collector) prometheus.Collector {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return are.ExistingCollector // a restarted worker in one process
			}
			panic(err)
		}
		return c
	}
	m.pending = register(m.pending).(prometheus.Gauge)
	m.oldest = register(m.oldest).(prometheus.Gauge)
	m.dead = register(m.dead).(prometheus.Gauge)
	m.dispatched = register(m.dispatched).(*prometheus.CounterVec)
	m.failures = register(m.failures).(*prometheus.CounterVec)
	m.parked = register(m.parked).(*prometheus.CounterVec)
	return m
}

// statsEvery is how often the relay refreshes the backlog gauges.
const statsEvery = 10 * time.Second

// RefreshGauges reads the outbox's backlog into the gauges.
func (r *Relay) RefreshGauges(ctx context.Context) error {
	s, err := outboxdb.ReadStats(ctx, r.DB.Q())
	if err != nil {
		return err
	}
	m := r.metrics()
	m.pending.Set(float64(s.Pending))
	m.oldest.Set(s.OldestAge.Seconds())
	m.dead.Set(float64(s.Dead))
	return nil
}

func (r *Relay) statsLoop(ctx context.Context) {
	for {
		if err := r.RefreshGauges(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("outbox relay: reading the backlog failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(statsEvery):
		}
	}
}
