package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestAccountMailChoice: the account page offers one mail per notice (the
// default), a daily digest or none; the choice is stored, audited and
// shown again by a fresh server; a choice that is not one is a 422 that
// stores nothing; a site without mail says so (docs/RULES.md §18.4).
func TestAccountMailChoice(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	checked := func(body string) []string {
		var out []string
		document(t, body).Find(`[data-testid="mail-choice-form"] input[name="mail_choice"]:checked`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("value", ""))
		})
		return out
	}
	page := c.Get("/account")
	if got := checked(page.Body); len(got) != 1 || got[0] != "each" {
		t.Fatalf("a new account's choice: %v, want [each]", got)
	}
	if !strings.Contains(page.Body, `data-testid="mail-off"`) || !strings.Contains(page.Body, "本站尚未配置发信服务器") {
		t.Error("a site without mail does not say so")
	}

	audits := func() int {
		var n int
		if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action = 'user.mail_choice'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, bad := range []string{"weekly", ""} {
		r := c.PostForm("/account/mail", url.Values{"mail_choice": {bad}})
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="mail-choice-form"`) ||
			!strings.Contains(r.Body, `data-testid="error-mail_choice"`) {
			t.Errorf("choice %q: %d, want 422 with the form and its error", bad, r.StatusCode)
		}
	}
	if r := c.PostRaw("/account/mail", url.Values{"mail_choice": {"none"}}); r.StatusCode != http.StatusForbidden {
		t.Errorf("without the CSRF token: %d, want 403", r.StatusCode)
	}
	if n := audits(); n != 0 {
		t.Fatalf("%d choices audited after refused forms", n)
	}

	r := c.PostForm("/account/mail", url.Values{"mail_choice": {"daily"}})
	if r.StatusCode != http.StatusSeeOther || !strings.HasSuffix(r.Header.Get("Location"), "/account#mail") {
		t.Fatalf("daily: %d → %q", r.StatusCode, r.Header.Get("Location"))
	}
	if n := audits(); n != 1 {
		t.Errorf("%d choices audited, want 1", n)
	}
	// A fresh server over the same database shows the stored choice.
	fresh := testutil.NewAppOn(t, app.Store, func(d *server.Deps) {
		d.Config.SMTP = &config.SMTP{Host: "mail.example.test", Port: "587", From: "gpuquote@example.test"}
	})
	again := c.On(fresh).Get("/account")
	if got := checked(again.Body); len(got) != 1 || got[0] != "daily" {
		t.Errorf("after choosing the digest, a fresh server shows %v", got)
	}
	if strings.Contains(again.Body, `data-testid="mail-off"`) {
		t.Error("a site with mail says it has none")
	}
}
