// Package server is gpuquote's HTTP layer: one route table, thin handlers,
// one error handler and the middleware every request passes through.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/compare"
	"gpuquote/internal/config"
	"gpuquote/internal/i18n"
	"gpuquote/internal/store"
)

// Deps is everything the server needs, built by main (or a test).
type Deps struct {
	Config  config.Config
	Store   *store.Store
	Catalog *i18n.Catalog
	Logger  *slog.Logger
	Hasher  *auth.Hasher
	// Now is the clock (time.Now when nil); tests inject their own.
	Now func() time.Time
	// Throttle overrides the login throttle (zero: the default).
	Throttle auth.ThrottleConfig
	// Routes gives the route table for the server being built (package
	// routes: routes.Table, which routes.New sets).
	Routes func(*Server) []Route
}

// Server is a configured Echo instance with its collaborators.
type Server struct {
	Config  config.Config
	Store   *store.Store
	Catalog *i18n.Catalog
	Log     *slog.Logger
	Auth    *auth.Manager
	Hasher  *auth.Hasher
	// Now is the clock; pages and handlers ask Today and LatestDay.
	Now     func() time.Time
	metrics *metrics
	echo    *echo.Echo
	// handler is echo behind compression: what is served.
	handler http.Handler
	// Frozen keeps what saved reports' immutable snapshots yield.
	Frozen *frozenCache
	// Priced keeps priced comparisons (nil: none; docs/RULES.md §20.1).
	Priced *compare.Cache
	// routes is the route table; policies its policies by "METHOD path".
	routes   []Route
	policies map[string]auth.Policy
	// served holds "METHOD path" of every route Echo serves: the table's,
	// and HEAD beside each GET.
	served map[string]bool
	// uploads are the slots of the uploads read at once (upload.go).
	uploads *uploadSlots
}

// New builds the server and registers every route of the route table.
func New(ctx context.Context, d Deps) (*Server, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	s := &Server{Config: d.Config, Store: d.Store, Catalog: d.Catalog, Log: d.Logger, Hasher: d.Hasher, Now: d.Now,
		Frozen: newFrozenCache(frozenCacheEntries), Priced: compare.NewCache(d.Config.CompareCache),
		uploads: newUploadSlots(d.Config.Uploads, d.Config.UploadWait)}
	s.Auth = &auth.Manager{Store: d.Store, Hasher: d.Hasher, Logger: d.Logger, Now: d.Now,
		Idle: d.Config.SessionIdle, Max: d.Config.SessionMax, Secure: d.Config.TLS, Throttle: d.Throttle}
	key, err := d.Store.ServerKey(ctx, "signing")
	if err != nil {
		return nil, err
	}
	s.Auth.Signer = auth.NewSigner(key)
	if err := s.Auth.Init(ctx); err != nil {
		return nil, err
	}
	s.metrics = newMetrics(d.Store.Pool(), d.Hasher)
	s.metrics.watchCompareCache(s.Priced)
	s.metrics.reg.MustRegister(routerCollector{st: d.Store})

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = ipExtractor(d.Config.TrustedProxies)

	// Order matters: headers first so even errors carry them; then ids,
	// metrics and logs around everything else.
	e.Use(securityHeaders(d.Config.TLS))
	e.Use(requestID)
	e.Use(s.metrics.middleware)
	e.Use(s.requestLogger())
	e.Use(s.recoverPanic)
	if d.Routes == nil {
		return nil, errors.New("server: no route table (build the server with routes.New)")
	}
	s.routes = d.Routes(s)
	routes := s.routes
	s.served = make(map[string]bool, 2*len(routes))
	s.policies = make(map[string]auth.Policy, len(routes))
	for _, r := range routes {
		s.policies[r.Method+" "+r.Path] = r.Policy
	}
	e.Use(s.requestTimeout)
	e.Use(i18n.Middleware(d.Catalog))

	// Every refusal (a body over the limit, a rate limit, a policy) runs
	// after the language and the session are loaded, so its error page is
	// translated and shows who is signed in. A route with its own
	// BodyLimit (an upload, a JSON door) gets it instead of the global one;
	// an Upload route reads its multipart form as it arrives, after the
	// policy and before the CSRF check, which reads the form's token.
	limiter := publicLimiter(d.Store, d.Logger, d.Config.PublicRateLimit)
	site := auth.Site{PublicURL: d.Config.PublicURL, TLS: d.Config.TLS}
	for _, r := range routes {
		mw := []echo.MiddlewareFunc{}
		if !r.Bare {
			mw = append(mw, s.Auth.LoadFor(r.Policy))
		}
		if r.Limited && limiter != nil {
			mw = append(mw, limiter)
		}
		limit := d.Config.BodyLimit
		if r.BodyLimit > 0 {
			limit = r.BodyLimit
		}
		if r.Upload != nil {
			mw = append(mw, uploadLimit(limit), inputGuard, idGuard)
		} else {
			mw = append(mw, bodyLimit(limit), inputGuard, idGuard)
		}
		if !r.Bare {
			mw = append(mw, s.Auth.Require(r.Policy))
			if r.Upload != nil {
				mw = append(mw, s.readUpload(*r.Upload, limit))
			}
			mw = append(mw, auth.CSRF(r.Policy, site))
		}
		mw = append(mw, s.readsFor(r))
		e.Add(r.Method, r.Path, r.Handler, mw...)
		s.served[r.Method+" "+r.Path] = true
		if r.Method == http.MethodGet {
			// HEAD answers as GET does, through the same policy, and
			// net/http drops the body (RFC 9110 §9.3.2).
			e.Add(http.MethodHead, r.Path, r.Handler, mw...)
			s.served[http.MethodHead+" "+r.Path] = true
		}
	}
	// A request no route takes — an unknown path, or a known one asked
	// with a method it does not take — loads the session too, so a
	// signed-in user's 404 or 405 page shows their header. Every route's
	// own path gets the handler as well, or Echo would answer a wrong
	// method there itself, before any session is loaded.
	e.RouteNotFound("/*", s.noRoute, s.Auth.Load, bodyLimit(d.Config.BodyLimit))
	paths := map[string]bool{}
	for _, r := range routes {
		if !paths[r.Path] {
			e.RouteNotFound(r.Path, s.noRoute, s.Auth.Load, bodyLimit(d.Config.BodyLimit))
			paths[r.Path] = true
		}
	}
	s.echo = e
	if s.handler, err = compressed(e); err != nil {
		return nil, err
	}
	return s, nil
}

// allowMethods are the methods an Allow header may name, in its order.
var allowMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// hiddenPaths are the routes that answer the 404 of a path that does not
// exist unless configured (/metrics without its token, docs/RULES.md
// §16.6; the load test's ceilings): asked with another method they are 404
// too, so no answer tells they are there.
var hiddenPaths = map[string]bool{"/metrics": true, "/bench/plaintext": true, "/bench/fortunes": true}

// noRoute answers a request no route takes: 405 with an Allow header
// naming the methods the path does take, when there are any (RFC 9110
// §15.5.6), else the 404 of a path that does not exist.
func (s *Server) noRoute(c echo.Context) error {
	r := c.Request()
	var allow []string
	for _, m := range allowMethods {
		if m == r.Method {
			continue
		}
		// The route Echo would choose for m; it serves m only when the
		// table has that route under m (else it is this handler's path).
		probe := s.echo.NewContext(r, nil)
		s.echo.Router().Find(m, echo.GetPath(r), probe)
		if s.served[m+" "+probe.Path()] && !hiddenPaths[probe.Path()] {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		return echo.ErrNotFound
	}
	c.Response().Header().Set(echo.HeaderAllow, strings.Join(allow, ", "))
	return echo.ErrMethodNotAllowed
}

// compressed gzips h's answers of 1 kB or more to clients that accept it
// (github.com/klauspost/compress: at level 2 it compresses a 127 kB report
// page in 0.18 ms to 18.5 kB, where the standard library took 0.54 ms for
// 17.0 kB, docs/PERFORMANCE.md). Workbooks are zip files already, and
// /metrics compresses itself (twice would reach a scraper still
// compressed).
func compressed(h http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(2), gzhttp.MinSize(1024), gzhttp.EnableZstd(false))
	if err != nil {
		return nil, err
	}
	gz := wrap(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.HasSuffix(p, ".xlsx") || p == "/metrics" {
			h.ServeHTTP(w, r)
			return
		}
		gz.ServeHTTP(w, r)
	}), nil
}

// Handler is the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves on ln until ctx is cancelled, then stops accepting, waits for
// in-flight requests up to the shutdown timeout, and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.Config.HeaderTimeout,
		ReadTimeout:       s.Config.RequestTimeout + 15*time.Second,
		WriteTimeout:      s.Config.RequestTimeout + 15*time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.Log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	go s.sweepSessions(ctx)
	return serveUntil(ctx, srv, ln, s.Config.ShutdownTimeout, func() {
		s.Log.Info("shutting down: draining in-flight requests", "timeout", s.Config.ShutdownTimeout.String())
	})
}

// serveUntil serves srv on ln until ctx is cancelled, then (after
// stopping, when set) stops accepting and waits for in-flight requests up
// to drain.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, drain time.Duration, stopping func()) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sweepSessions deletes expired sessions once an hour.
func (s *Server) sweepSessions(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := s.Store.DeleteStaleSessions(ctx, s.Now(), s.Config.SessionIdle)
			if err != nil {
				s.Log.Warn("sweep sessions", "err", err)
			} else if n > 0 {
				s.Log.Info("swept expired sessions", "count", n)
			}
		}
	}
}
