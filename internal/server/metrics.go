package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"gpuquote/internal/auth"
)

// metrics is the server's own Prometheus registry (not the global one, so
// several servers can live in one test binary).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(pool *pgxpool.Pool, hasher *auth.Hasher) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gpuquote_http_requests_total", Help: "HTTP requests by method, route template and status code.",
	}, []string{"method", "route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "gpuquote_http_request_duration_seconds", Help: "HTTP request latency by method and route template.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"method", "route"})
	m.reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&poolCollector{pool: pool},
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "gpuquote_password_hash_runs_total", Help: "argon2id computations (hashes and verifications).",
		}, func() float64 { return float64(hasher.Runs()) }))
	return m
}

// middleware counts and times every request under its route template, so
// /users/1 and /users/2 share one series.
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path()
		if route == "" || c.Response().Status == http.StatusNotFound && route == "/*" {
			route = "unmatched"
		}
		status := c.Response().Status
		if err != nil {
			if he, ok := err.(*echo.HTTPError); ok {
				status = he.Code
			} else if clientGone(err) {
				status = statusClientClosedRequest
			} else if !c.Response().Committed {
				status = http.StatusInternalServerError
			}
		}
		m.requests.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Inc()
		m.latency.WithLabelValues(c.Request().Method, route).Observe(time.Since(start).Seconds())
		return err
	}
}

func (m *metrics) handler() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
}

// poolCollector exports pgxpool statistics at scrape time.
type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolDescs = map[string]*prometheus.Desc{
		"acquired": prometheus.NewDesc("gpuquote_db_pool_acquired_conns", "Connections currently in use.", nil, nil),
		"idle":     prometheus.NewDesc("gpuquote_db_pool_idle_conns", "Idle connections.", nil, nil),
		"total":    prometheus.NewDesc("gpuquote_db_pool_total_conns", "Open connections.", nil, nil),
		"max":      prometheus.NewDesc("gpuquote_db_pool_max_conns", "Pool size limit.", nil, nil),
		"acquires": prometheus.NewDesc("gpuquote_db_pool_acquires_total", "Successful acquires.", nil, nil),
		"empty":    prometheus.NewDesc("gpuquote_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.", nil, nil),
		"canceled": prometheus.NewDesc("gpuquote_db_pool_canceled_acquires_total", "Acquires cancelled by their context.", nil, nil),
		"wait":     prometheus.NewDesc("gpuquote_db_pool_acquire_wait_seconds_total", "Total time spent acquiring.", nil, nil),
	}
)

func (p *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range poolDescs {
		ch <- d
	}
}

func (p *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := p.pool.Stat()
	g := func(k string, v float64) { ch <- prometheus.MustNewConstMetric(poolDescs[k], prometheus.GaugeValue, v) }
	c := func(k string, v float64) {
		ch <- prometheus.MustNewConstMetric(poolDescs[k], prometheus.CounterValue, v)
	}
	g("acquired", float64(st.AcquiredConns()))
	g("idle", float64(st.IdleConns()))
	g("total", float64(st.TotalConns()))
	g("max", float64(st.MaxConns()))
	c("acquires", float64(st.AcquireCount()))
	c("empty", float64(st.EmptyAcquireCount()))
	c("canceled", float64(st.CanceledAcquireCount()))
	c("wait", st.AcquireDuration().Seconds())
}
