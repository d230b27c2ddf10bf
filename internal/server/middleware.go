package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// contentSecurityPolicy allows only our own scripts and styles: no inline
// script anywhere, no framing, forms post only to us.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries, errors included;
// a site served over HTTPS (GPUQUOTE_TLS) also tells browsers to use
// nothing else for a year (HSTS).
func securityHeaders(tls bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", contentSecurityPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "same-origin")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			if tls {
				h.Set("Strict-Transport-Security", "max-age=31536000")
			}
			return next(c)
		}
	}
}

// ErrUnstorableText is text the database cannot store or that has no place
// in a form: a NUL byte or another control character (tab and line breaks
// aside), or bytes that are not UTF-8.
var ErrUnstorableText = errors.New("request text holds control characters or is not UTF-8")

// StorableText reports whether s may be stored and shown as it is
// (form.StorableText: the one text guard of the form and JSON doors).
func StorableText(s string) bool { return form.StorableText(s) }

// inputGuard refuses, with 400 and a message saying why, a request whose
// query or posted form (URL-encoded; uploads are read by their own
// importer) holds text the database could not store — one guard for every
// field and parameter of every route, instead of a 500 wherever such text
// would reach a query.
func inputGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		check := func(vs url.Values) error {
			for k, v := range vs {
				if !StorableText(k) {
					return echo.NewHTTPError(http.StatusBadRequest).SetInternal(ErrUnstorableText)
				}
				for _, x := range v {
					if !StorableText(x) {
						return echo.NewHTTPError(http.StatusBadRequest).SetInternal(ErrUnstorableText)
					}
				}
			}
			return nil
		}
		if err := check(c.QueryParams()); err != nil {
			return err
		}
		f, err := PostedForm(c)
		if err != nil {
			return err
		}
		if err := check(f); err != nil {
			return err
		}
		return next(c)
	}
}

// PostedForm is the URL-encoded form a request posts (nil for a safe
// method or another body, such as an upload, which its own reader checks);
// a form that cannot be parsed is a 400.
func PostedForm(c echo.Context) (url.Values, error) {
	r := c.Request()
	if r.Method == http.MethodGet || r.Method == http.MethodHead ||
		!strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEApplicationForm) {
		return nil, nil
	}
	f, err := c.FormParams()
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	return f, nil
}

// clientRequestID is the form of a request id a client may choose: 1 to 64
// letters, digits, dots, underscores and hyphens. Anything else is replaced
// by one of ours, so no client text of any length or content reaches the
// logs, the audit log or an error page.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestID gives every request an id (the client's when well formed),
// on the request (which the request log reads) and on the response.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		rid := c.Request().Header.Get(echo.HeaderXRequestID)
		if !clientRequestID.MatchString(rid) {
			rid = auth.NewToken()[:16]
		}
		c.Request().Header.Set(echo.HeaderXRequestID, rid)
		c.Response().Header().Set(echo.HeaderXRequestID, rid)
		return next(c)
	}
}

// requestTimeout bounds each request's work through its context.
func (s *Server) requestTimeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.Config.RequestTimeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// bodyLimit refuses a request body over n bytes with 413 and tells the
// request's pages the limit (web.WithBodyLimit), so a form states what the
// server enforces and its script can refuse more before sending it.
func bodyLimit(n int64) echo.MiddlewareFunc {
	limit := middleware.BodyLimit(strconv.FormatInt(n, 10) + "B")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := limit(next)
		return func(c echo.Context) error {
			r := c.Request()
			c.SetRequest(r.WithContext(web.WithBodyLimit(r.Context(), n)))
			return limited(c)
		}
	}
}

// recoverPanic turns a panic into a logged 500 instead of a dropped connection.
func (s *Server) recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		return next(c)
	}
}

// requestLogger logs one JSON line per request, its address with the
// secrets in it redacted (redactForLog).
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogRequestID: true,
		LogRemoteIP: true, LogError: true, HandleError: true,
		Skipper: func(c echo.Context) bool {
			p := c.Path()
			return p == "/healthz" || p == "/readyz" || p == "/metrics"
		},
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{
				slog.String("request_id", v.RequestID), slog.String("method", v.Method),
				slog.String("uri", redactForLog(v.URI)), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("ip", v.RemoteIP),
			}
			if cur := auth.CurrentUser(c); cur != nil {
				attrs = append(attrs, slog.Int64("user_id", cur.UserID))
			}
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
				if v.Error != nil {
					attrs = append(attrs, slog.String("err", v.Error.Error()))
				}
			}
			s.Log.LogAttrs(context.Background(), level, "request", attrs...)
			return nil
		},
	})
}

// ipExtractor takes the client address from X-Forwarded-For only when the
// peer is one of the configured trusted proxies; otherwise the socket peer.
func ipExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		_, n, err := net.ParseCIDR(p.String())
		if err == nil {
			opts = append(opts, echo.TrustIPRange(n))
		}
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// publicLimiter limits each client address to perSecond requests a second
// (bursts of three times as many) on routes marked Limited; nil when off.
// The buckets live in PostgreSQL, so behind a balancer every process takes
// from the same one, and each process deletes the buckets full again at
// most once per limiterSweepEvery (docs/RULES.md §20.3). When the database
// cannot answer within limiterTimeout, the request is counted by this
// process's own bucket instead (the same rate and burst), with a warning
// at most once per limiterWarnEvery: a public page is neither refused nor
// let through unlimited because the limiter's table is out of reach.
func publicLimiter(st *store.Store, log *slog.Logger, perSecond int) echo.MiddlewareFunc {
	if perSecond <= 0 {
		return nil
	}
	interval, burst := time.Second/time.Duration(perSecond), 3*perSecond
	local := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Limit(perSecond), Burst: burst, ExpiresIn: 3 * time.Minute})
	var lastWarn, lastSweep atomic.Int64
	// once reports whether at least every has passed since *last, and
	// moves *last to now for exactly one of the callers that find so.
	once := func(last *atomic.Int64, now time.Time, every time.Duration) bool {
		l := last.Load()
		return now.UnixNano()-l >= int64(every) && last.CompareAndSwap(l, now.UnixNano())
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ip, now := c.RealIP(), time.Now()
			warn := func(msg string, err error) {
				if once(&lastWarn, now, limiterWarnEvery) {
					log.WarnContext(c.Request().Context(), msg, "err", err.Error())
				}
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), limiterTimeout)
			ok, err := st.AllowRequest(ctx, "public:"+ip, now, interval, burst)
			switch {
			case err != nil:
				warn("public rate limit: database unavailable, counting in this process", err)
				ok, _ = local.Allow(ip)
			case once(&lastSweep, now, limiterSweepEvery):
				if _, err := st.SweepRateLimits(ctx, now); err != nil {
					warn("public rate limit: sweep failed", err)
				}
			}
			cancel()
			if !ok {
				return echo.NewHTTPError(http.StatusTooManyRequests)
			}
			return next(c)
		}
	}
}

// limiterTimeout bounds the public rate limit's database statements;
// limiterSweepEvery is how often one process deletes the buckets full
// again; limiterWarnEvery spaces the warnings while the database is away.
const (
	limiterTimeout    = time.Second
	limiterSweepEvery = time.Minute
	limiterWarnEvery  = time.Minute
)
