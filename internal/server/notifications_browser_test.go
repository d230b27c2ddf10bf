package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserNotificationsPage shows an author's notifications (one
// returned with a long comment, one approved) at a phone's and a desktop's
// width in both languages: nothing scrolls sideways, and the open button
// works without script. GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserNotificationsPage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	author := app.Client()
	author.Login(email, password)
	finEmail, _, finID := app.CreateUser(auth.RoleFinance)
	fin := user.Actor{UserID: finID, Email: finEmail}
	q := publishedQuote(app)
	var ids []int64
	for _, title := range []string{"华东训练集群 H100 八卡一年期对比（含存储与出网流量）", "推理服务"} {
		id := saveReport(t, author, reportForm(title, "200", q))
		if r := author.PostForm("/reports/"+itoa(id)+"/submit", nil); r.StatusCode != 303 {
			t.Fatalf("submit: %d", r.StatusCode)
		}
		ids = append(ids, id)
	}
	long := "请按 12 个月重新计算，并把出网流量按每月 50 TB 计入；" + strings.Repeat("https://example.com/a-very-long-link-without-spaces/", 3)
	if err := app.Store.ReturnReport(ctx, fin, time.Now(), ids[0], long); err != nil {
		t.Fatal(err)
	}
	if err := app.Store.ApproveReport(ctx, fin, time.Now(), ids[1], ""); err != nil {
		t.Fatal(err)
	}

	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, b, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+"/notifications"),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="notify-list"]`))); err != nil {
				t.Fatalf("%s at %d: %v", lang, width, err)
			}
			wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				t.Errorf("%s notifications at %d px scroll sideways", lang, width)
			}
			testutil.Screenshot(t, b, fmt.Sprintf("notifications-%s-%d", lang, width))
		}
	}
	// Open the newest (approved) with the keyboard: the report, and one
	// fewer unread in the navigation.
	if err := chromedp.Do(b, chromedp.Navigate(app.URL+"/notifications"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="notify-list"]`)),
		chromedp.Focus(chromedp.CSS(`[data-testid="notify-open"]`)), chromedp.KeyEvent("\r"),
		// The report's page, whole (its footer is the last thing it sends):
		// the list's own navigation would match before the report arrives.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-doc"]`)), chromedp.WaitReady(chromedp.CSS(`footer`))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(b, chromedp.Evaluate[string](`location.pathname + " " + (document.querySelector('[data-testid="nav-unread"] [aria-hidden]')||{}).textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if loc != "/reports/"+itoa(ids[1])+" 1" {
		t.Errorf("after opening: %q, want the approved report and 1 unread", loc)
	}
}
