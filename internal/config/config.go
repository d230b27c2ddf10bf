// Package config reads gpuquote's typed configuration from the environment.
// The Config value is passed explicitly to whatever needs it; there are no
// package-level settings.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the whole runtime configuration of one gpuquote process.
type Config struct {
	// DatabaseURL is the PostgreSQL connection string (DATABASE_URL): for
	// serve, the least-privileged serving role's (docs/RULES.md §16.7).
	DatabaseURL string
	// OwnerDatabaseURL is how migrate, seed and user connect: as the role
	// that owns the tables (GPUQUOTE_OWNER_DATABASE_URL, default
	// DatabaseURL).
	OwnerDatabaseURL string
	// AppRole is the serving role migrate creates and grants to
	// (GPUQUOTE_APP_ROLE, default gpuquote_app); AppPassword, when set, is
	// the password migrate gives it (GPUQUOTE_APP_PASSWORD).
	AppRole, AppPassword string
	// AllowSuperuser lets serve run as a superuser or the tables' owner
	// (GPUQUOTE_ALLOW_SUPERUSER=1), for throwaway local use only.
	AllowSuperuser bool
	// WebhookAllowPrivate lets webhooks be registered for and delivered to
	// private, loopback and link-local addresses
	// (GPUQUOTE_WEBHOOK_ALLOW_PRIVATE=1; docs/RULES.md §24.7): for a
	// receiver on the same network, and for tests.
	WebhookAllowPrivate bool
	// Workers runs the background work in this process: the mail sender
	// (with the daily digests), the webhook sender and the hourly check of
	// watched reports (GPUQUOTE_WORKERS, default on; 0 or false turns it
	// off). A process without it serves pages and the API only: web and
	// worker processes scale apart, the queues' row locks keep each job to
	// one worker at a time (docs/RULES.md §20.3).
	Workers bool
	// Addr is the listen address (GPUQUOTE_ADDR), default 127.0.0.1:8080.
	Addr string
	// LogLevel is the minimum slog level (GPUQUOTE_LOG_LEVEL).
	LogLevel slog.Level
	// TLS says the site is served over HTTPS (GPUQUOTE_TLS), directly or
	// behind a proxy; session cookies then get Secure and the __Host- prefix.
	TLS bool
	// TrustedProxies are the networks whose X-Forwarded-For is believed
	// (GPUQUOTE_TRUSTED_PROXIES, comma-separated CIDRs). Empty: only the
	// socket's peer address counts.
	TrustedProxies []netip.Prefix
	// SessionIdle ends a session after this long without a request
	// (GPUQUOTE_SESSION_IDLE, default 2h).
	SessionIdle time.Duration
	// SessionMax ends a session this long after login whatever happens
	// (GPUQUOTE_SESSION_MAX, default 168h).
	SessionMax time.Duration
	// BodyLimit is the largest request body accepted, in bytes, by a
	// route without its own bound (GPUQUOTE_BODY_LIMIT, default 1 MiB);
	// larger bodies get 413.
	BodyLimit int64
	// RequestTimeout bounds each request's work, database included
	// (GPUQUOTE_REQUEST_TIMEOUT, default 15s).
	RequestTimeout time.Duration
	// HeaderTimeout is how long a client may take to send its request
	// headers before the connection is cut (GPUQUOTE_HEADER_TIMEOUT,
	// default 10s): a client trickling headers cannot hold a connection.
	HeaderTimeout time.Duration
	// ShutdownTimeout is how long SIGINT/SIGTERM waits for in-flight requests
	// (GPUQUOTE_SHUTDOWN_TIMEOUT, default 20s).
	ShutdownTimeout time.Duration
	// DBMaxConns caps the connection pool (GPUQUOTE_DB_MAX_CONNS, default 10),
	// and each replica's.
	DBMaxConns int32
	// ReplicaURLs are hot standbys of the database, each with the serving
	// role's URL (GPUQUOTE_REPLICA_URLS, comma-separated): the reads of
	// pages and the API that store nothing may go to them
	// (docs/RULES.md §20.7). Empty: every statement goes to DatabaseURL.
	ReplicaURLs []string
	// ReplicaMaxLag is how far behind the primary a replica may be and
	// still serve reads (GPUQUOTE_REPLICA_MAX_LAG, default 5s).
	ReplicaMaxLag time.Duration
	// PublicRateLimit is the sustained requests per second one client
	// address may make to public endpoints that need no login (the
	// evaluation API, the calculator), with bursts of three times as many
	// (GPUQUOTE_PUBLIC_RATE_LIMIT, default 10; 0 turns the limit off, e.g.
	// for load tests).
	PublicRateLimit int
	// CompareCache bounds the priced comparisons each server process keeps
	// (GPUQUOTE_COMPARE_CACHE entries, default 256; 0 keeps none,
	// docs/RULES.md §20.1).
	CompareCache int
	// PublicURL is the site's address as readers reach it
	// (GPUQUOTE_PUBLIC_URL, e.g. https://gpuquote.example.com), for the
	// absolute links the pages give out (a comparison's share link, the API
	// token's example). Empty: http(s)://Addr. Never taken from a
	// request's Host header, which the client chooses.
	PublicURL string
	// BenchRoutes serves the load test's two ceilings, /bench/plaintext and
	// /bench/fortunes (GPUQUOTE_BENCH_ROUTES, default false; make bench
	// turns it on). Off, they answer 404.
	BenchRoutes bool
	// MetricsAddr is the listen address of the Prometheus endpoint
	// (GPUQUOTE_METRICS_ADDR, e.g. 127.0.0.1:9464), a listener of its own
	// apart from the site's. Empty (the default): no such listener
	// (docs/RULES.md §16.6).
	MetricsAddr string
	// MetricsToken, when set (GPUQUOTE_METRICS_TOKEN, at least 32
	// characters), also serves /metrics on the site's own port to requests
	// carrying "Authorization: Bearer <token>"; every other request for
	// /metrics there answers 404.
	MetricsToken string
	// SMTP, when set (GPUQUOTE_SMTP_URL), turns mail on: every
	// notification is also mailed (docs/RULES.md §18.4). Nil: no mail.
	SMTP *SMTP
	// Uploads is how many file uploads (a proposal's form with its file)
	// each server process reads at once (GPUQUOTE_UPLOADS, default 4); each
	// holds at most one file's bytes in memory (docs/RULES.md §18.1).
	Uploads int
	// UploadWait is how long an upload waits for one of those to be free
	// before it is answered 503 with Retry-After (GPUQUOTE_UPLOAD_WAIT,
	// default 5s; 0 answers at once).
	UploadWait time.Duration
	// ProposalsPerHour bounds the proposals one person makes (new or
	// proposed again) in any hour (GPUQUOTE_PROPOSALS_PER_HOUR, default 20;
	// 0: no bound; docs/RULES.md §18.1).
	ProposalsPerHour int
	// ProposalStorage bounds the bytes of vendor's files one person's
	// proposals not yet published hold (GPUQUOTE_PROPOSAL_STORAGE, default
	// 50 MiB; 0: no bound; docs/RULES.md §18.1).
	ProposalStorage int64
}

// minMetricsToken is the shortest metrics token accepted: a guessable one
// would reopen what the separate listener closes.
const minMetricsToken = 32

// Default returns the configuration used when the environment says nothing.
func Default() Config {
	return Config{
		Addr:            "127.0.0.1:8080",
		LogLevel:        slog.LevelInfo,
		SessionIdle:     2 * time.Hour,
		SessionMax:      7 * 24 * time.Hour,
		BodyLimit:       1 << 20,
		RequestTimeout:  15 * time.Second,
		HeaderTimeout:   10 * time.Second,
		ShutdownTimeout: 20 * time.Second,
		DBMaxConns:      10,
		ReplicaMaxLag:   5 * time.Second,
		PublicRateLimit: 10,
		CompareCache:    256,
		AppRole:         "gpuquote_app",
		Workers:         true,

		Uploads:          4,
		UploadWait:       5 * time.Second,
		ProposalsPerHour: 20,
		ProposalStorage:  50 << 20,
	}
}

// BaseURL is the site's absolute address without a trailing slash:
// PublicURL, else the listen address with the scheme TLS says.
func (c Config) BaseURL() string {
	if c.PublicURL != "" {
		return c.PublicURL
	}
	scheme := "http"
	if c.TLS {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return scheme + "://" + c.Addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost" // listening everywhere: this machine at least
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// FromEnv builds a Config from the process environment.
func FromEnv() (Config, error) { return Parse(os.LookupEnv) }

// Parse builds a Config from a lookup function (os.LookupEnv in production,
// a map in tests). Every bad variable is reported, joined in one error.
func Parse(lookup func(string) (string, bool)) (Config, error) {
	c := Default()
	var errs []error
	get := func(k string) (string, bool) {
		v, ok := lookup(k)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	if v, ok := get("DATABASE_URL"); ok {
		c.DatabaseURL = v
	}
	if v, ok := get("GPUQUOTE_OWNER_DATABASE_URL"); ok {
		c.OwnerDatabaseURL = v
	}
	if v, ok := get("GPUQUOTE_APP_ROLE"); ok {
		c.AppRole = v
	}
	if v, ok := lookup("GPUQUOTE_APP_PASSWORD"); ok {
		c.AppPassword = v
	}
	if v, ok := get("GPUQUOTE_ADDR"); ok {
		c.Addr = v
	}
	if v, ok := get("GPUQUOTE_PUBLIC_URL"); ok {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("GPUQUOTE_PUBLIC_URL=%q: want an http or https address such as https://gpuquote.example.com", v))
		} else {
			c.PublicURL = strings.TrimRight(u.String(), "/")
		}
	}
	if v, ok := get("GPUQUOTE_METRICS_ADDR"); ok {
		if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("GPUQUOTE_METRICS_ADDR=%q: want a listen address such as 127.0.0.1:9464", v))
		} else {
			c.MetricsAddr = v
		}
	}
	if v, ok := get("GPUQUOTE_METRICS_TOKEN"); ok {
		if len(v) < minMetricsToken {
			// The value is a secret: never repeated in the error.
			errs = append(errs, fmt.Errorf("GPUQUOTE_METRICS_TOKEN: want at least %d characters (e.g. openssl rand -hex 32)", minMetricsToken))
		} else {
			c.MetricsToken = v
		}
	}
	if v, ok := get("GPUQUOTE_SMTP_URL"); ok {
		if sm, err := ParseSMTP(v); err != nil {
			errs = append(errs, err)
		} else {
			c.SMTP = sm
		}
	}
	if v, ok := get("GPUQUOTE_LOG_LEVEL"); ok {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Errorf("GPUQUOTE_LOG_LEVEL=%q: want debug, info, warn or error", v))
		}
	}
	bools := []struct {
		key string
		dst *bool
	}{
		{"GPUQUOTE_TLS", &c.TLS},
		{"GPUQUOTE_BENCH_ROUTES", &c.BenchRoutes},
		{"GPUQUOTE_ALLOW_SUPERUSER", &c.AllowSuperuser},
		{"GPUQUOTE_WEBHOOK_ALLOW_PRIVATE", &c.WebhookAllowPrivate},
		{"GPUQUOTE_WORKERS", &c.Workers},
	}
	for _, b := range bools {
		if v, ok := get(b.key); ok {
			x, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want true or false", b.key, v))
			}
			*b.dst = x
		}
	}
	if v, ok := get("GPUQUOTE_TRUSTED_PROXIES"); ok {
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				a, aerr := netip.ParseAddr(s)
				if aerr != nil {
					errs = append(errs, fmt.Errorf("GPUQUOTE_TRUSTED_PROXIES: %q is not a CIDR or address", s))
					continue
				}
				p = netip.PrefixFrom(a, a.BitLen())
			}
			c.TrustedProxies = append(c.TrustedProxies, p.Masked())
		}
	}
	durations := []struct {
		key string
		dst *time.Duration
	}{
		{"GPUQUOTE_SESSION_IDLE", &c.SessionIdle},
		{"GPUQUOTE_SESSION_MAX", &c.SessionMax},
		{"GPUQUOTE_REQUEST_TIMEOUT", &c.RequestTimeout},
		{"GPUQUOTE_HEADER_TIMEOUT", &c.HeaderTimeout},
		{"GPUQUOTE_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout},
		{"GPUQUOTE_REPLICA_MAX_LAG", &c.ReplicaMaxLag},
	}
	for _, d := range durations {
		if v, ok := get(d.key); ok {
			x, err := time.ParseDuration(v)
			if err != nil || x <= 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a positive duration such as 90m or 2h", d.key, v))
				continue
			}
			*d.dst = x
		}
	}
	if v, ok := get("GPUQUOTE_BODY_LIMIT"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_BODY_LIMIT=%q: want a byte count of at least 1024", v))
		} else {
			c.BodyLimit = n
		}
	}
	if v, ok := get("GPUQUOTE_DB_MAX_CONNS"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_DB_MAX_CONNS=%q: want a positive integer", v))
		} else {
			c.DBMaxConns = int32(n)
		}
	}
	if v, ok := get("GPUQUOTE_REPLICA_URLS"); ok {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				c.ReplicaURLs = append(c.ReplicaURLs, u)
			}
		}
	}
	if v, ok := get("GPUQUOTE_PUBLIC_RATE_LIMIT"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_PUBLIC_RATE_LIMIT=%q: want requests per second (0 = off)", v))
		} else {
			c.PublicRateLimit = n
		}
	}
	if v, ok := get("GPUQUOTE_COMPARE_CACHE"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_COMPARE_CACHE=%q: want a number of comparisons (0 = off)", v))
		} else {
			c.CompareCache = n
		}
	}
	if v, ok := get("GPUQUOTE_UPLOADS"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_UPLOADS=%q: want a number of uploads read at once, at least 1", v))
		} else {
			c.Uploads = n
		}
	}
	if v, ok := get("GPUQUOTE_UPLOAD_WAIT"); ok {
		x, err := time.ParseDuration(v)
		if err != nil || x < 0 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_UPLOAD_WAIT=%q: want a duration such as 5s (0s: no wait)", v))
		} else {
			c.UploadWait = x
		}
	}
	if v, ok := get("GPUQUOTE_PROPOSALS_PER_HOUR"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_PROPOSALS_PER_HOUR=%q: want a number of proposals (0 = no bound)", v))
		} else {
			c.ProposalsPerHour = n
		}
	}
	if v, ok := get("GPUQUOTE_PROPOSAL_STORAGE"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("GPUQUOTE_PROPOSAL_STORAGE=%q: want a byte count (0 = no bound)", v))
		} else {
			c.ProposalStorage = n
		}
	}
	if c.SessionIdle > c.SessionMax {
		errs = append(errs, errors.New("GPUQUOTE_SESSION_IDLE must not exceed GPUQUOTE_SESSION_MAX"))
	}
	return c, errors.Join(errs...)
}

// OwnerURL is the connection string of the tables' owner: what migrate,
// seed and user use.
func (c Config) OwnerURL() string {
	if c.OwnerDatabaseURL != "" {
		return c.OwnerDatabaseURL
	}
	return c.DatabaseURL
}

// RequireDatabase reports a clear error when serve has no database: it
// connects as the serving role, with DATABASE_URL alone.
func (c Config) RequireDatabase() error {
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is not set: serve connects with the serving role's URL (make run sets it for you; see README)")
	}
	return nil
}

// RequireOwnerDatabase reports a clear error when migrate, seed, user or
// app-url have no database: they connect as the tables' owner, from
// GPUQUOTE_OWNER_DATABASE_URL or else DATABASE_URL.
func (c Config) RequireOwnerDatabase() error {
	if c.OwnerURL() == "" {
		return errors.New("neither GPUQUOTE_OWNER_DATABASE_URL nor DATABASE_URL is set: set one to the tables' owner's URL (make run sets it for you; see README)")
	}
	return nil
}
