package testutil

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's Chromium (CHROMIUM_PATH overrides).
func chromiumPath() (string, bool) {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// Browser starts a headless Chromium for this test and returns its context,
// bounded to two minutes. Without Chromium the test fails unless
// GPUQUOTE_SKIP_BROWSER=1 says to skip (make test installs Chromium).
func Browser(t testing.TB) context.Context {
	t.Helper()
	path, ok := chromiumPath()
	if !ok {
		if os.Getenv("GPUQUOTE_SKIP_BROWSER") == "1" {
			t.Skip("Chromium not installed and GPUQUOTE_SKIP_BROWSER=1")
		}
		t.Fatal("Chromium not found: install it (apt-get install -y chromium) or run make test, which does")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// The users read Chinese first: the browser asks for it like theirs would.
		chromedp.Flag("accept-lang", "zh-CN,zh;q=0.9,en;q=0.5"),
		chromedp.Flag("lang", "zh-CN"),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	// Start the browser now, on a context without a deadline (see chromedp.Run).
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("start Chromium: %v", err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelT()
		cancelCtx()
		cancelAlloc()
	})
	return tctx
}

// Screenshot saves a full-page PNG under the test's temp dir (and, when
// GPUQUOTE_SCREENSHOT_DIR is set, a copy there) and returns its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return saveScreenshot(t, name, png)
}

// saveScreenshot writes png under the test's temp dir (and, when
// GPUQUOTE_SCREENSHOT_DIR is set, a copy there) and returns its path.
func saveScreenshot(t testing.TB, name string, png []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("GPUQUOTE_SCREENSHOT_DIR"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s is not a PNG image (%d bytes)", name, len(png))
	}
	return p
}

// ViewportScreenshot scrolls the element sel into view and saves what the
// viewport shows, like Screenshot; it is what a reader sees at that point
// of a page, at the browser's width.
func ViewportScreenshot(t testing.TB, ctx context.Context, name, sel string) string {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel))); err != nil {
		t.Fatalf("scroll to %s: %v", sel, err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return saveScreenshot(t, name, png)
}
