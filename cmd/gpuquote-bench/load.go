package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// target is one thing measured.
type target struct {
	name   string
	what   string // how it is described in the table
	req    vegeta.Target
	budget bool // held to the page targets (p99 < 25 ms at 70 %)
	// minRatio is the share of the Fortunes-style ceiling's maximum the
	// target must reach; maxP50 the median it must stay under at 70 %.
	minRatio float64
	maxP50   time.Duration
	// vary, when set, gives the n-th request's URL instead of req's (the
	// rest of req stays): a comparison nothing kept can answer.
	vary func(n uint64) string
	// want is what each row of a list holds; checkTargets refuses a list
	// with fewer than minRows of them.
	want    string
	minRows int
	// custom, when set, is the targeter itself (two processes in turn).
	custom vegeta.Targeter
}

// targeter sends t's request, or its varied URLs.
func (t target) targeter() vegeta.Targeter {
	if t.custom != nil {
		return t.custom
	}
	if t.vary == nil {
		return vegeta.NewStaticTargeter(t.req)
	}
	var n atomic.Uint64
	return func(tgt *vegeta.Target) error {
		*tgt = t.req
		tgt.URL = t.vary(n.Add(1) - 1)
		return nil
	}
}

// compareForm is the 20-quote comparison: steady use, every volume the
// lines price, report currency CNY.
func compareForm(v volume) url.Values {
	f := url.Values{"profile.hours_per_month": {"300"}, "profile.months": {"12"}, "profile.instances": {"2"},
		"profile.egress_gb_per_month": {"500"}, "profile.snapshot_gb": {"100"}, "report_currency": {"CNY"}}
	for _, id := range v.compareIDs {
		f.Add("q", itoa(id))
	}
	return f
}

// coldCompareForm is compareForm with the n-th of 600,000 monthly hours
// (100.000 to 699.999): more distinct comparisons than any cache keeps
// (docs/RULES.md §20.1), so each request is priced.
func coldCompareForm(v volume, n uint64) url.Values {
	f := compareForm(v)
	n %= 600_000
	f.Set("profile.hours_per_month", fmt.Sprintf("%d.%03d", 100+n/1000, n%1000))
	return f
}

// soakCompareForm is what the soak's readers compare: nine requests in ten
// one of 20 popular profiles, the tenth a profile nobody asked for before,
// so the kept comparisons fill to their bound and the oldest go.
func soakCompareForm(v volume, n uint64) url.Values {
	if n%10 == 9 {
		return coldCompareForm(v, n/10)
	}
	f := compareForm(v)
	f.Set("profile.months", strconv.FormatUint(1+n%20, 10))
	return f
}

const evaluateBody = `{"report_currency": "EUR", "quote": {"currency": "EUR", "gpu_model": "AMD Radeon AI PRO R9700", "gpu_count": 1,
 "hourly": "0.471", "monthly": "284", "billing_granularity": "second", "prices_include_tax": true, "as_of": "2026-11-20",
 "lines": [{"item": "egress", "status": "charged", "unit": "per_gb", "unit_price": "0.05"}]},
 "profile": {"hours_per_month": "300", "months": 12, "instances": 1, "egress_gb_per_month": "200"}}`

func benchTargets(base string, s session, v volume, reportID int64) []target {
	h := http.Header{"Cookie": {s.cookie}, "Accept-Encoding": {"gzip"}}
	get := func(path string) vegeta.Target {
		return vegeta.Target{Method: http.MethodGet, URL: base + path, Header: h}
	}
	rid := itoa(reportID)
	return []target{
		{name: "plaintext", what: "ceiling: fixed bytes (`/bench/plaintext`)", req: get("/bench/plaintext")},
		{name: "fortunes", what: "ceiling: Fortunes-style page (`/bench/fortunes`)", req: get("/bench/fortunes")},
		{name: "compare", what: "compare page, 20 quotes, warm (the same comparison each time)",
			req: get("/compare?" + compareForm(v).Encode()), budget: true, minRatio: 0.30},
		{name: "compare-cold", what: "compare page, 20 quotes, cold (a new usage profile each request: nothing kept answers)",
			req: get("/compare?" + compareForm(v).Encode()), budget: true, minRatio: 0.20, vary: func(n uint64) string {
				return base + "/compare?" + coldCompareForm(v, n).Encode()
			}},
		{name: "quotes", what: "quote list, filtered by GPU model and currency, page 3", budget: true, minRatio: 0.45,
			req: get("/quotes?gpu=" + itoa(v.filterGPU) + "&currency=EUR&page=3"), want: `<tr data-testid="quote-`, minRows: 50},
		{name: "search", what: "quote list, free-text search (`q=tier 4242`)", budget: true, minRatio: 0.35, maxP50: 5 * time.Millisecond,
			req: get("/quotes?q=tier+4242"), want: `<tr data-testid="quote-`, minRows: 11},
		{name: "report", what: "report view, 20 quotes", req: get("/reports/" + rid), budget: true, minRatio: 0.60},
		{name: "xlsx", what: "report XLSX export, 20 quotes", req: get("/reports/" + rid + "/export.xlsx"), budget: true},
		{name: "evaluate", what: "`POST /api/v1/tco/evaluate`", budget: true, req: vegeta.Target{Method: http.MethodPost,
			URL: base + "/api/v1/tco/evaluate", Body: []byte(evaluateBody),
			Header: http.Header{"Content-Type": {"application/json"}, "Accept-Encoding": {"gzip"}}}},
	}
}

// picked is ts, or those of them -only names.
func picked(o options, ts []target) []target {
	if o.only == "" {
		return ts
	}
	var out []target
	for _, t := range ts {
		if strings.Contains(","+o.only+",", ","+t.name+",") {
			out = append(out, t)
		}
	}
	return out
}

// checkTargets calls each target once: a target that does not answer 200
// would only measure an error page, and a list without the rows it names
// (want) an empty one.
func checkTargets(ctx context.Context, ts []target) error {
	for _, t := range ts {
		var tgt vegeta.Target
		if err := t.targeter()(&tgt); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, tgt.Method, tgt.URL, strings.NewReader(string(tgt.Body)))
		if err != nil {
			return err
		}
		req.Header = tgt.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			if r, err = gzip.NewReader(resp.Body); err != nil {
				resp.Body.Close()
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
		body, _ := io.ReadAll(r)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: status %d: %.300s", t.name, resp.StatusCode, body)
		}
		if n := strings.Count(string(body), t.want); t.want != "" && n < t.minRows {
			return fmt.Errorf("%s: %d rows (%q), want at least %d", t.name, n, t.want, t.minRows)
		}
	}
	return nil
}

// result is one target's figures.
type result struct {
	target
	max      float64 // successful requests per second, workers sending back to back
	maxErr   uint64
	rate     float64 // the constant rate, 70 % of max
	p50, p99 time.Duration
	rateErr  uint64
	requests uint64
}

// rateWorkers bounds the constant-rate runs' workers and connections:
// enough that a request is sent on time while earlier ones are still
// answered (no coordinated omission at the rates measured here), but not a
// new connection per request once the server falls behind, which would
// turn an overload into a collapse of the shared machine.
const rateWorkers = 64

func attack(ctx context.Context, t target, pacer vegeta.Pacer, workers uint64, d time.Duration) vegeta.Metrics {
	opts := []func(*vegeta.Attacker){vegeta.KeepAlive(true), vegeta.Timeout(10 * time.Second), vegeta.Redirects(vegeta.NoFollow),
		vegeta.Workers(min(workers, 8)), vegeta.MaxWorkers(workers), vegeta.Connections(int(workers)), vegeta.MaxConnections(int(workers))}
	a := vegeta.NewAttacker(opts...)
	var m vegeta.Metrics
	res := a.Attack(t.targeter(), pacer, d, t.name)
	for {
		select {
		case r, ok := <-res:
			if !ok {
				m.Close()
				return m
			}
			m.Add(r)
		case <-ctx.Done():
			a.Stop()
		}
	}
}

func failures(m vegeta.Metrics) uint64 {
	ok := uint64(m.StatusCodes["200"])
	if m.Requests < ok {
		return 0
	}
	return m.Requests - ok
}

// measure finds a target's maximum throughput, then its latency at 70 %
// of it with a constant-rate generator.
func measure(ctx context.Context, o options, t target) result {
	r := result{target: t}
	warm := attack(ctx, t, vegeta.Rate{Freq: 0}, o.workers, 2*time.Second)
	_ = warm
	m := attack(ctx, t, vegeta.Rate{Freq: 0}, o.workers, o.maxFor)
	r.max, r.maxErr = m.Throughput, failures(m)
	r.rate = r.max * 0.7
	if r.rate < 1 {
		r.rate = 1
	}
	time.Sleep(time.Second)
	c := attack(ctx, t, vegeta.Rate{Freq: int(r.rate), Per: time.Second}, rateWorkers, o.rateFor)
	r.p50, r.p99, r.rateErr, r.requests = c.Latencies.P50, c.Latencies.P99, failures(c), c.Requests
	logf("  %-9s max %8.0f req/s (%d failed) · at %6.0f req/s: p50 %v, p99 %v, %d of %d failed", t.name, r.max, r.maxErr,
		r.rate, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.rateErr, r.requests)
	return r
}

func bench(ctx context.Context, o options, db string, srv *server, v volume, ts []target) error {
	logf("measuring %d targets", len(ts))
	var results []result
	for _, t := range ts {
		if ctx.Err() != nil {
			return errStopped
		}
		results = append(results, measure(ctx, o, t))
	}
	if o.replica != "" {
		more, err := replicaTargets(ctx, o, db, srv, ts)
		if err != nil {
			return fmt.Errorf("two processes on a standby: %w", err)
		}
		results = append(results, more...)
	}
	var fortunes float64
	for _, r := range results {
		if r.name == "fortunes" {
			fortunes = r.max
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| what | max req/s | vs Fortunes | p50 at 70 %% | p99 at 70 %% | errors | target |\n|---|---:|---:|---:|---:|---:|---|\n")
	for _, r := range results {
		ratio := "—"
		if fortunes > 0 {
			ratio = fmt.Sprintf("%.0f %%", 100*r.max/fortunes)
		}
		verdict := ""
		if r.budget {
			var miss []string
			if r.p99 >= 25*time.Millisecond {
				miss = append(miss, "p99 ≥ 25 ms")
			}
			if r.minRatio > 0 && fortunes > 0 && r.max < r.minRatio*fortunes {
				miss = append(miss, fmt.Sprintf("< %.0f %% of Fortunes", 100*r.minRatio))
			}
			if r.maxP50 > 0 && r.p50 >= r.maxP50 {
				miss = append(miss, fmt.Sprintf("p50 ≥ %v", r.maxP50))
			}
			if r.maxErr+r.rateErr > 0 {
				miss = append(miss, "errors")
			}
			verdict = "met"
			if len(miss) > 0 {
				verdict = "missed: " + strings.Join(miss, ", ")
			}
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %d | %s |\n", r.what, r.max, ratio, ms(r.p50), ms(r.p99), r.maxErr+r.rateErr, verdict)
	}
	section := fmt.Sprintf("Measured %s on %s (%d cores; the server at GOMAXPROCS=2, PostgreSQL and the load generator on the same machine), commit `%s`.\n\n"+
		"Seeded: %s, %d reports. Maximum: %d workers sending back to back for %v; latency: a constant rate of 70 %% of that maximum for %v.\n\n%s",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU(), o.commit, v, 1000, o.workers, o.maxFor, o.rateFor, b.String())
	fmt.Print(b.String())
	if o.only != "" {
		return nil // a partial run does not replace the table
	}
	return writeSection(o.out, "bench", section)
}

// soak holds the compare page and the evaluation API at 70 % of their
// maximum for o.soak, sampling the server every 30 s.
func soak(ctx context.Context, o options, srv *server, v volume, ts []target) error {
	var picked []target
	for _, t := range ts {
		switch t.name {
		case "compare":
			// Many readers, many comparisons: the kept ones fill to their
			// bound and stay there (docs/RULES.md §20.1).
			t.what = "compare page, 20 quotes, 20 popular profiles and a new one every tenth request"
			t.vary = func(n uint64) string { return srv.url + "/compare?" + soakCompareForm(v, n).Encode() }
			picked = append(picked, t)
		case "evaluate":
			picked = append(picked, t)
		}
	}
	// Both run at once, so each gets half of the 70 %: 35 % of its own
	// maximum, together about 70 % of what the machine serves.
	share := 0.7 / float64(len(picked))
	rates := map[string]float64{}
	for _, t := range picked {
		m := attack(ctx, t, vegeta.Rate{Freq: 0}, o.workers, o.maxFor)
		rates[t.name] = m.Throughput * share
		logf("  %s: max %.0f req/s alone, soaking at %.0f", t.name, m.Throughput, rates[t.name])
	}
	type sample struct {
		at         time.Duration
		rssMiB     float64
		goroutines int
		// compared is how many priced comparisons the server keeps
		// (docs/RULES.md §20.1).
		compared int
		requests uint64
		failed   uint64
	}
	var samples []sample
	metrics := make([]*vegeta.Metrics, len(picked))
	done := make(chan struct{}, len(picked))
	sctx, cancel := context.WithTimeout(ctx, o.soak+30*time.Second)
	defer cancel()
	for i, t := range picked {
		metrics[i] = &vegeta.Metrics{}
		go func() {
			m := attack(sctx, t, vegeta.Rate{Freq: int(rates[t.name]), Per: time.Second}, rateWorkers, o.soak)
			*metrics[i] = m
			done <- struct{}{}
		}()
	}
	start := time.Now()
	take := func() {
		s := sample{at: time.Since(start).Round(time.Second), rssMiB: rssMiB(srv.pid),
			goroutines: int(metricValue(srv.metricsURL, "go_goroutines")),
			compared:   int(metricValue(srv.metricsURL, "gpuquote_compare_cache_entries"))}
		samples = append(samples, s)
		logf("  %v: RSS %.1f MiB, %d goroutines, %d comparisons kept", s.at, s.rssMiB, s.goroutines, s.compared)
	}
	take()
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for finished := 0; finished < len(picked); {
		select {
		case <-tick.C:
			take()
		case <-done:
			finished++
		case <-ctx.Done():
			return errStopped
		}
	}
	take()
	var b strings.Builder
	fmt.Fprintf(&b, "Soak measured %s on %s (%d cores), commit `%s`: %v, both targets at once at a constant rate, "+
		"each at %.0f %% of its own maximum (together about 70 %% of what the machine serves).\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"),
		cpuModel(), runtime.NumCPU(), o.commit, o.soak, share*100)
	b.WriteString("| target | rate asked req/s | rate sent req/s | requests | errors | p50 | p99 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for i, t := range picked {
		m := metrics[i]
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %d | %d | %s | %s |\n", t.what, rates[t.name], m.Rate, m.Requests, failures(*m),
			ms(m.Latencies.P50), ms(m.Latencies.P99))
	}
	b.WriteString("\n| elapsed | server RSS | goroutines | comparisons kept |\n|---:|---:|---:|---:|\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "| %v | %.1f MiB | %d | %d |\n", s.at, s.rssMiB, s.goroutines, s.compared)
	}
	fmt.Print(b.String())
	return writeSection(o.out, "soak", b.String())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// rssMiB is the resident memory of process pid, from /proc.
func rssMiB(pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// metricPrefixSum adds up the values of every series whose line starts
// with prefix (a metric and the start of its labels); -1 when the metrics
// cannot be read.
func metricPrefixSum(base, prefix string) float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, prefix) {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				n, _ := strconv.ParseFloat(line[i+1:], 64)
				sum += n
			}
		}
	}
	return sum
}

// metricValue reads the unlabelled metric name (go_goroutines,
// gpuquote_compare_cache_entries) from the server's metrics listener; -1
// when it cannot.
func metricValue(base, name string) float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			n, _ := strconv.ParseFloat(rest, 64)
			return n
		}
	}
	return -1
}

func cpuModel() string {
	out, err := exec.Command("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return runtime.GOARCH
	}
	return strings.TrimSpace(string(out))
}

// writeSection replaces the text between the markers of section in the
// markdown file (appending the markers when missing), keeping the rest.
func writeSection(path, section, body string) error {
	begin, end := "<!-- "+section+":begin -->", "<!-- "+section+":end -->"
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	block := begin + "\n" + body + end
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(end):]
	} else {
		if s != "" && !strings.HasSuffix(s, "\n\n") {
			s += "\n"
		}
		s += block + "\n"
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		return err
	}
	logf("wrote the %s results to %s", section, path)
	return nil
}
