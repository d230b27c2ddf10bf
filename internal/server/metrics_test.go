package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/testutil"
)

// TestMetricsReadableByScrapers: a scraper asking for gzip (as Go's client
// and Prometheus do) reads plain text after one decompression — the
// exposition is compressed once, not twice.
func TestMetricsReadableByScrapers(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	resp, err := http.Get(app.URL + "/metrics") // the transport asks for gzip and unpacks it
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "\ngo_goroutines ") {
		t.Fatalf("/metrics: %d, %d bytes without go_goroutines: %.80q", resp.StatusCode, len(body), body)
	}
}
