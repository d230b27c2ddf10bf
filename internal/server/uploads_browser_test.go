package server_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserProposalFileTooLarge: in Chromium, an analyst fills the
// proposal form, pastes the vendor's message, sets a line and chooses a
// 6 MiB PDF; the form comes back (not a bare "413" page) with everything
// typed and, under the file field, an error naming the file and the 5 MiB
// limit (docs/RULES.md §18.1).
func TestBrowserProposalFileTooLarge(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	pid, gid := marketRefs(app)
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	big := filepath.Join(t.TempDir(), "HOSTKEY 报价单 6 MiB.pdf")
	if err := os.WriteFile(big, append(append([]byte{}, proposalPDF...), bytes.Repeat([]byte("0"), 6<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password), chromedp.Navigate(app.URL+"/quotes/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="proposal-form"]`))); err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"platform": itoa(pid), "gpu_model": itoa(gid), "label": "R9700 · 大文件", "gpu_count": "1",
		"sharing": "dedicated", "currency": "EUR", "hourly": "0.471", "billing_granularity": "second",
		"as_of": "2026-11-20", "source": "销售邮件", "vendor_message": "您好，附件是完整报价单。\n— HOSTKEY sales",
		"egress.status": "charged", "egress.unit": "per_gb", "egress.unit_price": "0.8",
	}
	fill := `(function(f, vals) {
		for (const [name, v] of Object.entries(vals)) {
			const el = f.elements[name];
			if (!el) { return "missing " + name; }
			el.value = v;
		}
		return "";
	})(document.querySelector('[data-testid="proposal-form"]'), ` + jsObject(fields) + `)`
	if missing, err := chromedp.Run(b, chromedp.Evaluate[string](fill)); err != nil || missing != "" {
		t.Fatalf("fill the proposal form: %q %v", missing, err)
	}
	// The answer is the form with the file's error, or an error page.
	if err := chromedp.Do(b, chromedp.SetUploadFiles(chromedp.CSS(`#f-vendor_file`), []string{big}),
		chromedp.Click(chromedp.CSS(`[data-testid="proposal-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-vendor_file"], [data-testid="error-page"]`))); err != nil {
		t.Fatal(err)
	}
	if page, _ := chromedp.Run(b, chromedp.Evaluate[string](`(document.querySelector('[data-testid="error-page"]') || {}).innerText || ""`)); page != "" {
		t.Fatalf("an error page instead of the form: %q", page)
	}
	msg, err := chromedp.Run(b, chromedp.Text(chromedp.CSS(`[data-testid="error-vendor_file"]`)))
	if err != nil || !strings.Contains(msg, "HOSTKEY 报价单 6 MiB.pdf") || !strings.Contains(msg, "5 MiB") {
		t.Errorf("the file's error: %q %v", msg, err)
	}
	kept := `(function(f) {
		const out = {};
		for (const name of ["label", "vendor_message", "hourly", "egress.status", "egress.unit_price"]) { out[name] = f.elements[name].value; }
		return out;
	})(document.querySelector('[data-testid="proposal-form"]'))`
	got, err := chromedp.Run(b, chromedp.Evaluate[map[string]string](kept))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range got {
		if v != fields[name] {
			t.Errorf("%s is not kept: %q, want %q", name, v, fields[name])
		}
	}
	testutil.Screenshot(t, b, "proposal-file-too-large-zh-1280")
}
