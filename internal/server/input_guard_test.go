package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestUnstorableTextIsRefusedEverywhere walks the route table as an admin
// and sends every route a NUL byte, a control character and bytes that are
// not UTF-8 — in the query of every route and in the posted form of every
// form route: each answers 400 with words saying why, none a 5xx.
func TestUnstorableTextIsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 0 })
	admin, _ := app.AsUser(auth.RoleAdmin)
	admin.Header.Set("Accept-Language", "en")
	want := app.Catalog.Translator(i18n.EN).T("error.unstorable.text")
	for _, bad := range []string{"a\x00b", "a\x07b", "a\xffb"} {
		for _, r := range app.Server.Routes() {
			path := strings.ReplaceAll(r.Path, ":id", "1")
			path = strings.ReplaceAll(path, ":token", "x")
			if strings.Contains(path, ":") || strings.HasPrefix(path, "/api/") {
				continue
			}
			var res *testutil.Response
			switch r.Method {
			case http.MethodGet:
				res = admin.Get(path + "?q=" + url.QueryEscape(bad) + "&name=" + url.QueryEscape(bad))
			case http.MethodPost:
				res = admin.PostForm(path, url.Values{"name": {bad}, "q": {bad}, "title": {bad}})
			default:
				continue
			}
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, want) {
				t.Errorf("%s %s with %q: %d", r.Method, path, bad, res.StatusCode)
			}
		}
	}
}
