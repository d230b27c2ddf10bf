package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// shBlock is a fenced sh example of the guide.
var shBlock = regexp.MustCompile("(?ms)^```sh\n(.*?)^```")

// TestAPIGuideExamples runs every sh example of docs/API.md, in order, with
// the real curl and jq against a test server holding the sample market, as
// an admin whose token holds every scope (GPUQUOTE_URL, GPUQUOTE_TOKEN).
// Each must exit 0 (the examples use curl -f, so an HTTP error fails), and
// every answer from /api/ on the way is validated against the OpenAPI
// description (docs/RULES.md §19.6).
func TestAPIGuideExamples(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"sh", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the guide's examples need %s (make test installs it): %v", tool, err)
		}
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shBlock.FindAllStringSubmatch(string(guide), -1)
	if len(blocks) < 7 {
		t.Fatalf("%d sh examples in docs/API.md, want at least 7", len(blocks))
	}

	app := testutil.NewApp(t)
	if err := sample.LoadMarket(context.Background(), app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	token, _ := apiToken(t, app, auth.RoleAdmin)

	// Every answer passes through a proxy that checks it against the
	// description, as testutil.Client does for the other tests.
	target, err := url.Parse(app.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		if !strings.HasPrefix(r.Request.URL.Path, "/api/") {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		testutil.CheckAPI(t, r.Request, r.StatusCode, r.Header, body)
		if r.StatusCode >= 400 {
			t.Logf("%s %s → %d %s", r.Request.Method, r.Request.URL, r.StatusCode, body)
		}
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	for i, b := range blocks {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-e", "-c", b[1])
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C.UTF-8",
			"GPUQUOTE_URL=" + front.URL, "GPUQUOTE_TOKEN=" + token}
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("example %d of docs/API.md failed (%v):\n%s\n--- output:\n%s", i+1, err, b[1], out)
		}
	}
}
