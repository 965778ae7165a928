package store

import "github.com/prometheus/client_golang/prometheus"

// PoolCollector exports the pgx pool's statistics.
type PoolCollector struct {
	db                                          *DB
	total, idle, acquired, max, acquires, waits *prometheus.Desc
}

// NewPoolCollector describes the pool of db.
func NewPoolCollector(db *DB) *PoolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("db_pool_"+name, help, nil, nil)
	}
	return &PoolCollector{db: db,
		total: d("total_conns", "Connections in the pool."), idle: d("idle_conns", "Idle connections."),
		acquired: d("acquired_conns", "Connections in use."), max: d("max_conns", "Pool size limit."),
		acquires: d("acquires_total", "Connections acquired."), waits: d("empty_acquires_total", "Acquires that had to wait."),
	}
}

// Describe implements prometheus.Collector.
func (p *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{p.total, p.idle, p.acquired, p.max, p.acquires, p.waits} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (p *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	s := p.db.Pool.Stat()
	ch <- prometheus.MustNewConstMetric(p.total, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(p.idle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(p.acquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(p.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(p.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(p.waits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
}
