package handlers

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/wake"
)

// metrics are kept in the server's own registry, so several servers in one
// test process do not collide.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(db *models.DB, sessions *auth.SessionCache, hubs map[string]*wake.Hub) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasteflow_requests_total",
			Help: "Requests by operation, gRPC status code and HTTP status.",
		}, []string{"operation", "code", "http_status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "wasteflow_request_duration_seconds",
			Help:    "Time from the first byte of the request to the response, by operation.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation"}),
	}
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if sessions != nil {
		m.registry.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "wasteflow_session_cache_hits_total",
				Help: "Access tokens whose session was found in the session cache."},
				func() float64 { h, _ := sessions.Stats(); return float64(h) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "wasteflow_session_cache_misses_total",
				Help: "Access tokens whose session was read from the database (not cached, expired there, or the cache's feed down)."},
				func() float64 { _, m := sessions.Stats(); return float64(m) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasteflow_session_cache_live",
				Help: "1 while the session cache's invalidation feed (PostgreSQL LISTEN) runs, 0 when sessions are read on every request."},
				func() float64 {
					if sessions.Live() {
						return 1
					}
					return 0
				}))
	}
	for kind, hub := range hubs {
		m.registry.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasteflow_waiters", ConstLabels: prometheus.Labels{"kind": kind},
				Help: "Requests waiting for a change (events: long polls and streams; signing: waits on processes)."},
				func() float64 { return float64(hub.Waiting()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasteflow_waiters_live", ConstLabels: prometheus.Labels{"kind": kind},
				Help: "1 while the waits are woken by PostgreSQL's notifications, 0 while they poll."},
				func() float64 {
					if hub.Live() {
						return 1
					}
					return 0
				}))
	}
	if sqlDB, err := db.DB(); err == nil {
		m.registry.MustRegister(collectors.NewDBStatsCollector(sqlDB, "wasteflow"))
	}
	return m
}

func (m *metrics) observe(operation string, code status.Code, httpStatus int, d time.Duration) {
	m.requests.WithLabelValues(operation, code.String(), strconv.Itoa(httpStatus)).Inc()
	m.latency.WithLabelValues(operation).Observe(d.Seconds())
}
