package handlers

import (
	"context"
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
				Help: "Access tokens whose session, and group tokens whose group, was found in the session cache."},
				func() float64 { h, _ := sessions.Stats(); return float64(h) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "wasteflow_session_cache_misses_total",
				Help: "Access tokens whose session, and group tokens whose group, was read from the database (not cached, expired there, or the cache's feed down)."},
				func() float64 { _, m := sessions.Stats(); return float64(m) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasteflow_session_cache_live",
				Help: "1 while the session cache's invalidation feed (PostgreSQL: LISTEN; SQLite: its poll of session_changes) runs, 0 when sessions are read on every request."},
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
	if _, ok := models.TransactionLine(db); ok {
		line := func() models.Line { l, _ := models.TransactionLine(db); return l }
		m.registry.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "wasteflow_db_transactions_waiting",
				Help: "Transactions waiting in line for a slot of the pool now (PostgreSQL: three quarters of WASTEFLOW_DB_MAX_OPEN_CONNS run at once)."},
				func() float64 { return float64(line().Waiting) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "wasteflow_db_transaction_waits_total",
				Help: "Transactions that waited in line for a slot of the pool."},
				func() float64 { return float64(line().Waits) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "wasteflow_db_transaction_wait_seconds_total",
				Help: "Time transactions waited in line for a slot of the pool, in all."},
				func() float64 { return line().Waited.Seconds() }))
	}
	m.registry.MustRegister(newGauges(db))
	return m
}

func (m *metrics) observe(operation string, code status.Code, httpStatus int, d time.Duration) {
	m.requests.WithLabelValues(operation, code.String(), strconv.Itoa(httpStatus)).Inc()
	m.latency.WithLabelValues(operation).Observe(d.Seconds())
}

// gauges reports, at each scrape, the work in hand as the database holds
// it (models.Gauges): every instance reports the same figures.
type gauges struct {
	db                                                    *models.DB
	deadlines, unswept, hooks, jobs, mails, stuck, readOK *prometheus.Desc
	diwass, diwassOldest                                  *prometheus.Desc
}

func newGauges(db *models.DB) *gauges {
	return &gauges{db: db,
		deadlines: prometheus.NewDesc("wasteflow_deadlines", "Deadlines still running, by state (OPEN, DUE_SOON, OVERDUE, SUSPENDED).", []string{"state"}, nil),
		unswept: prometheus.NewDesc("wasteflow_deadlines_unswept",
			"OPEN or DUE_SOON deadlines due more than 10 minutes ago: above 0 the deadline sweep is not running, or is behind.", nil, nil),
		hooks: prometheus.NewDesc("wasteflow_webhook_endpoints",
			"Webhook endpoints by state: enabled, failing (enabled, every attempt failing since a time), disabled.", []string{"state"}, nil),
		jobs:  prometheus.NewDesc("wasteflow_jobs", "Jobs of the job queue not yet finished, by queue (default: register exports; webhooks; mail) and state.", []string{"queue", "state"}, nil),
		mails: prometheus.NewDesc("wasteflow_mails_queued", "Reminder mails queued and not yet sent.", nil, nil),
		stuck: prometheus.NewDesc("wasteflow_mails_queued_over_an_hour", "Reminder mails queued more than an hour ago and not yet sent: the mail server refuses them or cannot be reached.", nil, nil),
		diwass: prometheus.NewDesc("wasteflow_diwass_submissions",
			"Documents' exchanges with DIWASS by state: PENDING, SENDING, SENT, REJECTED, UNCERTAIN (docs/diwass.md).", []string{"state"}, nil),
		diwassOldest: prometheus.NewDesc("wasteflow_diwass_oldest_pending_seconds",
			"How long the oldest PENDING submission to DIWASS has waited (0: none waits): DIWASS unreachable, or the job queue behind.", nil, nil),
		readOK: prometheus.NewDesc("wasteflow_gauges_read",
			"1 when the gauges above were read from the database at this scrape (within 2 s), 0 when the read failed and they are left out.", nil, nil),
	}
}

func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.deadlines, g.unswept, g.hooks, g.jobs, g.mails, g.stuck, g.diwass, g.diwassOldest, g.readOK} {
		ch <- d
	}
}

func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := models.ReadGauges(ctx, g.db, time.Now().UTC())
	if err != nil {
		ch <- prometheus.MustNewConstMetric(g.readOK, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(g.readOK, prometheus.GaugeValue, 1)
	for state, n := range r.Deadlines {
		ch <- prometheus.MustNewConstMetric(g.deadlines, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(g.unswept, prometheus.GaugeValue, float64(r.Unswept))
	for state, n := range r.WebhookEndpoints {
		ch <- prometheus.MustNewConstMetric(g.hooks, prometheus.GaugeValue, float64(n), state)
	}
	for k, n := range r.Jobs {
		ch <- prometheus.MustNewConstMetric(g.jobs, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	ch <- prometheus.MustNewConstMetric(g.mails, prometheus.GaugeValue, float64(r.MailsQueued))
	ch <- prometheus.MustNewConstMetric(g.stuck, prometheus.GaugeValue, float64(r.MailsStuck))
	for state, n := range r.DIWASSSubmissions {
		ch <- prometheus.MustNewConstMetric(g.diwass, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(g.diwassOldest, prometheus.GaugeValue, r.DIWASSOldestPending.Seconds())
}
