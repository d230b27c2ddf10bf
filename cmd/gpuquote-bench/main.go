// Command gpuquote-bench measures gpuquote under load against ceilings
// served by the same binary, and writes the results to a markdown file.
//
// It creates a private database, seeds it with a realistic volume, starts
// the server binary on a loopback port with GOMAXPROCS=2, and drives it
// with vegeta: for each target, the most it sustains (as many requests as
// a fixed number of workers can send), then p50/p99 latency at a constant
// 70 % of that rate (a constant-rate generator, so slow answers cannot
// hold back the requests behind them). With -soak it instead holds the
// compare page and the evaluation API at 70 % for the given time, sampling
// the server's resident memory, goroutines and kept comparisons every 30 s.
//
// Every request goes to loopback only, and every phase is bounded in time.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

type options struct {
	databaseURL string
	server      string
	out         string
	commit      string
	quotes      int
	maxFor      time.Duration
	rateFor     time.Duration
	workers     uint64
	soak        time.Duration
	keep        bool
	hold        bool
	only        string
	replica     string
}

func main() {
	var o options
	flag.StringVar(&o.databaseURL, "database", os.Getenv("DATABASE_URL"), "PostgreSQL URL whose server gets the private database `gpuquote_bench` (the database name in the URL is replaced)")
	flag.StringVar(&o.server, "server", "bin/gpuquote", "the gpuquote binary to measure")
	flag.StringVar(&o.out, "out", "docs/PERFORMANCE.md", "markdown file the results are written to")
	flag.StringVar(&o.commit, "commit", "", "the commit measured, named in the results")
	flag.IntVar(&o.quotes, "quotes", 100_000, "quotes to seed")
	flag.DurationVar(&o.maxFor, "max-for", 8*time.Second, "how long each maximum-throughput run lasts")
	flag.DurationVar(&o.rateFor, "rate-for", 12*time.Second, "how long each constant-rate run lasts")
	flag.Uint64Var(&o.workers, "workers", 8, "concurrent workers of the maximum-throughput runs")
	flag.DurationVar(&o.soak, "soak", 0, "run the soak test for this long instead of the benchmark (e.g. 10m)")
	flag.BoolVar(&o.keep, "keep", false, "keep the private database afterwards")
	flag.BoolVar(&o.hold, "hold", false, "seed and start the server, print its address and an admin's session cookie, and wait until interrupted (for profiling with the metrics listener's /debug/pprof/)")
	flag.StringVar(&o.only, "only", "", "measure only these targets (comma-separated names: plaintext, fortunes, compare, compare-cold, quotes, search, report, xlsx, evaluate); the results are printed, not written")
	flag.StringVar(&o.replica, "replica", "", "URL of a hot standby of -database's server (its database name is replaced): also measure the compare page on two server processes whose reads go to it (make bench REPLICA=1)")
	flag.Parse()
	if o.databaseURL == "" {
		fmt.Fprintln(os.Stderr, "gpuquote-bench: -database or DATABASE_URL is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpuquote-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	logf("preparing the private database")
	db, err := createDatabase(ctx, o.databaseURL, "gpuquote_bench")
	if err != nil {
		return err
	}
	defer func() {
		if !o.keep {
			if err := dropDatabase(context.WithoutCancel(ctx), o.databaseURL, "gpuquote_bench"); err != nil {
				logf("could not drop the private database: %v", err)
			}
		}
	}()
	start := time.Now()
	vol, err := seed(ctx, db, o.quotes)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	logf("seeded in %v: %s", time.Since(start).Round(time.Second), vol)

	srv, err := startServer(ctx, o.server, db)
	if err != nil {
		return err
	}
	defer srv.stop()
	sess, err := login(ctx, srv.url, vol.analystEmail, vol.password)
	if err != nil {
		return err
	}
	reportID, err := seedReports(ctx, srv.url, sess, db, vol)
	if err != nil {
		return fmt.Errorf("seed reports: %w", err)
	}
	targets := benchTargets(srv.url, sess, vol, reportID)
	if o.soak == 0 && !o.hold {
		targets = picked(o, targets)
	}
	if err := checkTargets(ctx, targets); err != nil {
		return err
	}
	if o.hold {
		admin, err := login(ctx, srv.url, "bench-001@example.test", vol.password)
		if err != nil {
			return err
		}
		logf("holding: %s, an admin's %s, profiles at %s/debug/pprof/; targets:", srv.url, admin.cookie, srv.metricsURL)
		for _, t := range targets {
			logf("  %s %s", t.name, t.req.URL)
		}
		<-ctx.Done()
		return nil
	}
	if o.soak > 0 {
		return soak(ctx, o, srv, vol, targets)
	}
	return bench(ctx, o, db, srv, vol, targets)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// errStopped is returned when the run was interrupted.
var errStopped = errors.New("interrupted")
