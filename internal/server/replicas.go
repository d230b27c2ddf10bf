package server

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"gpuquote/internal/store"
)

// walCookie holds the WAL position of the reader's last write, signed,
// until replicas that lag no more than GPUQUOTE_REPLICA_MAX_LAG must have
// replayed it (docs/RULES.md §20.7).
const walCookie = "gpuquote_wal"

// readsFor marks each request of route r for the store: a GET's (or a
// Reads route's) plain reads may go to a replica that has replayed the
// reader's last write; a request that writes leaves the position of its
// write in the reader's cookie, so their next reads see it.
func (s *Server) readsFor(r Route) echo.MiddlewareFunc {
	replicas := r.Method == http.MethodGet || r.Reads
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !s.Store.HasReplicas() {
				return next(c)
			}
			req := c.Request()
			ctx, reads := s.Store.Reads(req.Context(), replicas, s.lastWrite(req))
			c.SetRequest(req.WithContext(ctx))
			c.Response().Before(func() {
				if reads.Wrote() {
					s.rememberWrite(ctx, c)
				}
			})
			return next(c)
		}
	}
}

// walPin is how long a write's position is kept: after it, a replica that
// has not replayed the write lags more than the bound and is not used.
func (s *Server) walPin() time.Duration {
	return s.Config.ReplicaMaxLag + 2*store.ReplicaCheckEvery
}

// lastWrite is the WAL position in the request's cookie while it is kept
// and its signature holds; zero otherwise.
func (s *Server) lastWrite(req *http.Request) store.LSN {
	ck, err := req.Cookie(walCookie)
	if err != nil {
		return 0
	}
	msg, mac, ok := strings.Cut(ck.Value, ".")
	if !ok || !s.Auth.Signer.Verify("wal", msg, mac) {
		return 0
	}
	pos, until, ok := strings.Cut(msg, "-")
	if !ok {
		return 0
	}
	lsn, err1 := strconv.ParseUint(pos, 16, 64)
	exp, err2 := strconv.ParseInt(until, 10, 64)
	if err1 != nil || err2 != nil || s.Now().UnixMilli() >= exp {
		return 0
	}
	return store.LSN(lsn)
}

// rememberWrite puts the primary's WAL position (past the request's
// commits) in the reader's cookie, unless the cookie already holds a later
// one.
func (s *Server) rememberWrite(ctx context.Context, c echo.Context) {
	lsn, err := s.Store.WriteLSN(context.WithoutCancel(ctx))
	if err != nil {
		s.Log.Warn("WAL position of a write not read: the reader's next reads may miss it on a replica", "err", err)
		return
	}
	if prev := s.lastWrite(c.Request()); prev > lsn {
		lsn = prev
	}
	pin := s.walPin()
	msg := strconv.FormatUint(uint64(lsn), 16) + "-" + strconv.FormatInt(s.Now().Add(pin).UnixMilli(), 10)
	http.SetCookie(c.Response(), &http.Cookie{
		Name: walCookie, Value: msg + "." + s.Auth.Signer.Sign("wal", msg), Path: "/",
		MaxAge: int(math.Ceil(pin.Seconds())), HttpOnly: true, Secure: s.Config.TLS, SameSite: http.SameSiteLaxMode,
	})
}

// replicaReady is one replica as /readyz tells it: its host and port (never
// the URL, which may carry a password), whether reads go to it, and how far
// behind the primary the last check found it.
type replicaReady struct {
	Name       string  `json:"name"`
	InUse      bool    `json:"in_use"`
	State      string  `json:"state"`
	LagSeconds float64 `json:"lag_seconds"`
}

func (s *Server) replicasReady() []replicaReady {
	states := s.Store.Replicas()
	out := make([]replicaReady, len(states))
	for i, r := range states {
		state := "in_use"
		switch {
		case !r.Checked:
			state = "not_checked"
		case !r.Up:
			state = "down"
		case !r.Standby:
			state = "not_a_standby"
		case !r.InUse:
			state = "lagging"
		}
		out[i] = replicaReady{Name: r.Name, InUse: r.InUse, State: state, LagSeconds: math.Round(r.Lag.Seconds()*1000) / 1000}
	}
	return out
}

// routerCollector exports where the store's statements went: queries per
// pool, each replica's lag and use, and the reads that fell back to the
// primary.
type routerCollector struct{ st *store.Store }

var (
	routerQueries   = prometheus.NewDesc("gpuquote_db_queries_total", "Statements sent, by pool (primary, or replica host:port).", []string{"pool"}, nil)
	routerLag       = prometheus.NewDesc("gpuquote_db_replica_lag_seconds", "How far behind the primary each replica was at its last check.", []string{"pool"}, nil)
	routerInUse     = prometheus.NewDesc("gpuquote_db_replica_in_use", "1 when reads go to the replica, 0 when it is down, not a standby or lagging.", []string{"pool"}, nil)
	routerFallbacks = prometheus.NewDesc("gpuquote_db_replica_fallbacks_total", "Requests that could read on a replica but read on the primary: no replica in use, or none yet past the reader's own write.", []string{"reason"}, nil)
	routerErrors    = prometheus.NewDesc("gpuquote_db_replica_errors_total", "Replica statements that could not reach it and went to the primary.", nil, nil)
)

func (routerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{routerQueries, routerLag, routerInUse, routerFallbacks, routerErrors} {
		ch <- d
	}
}

func (r routerCollector) Collect(ch chan<- prometheus.Metric) {
	st := r.st.RouterStats()
	ch <- prometheus.MustNewConstMetric(routerQueries, prometheus.CounterValue, float64(st.PrimaryQueries), "primary")
	for _, rep := range r.st.Replicas() {
		name := "replica " + rep.Name
		ch <- prometheus.MustNewConstMetric(routerQueries, prometheus.CounterValue, float64(rep.Queries), name)
		ch <- prometheus.MustNewConstMetric(routerLag, prometheus.GaugeValue, rep.Lag.Seconds(), name)
		in := 0.0
		if rep.InUse {
			in = 1
		}
		ch <- prometheus.MustNewConstMetric(routerInUse, prometheus.GaugeValue, in, name)
	}
	if r.st.HasReplicas() {
		ch <- prometheus.MustNewConstMetric(routerFallbacks, prometheus.CounterValue, float64(st.FallbackNoReplica), "no_replica")
		ch <- prometheus.MustNewConstMetric(routerFallbacks, prometheus.CounterValue, float64(st.FallbackOwnWrite), "own_write")
		ch <- prometheus.MustNewConstMetric(routerErrors, prometheus.CounterValue, float64(st.ReplicaErrors))
	}
}
