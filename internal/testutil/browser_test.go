package testutil

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestBrowserTabsAreSeparate: two tests' tabs in the shared Chromium keep
// their cookies apart, and each sees a 1280 × 900 window asking for
// Chinese first.
func TestBrowserTabsAreSeparate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "who", Value: "a", Path: "/"})
		}
		c, _ := r.Cookie("who")
		v := "none"
		if c != nil {
			v = c.Value
		}
		fmt.Fprintf(w, `<!doctype html><title>t</title><p id="who">%s</p><p id="lang">%s</p>`, v, r.Header.Get("Accept-Language"))
	}))
	t.Cleanup(srv.Close)
	a, b := Browser(t), Browser(t)
	type seen struct {
		Who  string
		Lang string
		W, H int
	}
	read := func(ctx context.Context, path string) seen {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+path)); err != nil {
			t.Fatal(err)
		}
		s, err := chromedp.Run(ctx, chromedp.Evaluate[seen](`({Who: document.getElementById("who").textContent,
			Lang: document.getElementById("lang").textContent, W: window.innerWidth, H: window.innerHeight})`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := read(a, "/set"); s.Who != "none" {
		t.Fatalf("tab a before its cookie: %q", s.Who)
	}
	if s := read(b, "/get"); s.Who != "none" || s.W != 1280 || s.H != 900 || !strings.HasPrefix(s.Lang, "zh-CN") {
		t.Errorf("tab b: %+v; want no cookie, 1280 × 900, zh-CN first", s)
	}
	if s := read(a, "/get"); s.Who != "a" {
		t.Errorf("tab a lost its own cookie: %q", s.Who)
	}
}
