package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"gpuquote/internal/auth"
	"gpuquote/internal/compare"
)

// metrics is the server's own Prometheus registry (not the global one, so
// several servers can live in one test binary).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// chartsDrawn counts the compare page's charts drawn, not found kept
	// with a priced comparison (docs/RULES.md §20.4).
	chartsDrawn prometheus.Counter
	// resultsDrawn counts the compare page's results drawn, not found
	// kept with a priced comparison (docs/RULES.md §20.5).
	resultsDrawn prometheus.Counter
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

// watchCompareCache exports the priced comparisons kept (docs/RULES.md
// §20.1): how many, and how often a comparison was found kept or priced
// anew, all zero when the cache is off; and how often the compare page
// drew its charts (§20.4).
func (m *metrics) watchCompareCache(c *compare.Cache) {
	m.chartsDrawn = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "gpuquote_compare_charts_drawn_total", Help: "Compare pages whose two charts were drawn, not found kept with a priced comparison.",
	})
	m.resultsDrawn = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "gpuquote_compare_results_drawn_total", Help: "Compare pages whose results were drawn, not found kept with a priced comparison.",
	})
	m.reg.MustRegister(m.chartsDrawn, m.resultsDrawn,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gpuquote_compare_cache_entries", Help: "Priced comparisons kept in this process.",
		}, func() float64 { return float64(c.Stats().Entries) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "gpuquote_compare_cache_hits_total", Help: "Comparisons whose priced figures were found kept.",
		}, func() float64 { return float64(c.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "gpuquote_compare_cache_misses_total", Help: "Comparisons priced anew and kept.",
		}, func() float64 { return float64(c.Stats().Misses) }))
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

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// MetricsOnAppPort is /metrics on the site's own port: the exposition names
// every route and counts logins, so it is served there only to a request
// carrying the configured GPUQUOTE_METRICS_TOKEN as a bearer token; every
// other request (and every request when no token is configured) gets the
// 404 of a path that does not exist (docs/RULES.md §16.6).
func (s *Server) MetricsOnAppPort() echo.HandlerFunc {
	serve := echo.WrapHandler(s.metrics.handler())
	return func(c echo.Context) error {
		if s.Config.MetricsToken == "" || !metricsTokenMatches(c.Request(), s.Config.MetricsToken) {
			return echo.ErrNotFound
		}
		return serve(c)
	}
}

// metricsTokenMatches compares the request's bearer token with want in
// constant time (over SHA-256 digests, so not even the length leaks).
func metricsTokenMatches(r *http.Request, want string) bool {
	scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	g, w := sha256.Sum256([]byte(strings.TrimSpace(got))), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// MetricsHandler is the metrics listener (GPUQUOTE_METRICS_ADDR): the
// Prometheus endpoint /metrics and Go's runtime profiles under
// /debug/pprof/, without authentication, for a listener only the
// monitoring network reaches; any other path is 404.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler())
	handlePprof(mux)
	return mux
}

// metricsWriteTimeout bounds an answer of the metrics listener: a scrape
// takes milliseconds; a CPU profile or trace takes as many seconds as asked
// (30 by default), and net/http/pprof refuses one that would outlast this.
const metricsWriteTimeout = 65 * time.Second

// ServeMetrics serves MetricsHandler on ln until ctx is cancelled.
func (s *Server) ServeMetrics(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.MetricsHandler(),
		ReadHeaderTimeout: s.Config.HeaderTimeout,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      metricsWriteTimeout,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.Log.Handler(), slog.LevelWarn),
	}
	return serveUntil(ctx, srv, ln, 5*time.Second, nil)
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

// RegisterMetrics adds collectors (the mail sender's) to the server's
// Prometheus registry.
func (s *Server) RegisterMetrics(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := s.metrics.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// ChartsDrawn counts one drawing of the compare page's charts.
func (s *Server) ChartsDrawn() { s.metrics.chartsDrawn.Inc() }

// ResultsDrawn counts one drawing of the compare page's results that could
// have been kept (docs/RULES.md §20.5).
func (s *Server) ResultsDrawn() { s.metrics.resultsDrawn.Inc() }
