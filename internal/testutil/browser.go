package testutil

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's Chromium (CHROMIUM_PATH overrides).
func chromiumPath() (string, bool) {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p, true
	}
	// The old headless shell first: the tests need no browser window, and
	// it starts and renders faster than the full browser's headless mode.
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// browserTimeout bounds each test's browser work.
const browserTimeout = 3 * time.Minute

// shared is the one headless Chromium a test binary's browser tests share:
// starting one per test cost a second or two of CPU each. Each test gets a
// tab in a browser context of its own (its own cookies, storage and
// cache), as a new incognito window has.
var shared struct {
	mu     sync.Mutex
	main   bool // Main runs this binary's tests and will close the browser
	ctx    context.Context
	cancel func()
	dir    string
}

// Main runs a package's tests, then stops the Chromium its browser tests
// shared and removes its profile folder. A package with browser tests calls
// it from TestMain: func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }.
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cancel != nil {
		shared.cancel()
		_ = os.RemoveAll(shared.dir)
		shared.ctx, shared.cancel = nil, nil
	}
	return code
}

// sharedBrowser starts the binary's Chromium on first use.
func sharedBrowser(t testing.TB) context.Context {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.main {
		t.Fatal("browser tests share one Chromium that testutil.Main stops: add func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) } to the package")
	}
	if shared.ctx != nil {
		return shared.ctx
	}
	path, ok := chromiumPath()
	if !ok {
		if os.Getenv("GPUQUOTE_SKIP_BROWSER") == "1" {
			t.Skip("Chromium not installed and GPUQUOTE_SKIP_BROWSER=1")
		}
		t.Fatal("Chromium not found: install it (apt-get install -y chromium) or run make test, which does")
	}
	dir, err := os.MkdirTemp("", "gpuquote-chromium-")
	if err != nil {
		t.Fatal(err)
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
		// Tests run side by side in tabs of one browser: a tab that is not
		// in front must not have its timers slowed or its renderer put to
		// sleep, or every test waits on the others.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-ipc-flooding-protection", true),
		// Site isolation gives every test page its own renderer process; the
		// tests load one site, loopback, and pay for the processes only.
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,IsolateOrigins,site-per-process"),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(dir),
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
		_ = os.RemoveAll(dir)
		t.Fatalf("start Chromium: %v", err)
	}
	shared.ctx, shared.dir = ctx, dir
	shared.cancel = func() { cancelCtx(); cancelAlloc() }
	return ctx
}

// Browser opens a tab for this test in the package's shared headless
// Chromium, in a browser context of its own, 1280 × 900 px, and returns its
// context, bounded to three minutes. Without Chromium the test fails unless
// GPUQUOTE_SKIP_BROWSER=1 says to skip (make test installs Chromium).
func Browser(t testing.TB) context.Context {
	t.Helper()
	browser := sharedBrowser(t)
	tab, cancelTab := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		cancelTab()
		t.Fatalf("open a Chromium tab: %v", err)
	}
	tctx, cancelT := context.WithTimeout(tab, browserTimeout)
	t.Cleanup(func() {
		cancelT()
		cancelTab()
	})
	return tctx
}

// Screenshot saves the page as a JPEG — the whole of it, or its top
// maxScreenshotHeight pixels when it is longer — under the test's temp dir
// and, when GPUQUOTE_SCREENSHOT_DIR is set, a copy there, and returns its
// path. Without GPUQUOTE_SCREENSHOT_DIR nobody keeps the file (the temp dir
// goes with the test), so it captures only what the viewport shows: the
// page still has to paint into an image, and make test spends no CPU on
// painting and encoding a page-long one (about a fifth of what a browser
// test costs).
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	capture := pageTop()
	if os.Getenv("GPUQUOTE_SCREENSHOT_DIR") == "" {
		capture = chromedp.CaptureScreenshot()
	}
	img, err := chromedp.Run(ctx, capture)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return saveScreenshot(t, name, img)
}

// saveScreenshot writes img (a PNG or a JPEG image) under the test's temp
// dir (and, when GPUQUOTE_SCREENSHOT_DIR is set, a copy there) and returns
// its path.
func saveScreenshot(t testing.TB, name string, img []byte) string {
	t.Helper()
	var ext string
	switch {
	case len(img) > 1000 && string(img[1:4]) == "PNG":
		ext = ".png"
	case len(img) > 1000 && img[0] == 0xFF && img[1] == 0xD8 && img[2] == 0xFF:
		ext = ".jpg"
	default:
		t.Fatalf("screenshot %s is neither a PNG nor a JPEG image (%d bytes)", name, len(img))
	}
	p := filepath.Join(t.TempDir(), name+ext)
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("GPUQUOTE_SCREENSHOT_DIR"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, name+ext), img, 0o644)
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

// maxScreenshotHeight bounds a page's screenshot: an API description
// unfolded is over 100,000 px long at a phone's width, which took Chromium
// seconds to paint and encode and nobody scrolls through as an image.
const maxScreenshotHeight = 8000

// pageTop captures the page from its top, beyond the viewport, at most
// maxScreenshotHeight CSS pixels of it, as a JPEG: encoding a page-long
// PNG took Chromium about as much CPU as everything else a browser test
// does, a JPEG at quality 80 a tenth of it, and reads as well.
func pageTop() chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		if m.CSSContentSize == nil {
			return nil, errors.New("no layout metrics")
		}
		clip := page.Viewport{Width: math.Ceil(m.CSSContentSize.Width), Height: math.Min(math.Ceil(m.CSSContentSize.Height), maxScreenshotHeight), Scale: 1}
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatJpeg, Quality: &screenshotQuality, CaptureBeyondViewport: &yes, FromSurface: &yes, Clip: &clip})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

var yes = true

// screenshotQuality is the JPEG quality of page screenshots (pageTop).
var screenshotQuality int64 = 80
