//go:build !race

// The route walk checks answers, not races: it sends thousands of
// requests one after another, which -race slows about sevenfold, so make
// test runs it in its pass without -race (scripts/test.sh).

package server_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestRouteWalkAnswersNoServerError walks every route of the route table,
// signed in as an admin and anonymously, and sends each of its parameters
// (the path id, the query parameters its handler reads or its pages link
// with, the fields of the forms that post to it) each of walkValues, the
// rest of the request valid, with a valid CSRF token. No answer may be a
// server error (docs/RULES.md §16.4).
func TestRouteWalkAnswersNoServerError(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 0 })
	routes := app.Server.Routes()
	cases := walkCases()

	// The pages' forms and links, as an admin sees them.
	names := map[string]map[string]bool{}
	crawler, _ := app.AsUser(auth.RoleAdmin)
	for _, r := range routes {
		key := r.Method + " " + r.Path
		if r.Method != http.MethodGet || r.Bare || strings.Contains(r.Path, "*") || strings.Contains(r.Path, "export.") {
			continue
		}
		path := r.Path
		if c := cases[key]; c.path != nil {
			path = c.path(app, crawler)
		}
		res := crawler.Get(path)
		scrape(routes, strings.SplitN(path, "?", 2)[0], res.Body, names)
	}

	// Each route's concrete path, made once (as the admin, whose own
	// reports some are) for both callers.
	paths := map[string]string{}
	for _, r := range routes {
		key := r.Method + " " + r.Path
		paths[key] = pathParam.ReplaceAllString(r.Path, "1")
		if c := cases[key]; c.path != nil {
			paths[key] = c.path(app, crawler)
		}
	}

	// A route without a case is still walked: its path parameters with
	// "1" in the others, and the fields of its pages' forms. One admin
	// client walks them all (signing in again only when a route signed it
	// out), so the login throttle is not what the walk measures.
	// The two callers walk side by side, each with its own client.
	admin := crawler
	anonymous := app.Client()
	anonymous.Get("/login")
	var wg sync.WaitGroup
	for _, who := range []string{"admin", "anonymous"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range routes {
				key := r.Method + " " + r.Path
				client := anonymous
				if who == "admin" {
					if admin.Get("/account").StatusCode != http.StatusOK {
						admin, _ = app.AsUser(auth.RoleAdmin)
					}
					client = admin
				}
				start := time.Now()
				n := walkRoute(t, app, client, r, paths[key], cases[key], names[key], who)
				if testing.Verbose() {
					t.Logf("as %s, %s: %d requests in %v", who, key, n, time.Since(start).Round(time.Millisecond))
				}
			}
		}()
	}
	wg.Wait()
}

// TestRouteWalkJSONBodiesAnswerNoServerError walks every JSON door of the
// route table (every POST and PUT under /api/ but the trial evidence endpoint,
// which reads pasted text) with an admin's token of every scope: each
// value of a valid body, one at a time, is replaced by each of
// walkJSONValues — the route walk's hostile strings and values of every
// other JSON type — and whole bodies that are no object, hold a key twice,
// nest too deep or are not UTF-8 are sent. No answer may be a server
// error (docs/RULES.md §16.4); a door without a case fails the test.
func TestRouteWalkJSONBodiesAnswerNoServerError(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 0 })
	token, _ := apiToken(t, app, auth.RoleAdmin)
	cases := jsonWalkCases(t)
	walked := 0
	for _, r := range app.Server.Routes() {
		key := r.Method + " " + r.Path
		if r.Method != http.MethodPost && r.Method != http.MethodPut || !strings.HasPrefix(r.Path, "/api/") || r.Path == "/api/v1/verify/nvidia-smi" {
			continue
		}
		c, ok := cases[key]
		if !ok {
			t.Errorf("%s is a JSON door without a case in jsonWalkCases", key)
			continue
		}
		walked++
		start := time.Now()
		path, body := c(app, token)
		n := walkJSONRoute(t, app, token, key, path, body)
		if testing.Verbose() {
			t.Logf("%s: %d requests in %v", key, n, time.Since(start).Round(time.Millisecond))
		}
	}
	if walked != len(cases) {
		t.Errorf("%d JSON doors walked, %d cases: a case names no route", walked, len(cases))
	}
}
