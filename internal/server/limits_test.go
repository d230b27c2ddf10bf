package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// TestOversizedPostGetsATranslatedSignedInPage: a body over the limit (the
// calculator's global one, a trial paste's own) is refused with a 413 page
// in the reader's language that still shows who is signed in, never the
// catalog's raw keys.
func TestOversizedPostGetsATranslatedSignedInPage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, id := app.AsUser(auth.RoleAnalyst)
	u, err := app.Store.UserByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	posts := []struct {
		path  string
		bytes int
	}{
		{"/calculator", int(app.Config.BodyLimit) + 1<<20},
		{"/trials/" + itoa(routeTrial(app)) + "/nvidia-smi", 4 << 20},
	}
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		tr := app.Catalog.Translator(lang)
		for _, p := range posts {
			form := url.Values{"_csrf": {c.CSRF}, "output": {strings.Repeat("x", p.bytes)}}
			req, _ := http.NewRequest(http.MethodPost, app.URL+p.path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept-Language", string(lang))
			r := c.Do(req)
			if r.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("%s %s, %d bytes: %d, want 413", lang, p.path, p.bytes, r.StatusCode)
				continue
			}
			for _, want := range []string{tr.T("error.413.title"), tr.T("error.413.text"), `data-testid="current-user">` + u.DisplayName + "<"} {
				if !strings.Contains(r.Body, want) {
					t.Errorf("%s %s: the 413 page lacks %q", lang, p.path, want)
				}
			}
			if strings.Contains(r.Body, "[error.") || strings.Contains(r.Body, "[app.") {
				t.Errorf("%s %s: the 413 page shows raw catalog keys", lang, p.path)
			}
		}
	}
}

// TestFormsStateTheBodyLimit: the calculator form carries the limit the
// server enforces (for its script) and says it beside the submit button.
func TestFormsStateTheBodyLimit(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.BodyLimit = 2 << 20 })
	r := app.Client().Get("/calculator")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("calculator: %d", r.StatusCode)
	}
	if want := `data-max-bytes="` + strconv.Itoa(2<<20) + `"`; !strings.Contains(r.Body, want) {
		t.Errorf("the calculator form lacks %s", want)
	}
	if want := app.Catalog.Translator(i18n.ZH).T("limits.form", "Size", "2 MiB"); !strings.Contains(r.Body, want) {
		t.Errorf("the calculator page lacks %q", want)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 64 << 10: "64 KiB", 1 << 20: "1 MiB", 20 << 20: "20 MiB",
		3<<20 + 64<<10: "3 MiB", 1<<20 + 700<<10: "1.6 MiB", 1<<20 - 1: "1023 KiB"} {
		if got := web.ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// syncBuffer is a log sink several requests may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientGoneIsNotAServerError: a request whose client went away
// (its context cancelled) while a page read the database is logged at info
// level with status 499, and counted as 499, not as a 5xx.
func TestClientGoneIsNotAServerError(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	app := testutil.NewApp(t, func(d *server.Deps) {
		d.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	c, _ := app.AsUser(auth.RoleAnalyst)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodGet, "/platforms", nil).WithContext(ctx)
	req.AddCookie(c.Cookie("gq_session"))
	rec := httptest.NewRecorder()
	app.Server.Handler().ServeHTTP(rec, req)
	if rec.Code != 499 {
		t.Errorf("status %d, want 499", rec.Code)
	}

	logged := false
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var e struct {
			Level, Msg, URI string
			Status          int
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if e.Level == "ERROR" {
			t.Errorf("logged as an error: %s", line)
		}
		if e.Msg == "request" && e.URI == "/platforms" {
			logged = true
			if e.Status != 499 || e.Level != "INFO" {
				t.Errorf("request log: %s, want status 499 at INFO", line)
			}
		}
	}
	if !logged {
		t.Errorf("no request log line for /platforms in:\n%s", logs.String())
	}

	body := scrapeMetrics(t, app)
	series := `gpuquote_http_requests_total{code="499",method="GET",route="/platforms"} 1`
	if !strings.Contains(body, series) {
		t.Errorf("metrics lack %s", series)
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "gpuquote_http_requests_total{code=\"5") && strings.Contains(line, `route="/platforms"`) {
			t.Errorf("counted as a server error: %s", line)
		}
	}
}
