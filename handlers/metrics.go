package handlers

import (
	"github.com/wasteflow/wasteflow/models"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/wasteflow/wasteflow/workflows/status"
)

// metrics are kept in the server's own registry, so several servers in one
// test process do not collide.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(db *models.DB) *metrics {
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
	if sqlDB, err := db.DB(); err == nil {
		m.registry.MustRegister(collectors.NewDBStatsCollector(sqlDB, "wasteflow"))
	}
	return m
}

func (m *metrics) observe(operation string, code status.Code, httpStatus int, d time.Duration) {
	m.requests.WithLabelValues(operation, code.String(), strconv.Itoa(httpStatus)).Inc()
	m.latency.WithLabelValues(operation).Observe(d.Seconds())
}
