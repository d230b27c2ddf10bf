package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/i18n"
	"gpuquote/internal/loop"
	"gpuquote/internal/mail"
	"gpuquote/internal/routes"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/webhook"
)

// openStore opens the serving role's pool for cfg; the error is one clear
// line.
func openStore(ctx context.Context, cfg config.Config) (*store.Store, error) {
	if err := cfg.RequireDatabase(); err != nil {
		return nil, err
	}
	return openStoreAt(ctx, cfg, cfg.DatabaseURL)
}

// openOwnerStore opens a pool as the tables' owner (migrate, seed, user).
func openOwnerStore(ctx context.Context, cfg config.Config) (*store.Store, error) {
	if err := cfg.RequireOwnerDatabase(); err != nil {
		return nil, err
	}
	return openStoreAt(ctx, cfg, cfg.OwnerURL())
}

func openStoreAt(ctx context.Context, cfg config.Config, url string) (*store.Store, error) {
	pool, err := store.Open(ctx, url, cfg.DBMaxConns)
	if err != nil {
		return nil, err
	}
	return store.New(pool), nil
}

// newHasher bounds concurrent argon2id hashing to the CPU count: each hash
// holds 19 MiB, so a login storm waits instead of exhausting memory.
func newHasher() *auth.Hasher { return auth.NewHasher(auth.DefaultArgon2, runtime.GOMAXPROCS(0)) }

// serveGCPercent is the garbage collector's target when GOGC is not set.
// A page allocates about 2 MB that die with the request while the live heap
// stays small, so the default (100) collects every few dozen requests and
// its pauses and assists show in the latency tail: at 70 % of the compare
// page's maximum on two cores, p99 was 53 ms at 100 and 14 ms at 400
// (docs/PERFORMANCE.md), for a heap a few times larger.
const serveGCPercent = 400

// mailEvery is how often the mail sender looks for due mail.
const mailEvery = 15 * time.Second

// webhookEvery is how often the webhook sender looks for due deliveries.
const webhookEvery = 5 * time.Second

func serve(ctx context.Context, cfg config.Config, log *slog.Logger, stdout io.Writer) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Pool().Close()

	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = st.CheckSchema(cctx)
	cancel()
	if errors.Is(err, store.ErrSchemaOutdated) {
		return err
	}
	if err != nil {
		return fmt.Errorf("cannot reach PostgreSQL: %w", err)
	}
	if err := checkServingRole(ctx, st, cfg, log); err != nil {
		return err
	}
	if len(cfg.ReplicaURLs) > 0 {
		// Reads on hot standbys (docs/RULES.md §20.7): each is checked every
		// second; one that is down or lags is skipped until it catches up.
		if err := st.OpenReplicas(ctx, cfg.ReplicaURLs, cfg.DBMaxConns, cfg.ReplicaMaxLag); err != nil {
			return err
		}
		defer st.CloseReplicas()
		st.CheckReplicas(ctx)
		go st.RunReplicaChecks(ctx, store.ReplicaCheckEvery)
		log.Info("reads on replicas", "replicas", len(cfg.ReplicaURLs), "max_lag", cfg.ReplicaMaxLag.String())
	}

	catalog, err := i18n.Load()
	if err != nil {
		return err
	}
	srv, err := routes.New(ctx, server.Deps{Config: cfg, Store: st, Catalog: catalog, Logger: log, Hasher: newHasher()})
	if err != nil {
		return err
	}
	// The port first: a process that cannot serve starts no background
	// work, so its one line is the reason it stops.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", cfg.Addr, unwrapSyscall(err))
	}
	if cfg.SMTP != nil {
		// Mail on (docs/RULES.md §18.4): notices queue their mail from now
		// on, and the sender works through the queue until ctx ends.
		renderer := mail.Renderer{Catalog: catalog, BaseURL: cfg.BaseURL()}
		st.SetMail(&store.Mail{Render: renderer.Render, RenderDigest: renderer.RenderDigest})
		sender := mail.NewSender(st, *cfg.SMTP, cfg.BaseURL(), time.Now, log)
		if err := srv.RegisterMetrics(sender.Collectors()...); err != nil {
			return err
		}
		if cfg.Workers {
			go sender.Run(ctx, mailEvery)
		}
		log.Info("mail on", "smtp", cfg.SMTP.String(), "from", cfg.SMTP.From, "sending", cfg.Workers)
	}
	// Webhooks (docs/RULES.md §24.7): every serve process delivers what is
	// due; the queue's row locks keep each delivery to one at a time.
	hooks := webhook.NewSender(st, webhook.NewClient(cfg.WebhookAllowPrivate, cfg.BaseURL()), time.Now, log)
	if err := srv.RegisterMetrics(hooks.Collectors()...); err != nil {
		return err
	}
	if !cfg.Workers {
		// GPUQUOTE_WORKERS=0: pages and the API only; worker processes
		// send the mail and webhooks and check the watches.
		log.Info("background work off (GPUQUOTE_WORKERS=0)")
	} else {
		go hooks.Run(ctx, webhookEvery)
		// The daily check of report watches (docs/RULES.md §24.2): hourly,
		// so a day is never missed; each cause matches once whatever the
		// number of processes running it.
		go watchReports(ctx, st, log)
	}
	url := "http://" + ln.Addr().String()
	if cfg.TLS {
		url = "https://" + ln.Addr().String() + " (TLS terminated by your proxy)"
	}
	if cfg.MetricsAddr != "" {
		// Prometheus gets a listener of its own, off the site's port
		// (docs/RULES.md §16.6).
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("cannot listen on %s (GPUQUOTE_METRICS_ADDR): %w", cfg.MetricsAddr, unwrapSyscall(err))
		}
		go func() {
			if err := srv.ServeMetrics(ctx, mln); err != nil {
				log.Error("metrics listener stopped", "addr", mln.Addr().String(), "err", err)
			}
		}()
		log.Info("serving metrics", "addr", mln.Addr().String())
	}
	log.Info("serving", "addr", ln.Addr().String(), "schema", store.SchemaVersion)
	fmt.Fprintf(stdout, "gpuquote is serving at %s (Ctrl-C to stop)\n", url)
	return srv.Serve(ctx, ln)
}

// unwrapSyscall shortens "listen tcp 127.0.0.1:8080: bind: address already
// in use" to its last part.
func unwrapSyscall(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

func migrate(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	if err := cfg.RequireOwnerDatabase(); err != nil {
		return err
	}
	if err := store.EnsureDatabase(ctx, cfg.OwnerURL()); err != nil {
		return err
	}
	st, err := openOwnerStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Pool().Close()
	v, err := store.Migrate(ctx, st.Pool(), store.AppRole{Name: cfg.AppRole, Password: cfg.AppPassword})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "database schema at version %d; the server runs as role %s\n", v, cfg.AppRole)
	return nil
}

// errPrivileged is serve's one line when it connects with more privileges
// than it needs.
var errPrivileged = errors.New("serve refuses to connect as a PostgreSQL superuser or as the owner of the tables: " +
	"set DATABASE_URL to the serving role that 'gpuquote migrate' creates (GPUQUOTE_APP_ROLE, default gpuquote_app), " +
	"or GPUQUOTE_ALLOW_SUPERUSER=1 for a throwaway local database")

// checkServingRole refuses to serve as a role that could alter tables,
// disable their triggers or bypass them (docs/RULES.md §16.7), unless
// GPUQUOTE_ALLOW_SUPERUSER says so, which is logged as a warning.
func checkServingRole(ctx context.Context, st *store.Store, cfg config.Config, log *slog.Logger) error {
	p, err := st.CurrentPrivileges(ctx)
	if err != nil {
		return err
	}
	if !p.Superuser && !p.OwnsTables {
		return nil
	}
	if !cfg.AllowSuperuser {
		return fmt.Errorf("%w (connected as %q)", errPrivileged, p.Role)
	}
	log.WarnContext(ctx, "serving as a superuser or the tables' owner (GPUQUOTE_ALLOW_SUPERUSER=1): history is protected by triggers only",
		"role", p.Role, "superuser", p.Superuser)
	return nil
}

// appURL prints DATABASE_URL (or the owner's) rewritten to connect as the
// serving role, for scripts that migrate as the owner and then serve.
func appURL(cfg config.Config, stdout io.Writer) error {
	if err := cfg.RequireOwnerDatabase(); err != nil {
		return err
	}
	u, err := store.URLForRole(cfg.OwnerURL(), store.AppRole{Name: cfg.AppRole, Password: cfg.AppPassword})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, u)
	return nil
}

// watchReports checks the quotes approved reports rely on for the report
// watches once an hour until ctx ends (docs/RULES.md §24.2).
func watchReports(ctx context.Context, st *store.Store, log *slog.Logger) {
	loop.Every(ctx, time.Hour, func() {
		if n, err := st.CheckWatchedReports(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("watches: check reports", "err", err)
		} else if n > 0 {
			log.Info("watches: report quotes matched", "count", n)
		}
	})
}
