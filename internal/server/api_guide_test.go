package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// TestAPIGuideExamples runs every sh example of docs/API.md alone, each on
// its own test server holding nothing but the sample market, with the real
// curl and jq, as an admin whose token holds every scope (GPUQUOTE_URL,
// GPUQUOTE_TOKEN): a reader may run any one of them first, so none may
// lean on what another wrote (the comparison once compared only the quote
// the publishing example had published). Each must exit 0 (the examples
// use curl -f, so an HTTP error fails), and every answer from /api/ on the
// way is validated against the OpenAPI description (docs/RULES.md §19.6).
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
	for i, b := range blocks {
		t.Run(fmt.Sprintf("example %d", i+1), func(t *testing.T) {
			t.Parallel()
			runGuideExample(t, b[1])
		})
	}
}

// runGuideExample runs one example of the guide on a server of its own
// holding the sample market.
func runGuideExample(t *testing.T, script string) {
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

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	home := t.TempDir()
	cmd.Dir = home // where an example saves a file
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LC_ALL=C.UTF-8",
		"GPUQUOTE_URL=" + front.URL, "GPUQUOTE_TOKEN=" + token}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("this example of docs/API.md failed alone (%v):\n%s\n--- output:\n%s", err, script, out)
	}
}

// readmeFigure is a figure the comment under a README example promises
// (`# → … "key": "value" …`).
var readmeFigure = regexp.MustCompile(`"([a-z_]+)": ("[^"]*"|[0-9]+|null)`)

// TestREADMECurlExamples runs the README's curl examples against a test
// server (its address in place of the default http://127.0.0.1:8080): each
// must answer JSON without errors, and the figures its comment shows must
// be in the answer.
func TestREADMECurlExamples(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("the README's examples need curl (make test installs it): %v", err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	app := testutil.NewApp(t)
	ran := 0
	for _, b := range shBlock.FindAllStringSubmatch(string(readme), -1) {
		if !strings.HasPrefix(b[1], "curl ") {
			continue
		}
		ran++
		script := strings.ReplaceAll(b[1], "http://127.0.0.1:8080", app.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		cancel()
		var answer map[string]any
		if err != nil || json.Unmarshal(out, &answer) != nil || answer["errors"] != nil {
			t.Errorf("README example failed (%v):\n%s\n--- output:\n%s", err, b[1], out)
			continue
		}
		_, comment, _ := strings.Cut(b[1], "# →")
		for _, f := range readmeFigure.FindAllStringSubmatch(comment, -1) {
			if !bytes.Contains(out, []byte(`"`+f[1]+`":`+f[2])) {
				t.Errorf("README promises %s: %s, the answer is:\n%s", f[1], f[2], out)
			}
		}
	}
	if ran < 2 {
		t.Fatalf("%d curl examples found in README.md, want at least 2", ran)
	}
}
