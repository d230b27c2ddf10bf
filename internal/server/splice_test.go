package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// encoded is one answer as sent: its headers and its body undecoded.
type encoded struct {
	header http.Header
	body   []byte
}

// getEncoded asks for path as c does, accepting the encoding named ("" for
// none), and keeps the body as sent (the client decodes nothing it was not
// asked to).
func getEncoded(t *testing.T, app *testutil.App, c *testutil.Client, path, accept, lang string) encoded {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Set, so the transport neither adds gzip nor decodes it.
	req.Header.Set("Accept-Encoding", accept)
	if accept == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	req.Header.Set("Accept-Language", lang)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", path, resp.StatusCode)
	}
	return encoded{header: resp.Header, body: b}
}

// gunzipped is a gzip body decoded by Go's reader (which checks its CRC-32
// and size) and, when the gzip tool is there, tested by it (gzip -t).
func gunzipped(t *testing.T, e encoded) string {
	t.Helper()
	if ce := e.header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	if !slices.ContainsFunc(e.header.Values("Vary"), func(v string) bool { return strings.Contains(v, "Accept-Encoding") }) {
		t.Errorf("Vary %q does not name Accept-Encoding", e.header.Values("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(e.body))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("the gzip stream does not read: %v", err)
	}
	if rest, _ := io.ReadAll(zr); len(rest) > 0 {
		t.Fatalf("%d bytes after the gzip stream", len(rest))
	}
	if path, err := exec.LookPath("gzip"); err == nil {
		cmd := exec.Command(path, "-t")
		cmd.Stdin = bytes.NewReader(e.body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gzip -t: %v: %s", err, out)
		}
	}
	return string(plain)
}

// TestReportSplicedGzip: a report page sent gzipped splices its kept
// parts' own compression (docs/RULES.md §20.5), and decompressed it is the
// plain page byte for byte, in both languages, on the read that draws the
// parts and on those that find them kept.
func TestReportSplicedGzip(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, analyst, marketForm("压缩拼接", a, b))
	path := "/reports/" + itoa(id)
	analyst.Get(path) // the one-time "saved" message
	for _, lang := range []string{"zh-CN", "en", "zh-CN", "en"} {
		gz := getEncoded(t, app, analyst, path, "gzip", lang)
		plain := getEncoded(t, app, analyst, path, "", lang)
		if ce := plain.header.Get("Content-Encoding"); ce != "" {
			t.Fatalf("asked for no encoding, got %q", ce)
		}
		if got := gunzipped(t, gz); got != string(plain.body) {
			t.Fatalf("%s: the gzipped page differs from the plain one:\n%s", lang, firstDiff(string(plain.body), got))
		}
		if !strings.Contains(string(plain.body), `data-testid="report-table-section"`) {
			t.Fatalf("%s: no table on the page", lang)
		}
		kept, ok := app.Server.Frozen.Get(server.FrozenKey{ID: id, Kind: "view", Lang: lang})
		if !ok || kept.(web.ReportView).FrozenHTML == nil {
			t.Fatalf("%s: no kept parts", lang)
		}
		block := kept.(web.ReportView).FrozenHTML
		if !bytes.Contains(gz.body, block.Deflated()) || !strings.Contains(string(plain.body), block.HTML()) {
			t.Fatalf("%s: the kept parts' compression is not spliced into the page", lang)
		}
	}
	// A client asking for gzip at quality 0 gets the page plain.
	if e := getEncoded(t, app, analyst, path, "gzip;q=0", "en"); e.header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0: Content-Encoding %q", e.header.Get("Content-Encoding"))
	}
}

// metric is a counter's value on app's /metrics.
func metric(t *testing.T, app *testutil.App, name string) int {
	t.Helper()
	w := httptest.NewRecorder()
	app.Server.MetricsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, l := range strings.Split(w.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	t.Fatalf("no %s on /metrics", name)
	return 0
}

// TestCompareResultsKeptAndSpliced: the compare page's results kept with a
// kept comparison (docs/RULES.md §20.5) leave the page byte for byte what
// a server keeping nothing draws, in both languages, read plain or
// gzipped (the gzip stream read back whole by Go's reader and gzip -t),
// on the read that draws them and on those that find them kept; and the
// kept results' compression is spliced, the same bytes in every answer.
func TestCompareResultsKeptAndSpliced(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.CompareCache = 16 })
	off := testutil.NewAppOn(t, app.Store, func(d *server.Deps) { d.Config.CompareCache = 0 })
	lines := testfactory.AllIncluded()
	lines[1] = quote.Line{Item: "egress", Status: "unconfirmed"}
	eur := publishQuote(app, "EUR", "0.5", "", lines)
	eur2 := publishQuote(app, "EUR", "0.7", "300", lines)
	c, _ := app.AsUser(auth.RoleAnalyst)
	state := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "report_currency": {"EUR"}, "q": {itoa(eur), itoa(eur2)}}
	path := "/compare?" + state.Encode()
	drawn := metric(t, app, "gpuquote_compare_results_drawn_total")
	for i, lang := range []string{"zh-CN", "en", "zh-CN", "en", "zh-CN"} {
		gz := getEncoded(t, app, c, path, "gzip, deflate", lang)
		plain := getEncoded(t, app, c, path, "", lang)
		fresh := getEncoded(t, off, c, path, "", lang)
		if !strings.Contains(string(plain.body), `data-testid="row-`) {
			t.Fatalf("%s: no results on the page", lang)
		}
		if string(plain.body) != string(fresh.body) {
			t.Fatalf("read %d (%s): the page with results kept differs from a server's keeping none:\n%s", i, lang,
				firstDiff(string(fresh.body), string(plain.body)))
		}
		if got := gunzipped(t, gz); got != string(plain.body) {
			t.Fatalf("read %d (%s): the gzipped page differs from the plain one:\n%s", i, lang, firstDiff(string(plain.body), got))
		}
		// Splicing ends the compressor's blocks with a sync flush (an empty
		// stored block, 00 00 ff ff) before the kept block and the kept
		// block ends with one: a stream compressed in one go has none.
		if n := bytes.Count(gz.body, []byte{0, 0, 0xff, 0xff}); n < 2 {
			t.Errorf("read %d (%s): %d sync flushes in the stream: nothing spliced", i, lang, n)
		}
		if n := metric(t, app, "gpuquote_compare_results_drawn_total"); i < 2 && n != drawn+1 || i >= 2 && n != drawn {
			t.Errorf("read %d (%s): results drawn %d → %d", i, lang, drawn, n)
		} else {
			drawn = n
		}
	}
	// HTMX asks for the results alone: spliced alike.
	req, _ := http.NewRequest(http.MethodGet, app.URL+path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	hx := gunzipped(t, encoded{header: resp.Header, body: body})
	if strings.Contains(hx, "<html") || !strings.Contains(hx, `data-testid="row-`) {
		t.Fatalf("the htmx answer is not the results alone: %.200s", hx)
	}
	if !slices.Contains(resp.Header.Values("Vary"), "HX-Request") {
		t.Errorf("Vary %q does not name HX-Request", resp.Header.Values("Vary"))
	}
}

// BenchmarkComparePage20WarmGzip is BenchmarkComparePage20Warm asked for
// gzip, as browsers ask: the page's compression counts.
func BenchmarkComparePage20WarmGzip(b *testing.B) {
	h, req := setupComparePage20(b)
	req.Header.Set("Accept-Encoding", "gzip")
	serveLoop(b, h, req, "gzip-bytes")
}

// BenchmarkComparePage20MissGzip is BenchmarkComparePage20Miss asked for
// gzip.
func BenchmarkComparePage20MissGzip(b *testing.B) {
	h, req := setupComparePage20(b)
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	var size int
	for i := 0; b.Loop(); i++ {
		q := req.URL.Query()
		q.Set("profile.hours_per_month", strconv.Itoa(1+i%730))
		r := req.Clone(b.Context())
		r.URL.RawQuery = q.Encode()
		r.RequestURI = r.URL.RequestURI()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "gzip-bytes")
}
