package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/apispec"
	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// The docs page /api/docs is the one HTML answer under /api/: its
// description's body is a string, read as plain text.
// auditPage is GET /api/v1/audit's answer.
type auditPage struct {
	Items []struct {
		ID         int64           `json:"id"`
		At         string          `json:"at"`
		ActorID    *int64          `json:"actor_id"`
		ActorEmail string          `json:"actor_email"`
		Action     string          `json:"action"`
		Entity     string          `json:"entity"`
		EntityID   string          `json:"entity_id"`
		Before     json.RawMessage `json:"before"`
		After      json.RawMessage `json:"after"`
	} `json:"items"`
	NextCursor string `json:"next_cursor"`
}

func decodeAuditPage(t *testing.T, r *testutil.Response) auditPage {
	t.Helper()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", r.StatusCode, r.Body)
	}
	var p auditPage
	if err := json.Unmarshal([]byte(r.Body), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAPIAuditLog: GET /api/v1/audit lists the audit log newest first for
// an admin's token with the admin scope, a page at a time by cursor,
// filtered as /admin/audit is; a bad filter, limit or cursor is named
// (docs/RULES.md §19.6).
func TestAPIAuditLog(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAdmin, user.ScopeAdmin)
	// Three more audited writes: tokens made by a user.
	email, _, uid := app.CreateUser(auth.RoleAnalyst)
	for _, name := range []string{"one", "two", "three"} {
		if _, err := app.Store.CreateAPIToken(context.Background(), user.Actor{UserID: uid, Email: email},
			user.APIToken{Name: name, Scopes: []string{user.ScopeRead}}, auth.HashToken(auth.NewAPIToken()), time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	all := decodeAuditPage(t, apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=200", token, ""))
	if len(all.Items) < 6 || all.NextCursor != "" {
		t.Fatalf("%d entries, next %q", len(all.Items), all.NextCursor)
	}
	for i := 1; i < len(all.Items); i++ {
		if all.Items[i].ID >= all.Items[i-1].ID {
			t.Fatalf("not newest first: %d after %d", all.Items[i].ID, all.Items[i-1].ID)
		}
	}
	if top := all.Items[0]; top.Action != store.ActionAPITokenCreate || top.ActorID == nil || *top.ActorID != uid ||
		top.ActorEmail != email || top.Entity != "api_token" || !strings.Contains(string(top.After), `"three"`) || string(top.Before) != "null" {
		t.Errorf("newest entry %+v", top)
	}
	if _, err := time.Parse(time.RFC3339Nano, all.Items[0].At); err != nil || !strings.HasSuffix(all.Items[0].At, "Z") {
		t.Errorf("at %q: %v", all.Items[0].At, err)
	}

	// Two at a time, following next_cursor with the same filter, gives the
	// same entries in the same order, each once.
	var paged []int64
	q := url.Values{"limit": {"2"}}
	for pages := 0; ; pages++ {
		if pages > len(all.Items) {
			t.Fatal("the cursor does not end")
		}
		p := decodeAuditPage(t, apiCall(t, app, http.MethodGet, "/api/v1/audit?"+q.Encode(), token, ""))
		if len(p.Items) > 2 {
			t.Fatalf("page of %d", len(p.Items))
		}
		for _, it := range p.Items {
			paged = append(paged, it.ID)
		}
		if p.NextCursor == "" {
			break
		}
		q.Set("cursor", p.NextCursor)
	}
	if len(paged) != len(all.Items) {
		t.Fatalf("paged %d entries, listed %d", len(paged), len(all.Items))
	}
	for i, id := range paged {
		if all.Items[i].ID != id {
			t.Fatalf("entry %d: %d paged, %d listed", i, id, all.Items[i].ID)
		}
	}

	// Filters: action, object, actor (part of the email), days.
	f := decodeAuditPage(t, apiCall(t, app, http.MethodGet, "/api/v1/audit?action="+store.ActionAPITokenCreate+"&actor="+url.QueryEscape(strings.ToUpper(email[:8])), token, ""))
	if len(f.Items) != 3 {
		t.Errorf("filtered by action and actor: %d entries, want 3", len(f.Items))
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if f := decodeAuditPage(t, apiCall(t, app, http.MethodGet, "/api/v1/audit?entity=api_token&from="+today+"&to="+today, token, "")); len(f.Items) != 4 {
		t.Errorf("filtered by object and day: %d entries, want 4", len(f.Items))
	}
	if f := decodeAuditPage(t, apiCall(t, app, http.MethodGet, "/api/v1/audit?from=2000-01-01&to=2000-01-02", token, "")); len(f.Items) != 0 || f.Items == nil {
		t.Errorf("no entries must be an empty list, got %s", apiCall(t, app, http.MethodGet, "/api/v1/audit?from=2000-01-01&to=2000-01-02", token, "").Body)
	}

	// Each bad filter is named, in the request's language.
	r := apiCall(t, app, http.MethodGet, "/api/v1/audit?action=nope&entity=nope&from=yesterday&to=2026-13-01", token, "", "Accept-Language", "en")
	var errs struct {
		Errors []struct{ Field, Code, Message string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.Body), &errs); err != nil || r.StatusCode != http.StatusUnprocessableEntity || len(errs.Errors) != 4 {
		t.Fatalf("bad filters: %d %s", r.StatusCode, r.Body)
	}
	if errs.Errors[0].Field != "action" || errs.Errors[0].Message != "Choose one of the listed values." || errs.Errors[2].Field != "from" {
		t.Errorf("errors %+v", errs.Errors)
	}
	for _, bad := range []string{"limit=0", "limit=201", "limit=x"} {
		if r := apiCall(t, app, http.MethodGet, "/api/v1/audit?"+bad, token, ""); r.StatusCode != http.StatusBadRequest || !strings.Contains(r.Body, `"field":"limit"`) {
			t.Errorf("%s: %d %s", bad, r.StatusCode, r.Body)
		}
	}
	for _, bad := range []string{"nonsense", "eyJiZWZvcmVfaWQiOjB9", "eyJvZmZzZXQiOjJ9"} { // garbage, {"before_id":0}, {"offset":2}
		if r := apiCall(t, app, http.MethodGet, "/api/v1/audit?cursor="+bad, token, ""); r.StatusCode != http.StatusBadRequest || !strings.Contains(r.Body, `"code":"api.error.cursor"`) {
			t.Errorf("cursor %s: %d %s", bad, r.StatusCode, r.Body)
		}
	}

	// The same request over the same log is the same bytes: 304 to its ETag,
	// and a new entry changes the tag.
	first := apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=3", token, "")
	etag := first.Header.Get("ETag")
	if r := apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=3", token, "", "If-None-Match", etag); etag == "" || r.StatusCode != http.StatusNotModified || r.Body != "" {
		t.Errorf("revalidation: %q → %d", etag, r.StatusCode)
	}
	app.CreateUser(auth.RoleEditor)
	if r := apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=3", token, "", "If-None-Match", etag); r.StatusCode != http.StatusOK || r.Header.Get("ETag") == etag {
		t.Errorf("after a new entry: %d, same tag %v", r.StatusCode, r.Header.Get("ETag") == etag)
	}
}

// TestAPIAuditNeedsAdminAndScope: the audit log is an admin's with a token
// holding the admin scope; an admin's token without it is 403
// insufficient_scope with RFC 6750's header, another role's token with
// every scope is 403 forbidden, no token is 401 (docs/RULES.md §19.2).
func TestAPIAuditNeedsAdminAndScope(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	narrow, _ := apiToken(t, app, auth.RoleAdmin, user.ScopeRead, user.ScopeQuotesWrite, user.ScopeReportsWrite, user.ScopeTrialsWrite)
	r := apiCall(t, app, http.MethodGet, "/api/v1/audit", narrow, "")
	if r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"code":"insufficient_scope"`) ||
		!strings.Contains(r.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Errorf("admin's token without the admin scope: %d %q %s", r.StatusCode, r.Header.Get("WWW-Authenticate"), r.Body)
	}
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleFinance, auth.RoleEditor} {
		token, _ := apiToken(t, app, role)
		if r := apiCall(t, app, http.MethodGet, "/api/v1/audit", token, ""); r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"code":"forbidden"`) {
			t.Errorf("%s's token with every scope: %d %s", role, r.StatusCode, r.Body)
		}
	}
	if r := apiCall(t, app, http.MethodGet, "/api/v1/audit", "", ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", r.StatusCode)
	}
	// A signed-in admin's browser reads it too (scopes limit tokens only).
	admin, _ := app.AsUser(auth.RoleAdmin)
	if r := admin.Get("/api/v1/audit?limit=1"); r.StatusCode != http.StatusOK {
		t.Errorf("admin's session: %d", r.StatusCode)
	}
}

// TestAPITokenExpires: from its expiry on, a token is refused like a
// revoked one (401 invalid_token); a token made before expiries existed
// never expires, and the account page says so (docs/RULES.md §19.2).
func TestAPITokenExpires(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, uid := app.CreateUser(auth.RoleAdmin)
	ctx := context.Background()
	mk := func(name string, expires *time.Time) string {
		t.Helper()
		token := auth.NewAPIToken()
		if _, err := app.Store.CreateAPIToken(ctx, user.Actor{UserID: uid, Email: email},
			user.APIToken{Name: name, Scopes: []string{user.ScopeAdmin}, ExpiresAt: expires}, auth.HashToken(token), time.Now().Add(-48*time.Hour)); err != nil {
			t.Fatal(err)
		}
		return token
	}
	past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	expired, live, old := mk("expired", &past), mk("live", &future), mk("old", nil)
	r := apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=1", expired, "")
	if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("expired token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	for name, token := range map[string]string{"live": live, "never expiring": old} {
		if r := apiCall(t, app, http.MethodGet, "/api/v1/audit?limit=1", token, ""); r.StatusCode != http.StatusOK {
			t.Errorf("%s token: %d", name, r.StatusCode)
		}
	}
	c := app.Client()
	c.Login(email, pw)
	c.Header.Set("Accept-Language", "en")
	doc := document(t, c.Get("/account").Body)
	rows := doc.Find(`[data-testid="api-tokens-table"] tbody tr`)
	if rows.Length() != 3 {
		t.Fatalf("%d tokens listed, want 3", rows.Length())
	}
	// Expired tokens stay listed until revoked; the old one never expires.
	found := false
	rows.Each(func(_ int, row *goquery.Selection) {
		if strings.Contains(row.Text(), "old") {
			found = true
			if got := strings.TrimSpace(row.Find(`[data-testid="api-token-expires"]`).Text()); got != "Never" {
				t.Errorf("old token's expiry %q, want Never", got)
			}
			if got := strings.TrimSpace(row.Find(`[data-testid="api-token-scopes"]`).Text()); got != "admin" {
				t.Errorf("old token's scopes %q", got)
			}
		}
	})
	if !found {
		t.Error("the old token is not listed")
	}
}

// TestAPITokenFormScopesAndLifetime: the create form offers every scope
// the role may give (an editor's: all but admin) and the lifetimes; it refuses no scope, an unknown scope and a lifetime
// not offered, keeping the name and the ticks; a token made with it holds
// exactly the scopes ticked and expires after the lifetime chosen, and the
// page shows both (docs/RULES.md §19.2).
func TestAPITokenFormScopesAndLifetime(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, uid := app.AsUser(auth.RoleEditor)
	c.Header.Set("Accept-Language", "en")
	pw := testutil.Password(auth.RoleEditor)

	page := document(t, c.Get("/account").Body)
	for _, sc := range user.ScopesFor(string(auth.RoleEditor)) {
		box := page.Find(`input[type="checkbox"][name="scope"][value="` + sc + `"]`)
		if box.Length() != 1 {
			t.Errorf("no checkbox for scope %s", sc)
		}
		_, checked := box.Attr("checked")
		if checked != (sc == user.ScopeRead) {
			t.Errorf("scope %s ticked %v on a first showing", sc, checked)
		}
	}
	if v, _ := page.Find(`select[name="expires_days"] option[selected]`).Attr("value"); v != "90" {
		t.Errorf("default lifetime %q, want 90", v)
	}
	if page.Find(`select[name="expires_days"] option`).Length() != 4 {
		t.Error("the lifetimes offered are 7, 30, 90 and 365 days")
	}
	if page.Find(`#api-tokens a[href="/api/docs"]`).Length() != 1 {
		t.Error("no link to the API's docs from the token section")
	}

	for name, tc := range map[string]struct {
		form  url.Values
		field string
		ticks []string
	}{
		"no scope":         {url.Values{"name": {"ci"}, "password": {pw}, "expires_days": {"30"}}, "token_scope", nil},
		"unknown scope":    {url.Values{"name": {"ci"}, "password": {pw}, "expires_days": {"30"}, "scope": {"read", "root"}}, "token_scope", []string{"read"}},
		"bad lifetime":     {url.Values{"name": {"ci"}, "password": {pw}, "expires_days": {"1000"}, "scope": {"quotes:write", "trials:write"}}, "token_expiry", []string{"quotes:write", "trials:write"}},
		"missing lifetime": {url.Values{"name": {"ci"}, "password": {pw}, "scope": {"reports:write"}}, "token_expiry", []string{"reports:write"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := c.PostForm("/account/tokens", tc.form)
			if r.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status %d", r.StatusCode)
			}
			doc := document(t, r.Body)
			if doc.Find(`[data-testid="error-`+tc.field+`"]`).Length() != 1 {
				t.Errorf("no error next to %s", tc.field)
			}
			if v, _ := doc.Find(`#token_name`).Attr("value"); v != "ci" {
				t.Errorf("name kept as %q", v)
			}
			for _, sc := range user.APIScopes {
				_, checked := doc.Find(`input[name="scope"][value="` + sc + `"]`).Attr("checked")
				want := false
				for _, w := range tc.ticks {
					want = want || w == sc
				}
				if checked != want {
					t.Errorf("scope %s ticked %v, want %v", sc, checked, want)
				}
			}
			if days := tc.form.Get("expires_days"); days == "30" {
				if v, _ := doc.Find(`select[name="expires_days"] option[selected]`).Attr("value"); v != "30" {
					t.Errorf("lifetime kept as %q", v)
				}
			}
		})
	}
	if n := countRows(t, app, "api_tokens"); n != 0 {
		t.Fatalf("a refused form made %d tokens", n)
	}

	r := c.PostForm("/account/tokens", url.Values{"name": {"reader"}, "password": {pw}, "expires_days": {"7"},
		"scope": {"trials:write", "read"}})
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", r.StatusCode)
	}
	doc := document(t, r.Body)
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid="api-token-created-scopes"] code`).Text()), ""); got != "readtrials:write" {
		t.Errorf("one-time display's scopes %q", got)
	}
	if got := doc.Find(`[data-testid="api-token-created-expires"]`).Text(); !strings.Contains(got, time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)) {
		t.Errorf("one-time display's expiry %q", got)
	}
	tokens, err := app.Store.APITokens(context.Background(), uid)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v %v", tokens, err)
	}
	tok := tokens[0]
	if strings.Join(tok.Scopes, ",") != "read,trials:write" || tok.ExpiresAt == nil ||
		tok.ExpiresAt.Sub(time.Now().AddDate(0, 0, 7)).Abs() > time.Minute {
		t.Errorf("stored %v expiring %v", tok.Scopes, tok.ExpiresAt)
	}
	row := document(t, c.Get("/account").Body).Find(`[data-testid="api-token-` + itoa(tok.ID) + `"]`)
	if got := strings.Join(strings.Fields(row.Find(`[data-testid="api-token-scopes"]`).Text()), " "); got != "read trials:write" {
		t.Errorf("listed scopes %q", got)
	}
	if got := row.Find(`[data-testid="api-token-expires"]`).Text(); !strings.Contains(got, tok.ExpiresAt.UTC().Format("2006-01-02 15:04")) {
		t.Errorf("listed expiry %q", got)
	}
}

// TestAPIDocsPage: /api/docs shows every operation of the description,
// grouped by tag, with its method, path, scope and summary from the
// catalogs in the reader's language, and every schema; every operation
// has its summary in both catalogs; every summary and description the page
// shows holds Chinese in Chinese and none in English, while the served
// description stays English; the page is the same bytes each time and
// links the machine-readable description (docs/RULES.md §19.6).
func TestAPIDocsPage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	raw, err := apispec.Document()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Scope       string `json:"x-scope"`
		} `json:"paths"`
		Components struct{ Schemas map[string]json.RawMessage } `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		c := app.Client()
		c.Header.Set("Accept-Language", lang)
		r := c.Get("/api/docs")
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", lang, r.StatusCode, r.Header.Get("Content-Type"))
		}
		again := c.Get("/api/docs")
		if stripCSRF(again.Body) != stripCSRF(r.Body) {
			t.Errorf("%s: the page is not the same bytes twice", lang)
		}
		page := document(t, r.Body)
		if page.Find(`a[href="/api/v1/openapi.json"]`).Length() == 0 || !strings.Contains(r.Body, "docs/API.md") {
			t.Errorf("%s: no link to the description or mention of the guide", lang)
		}
		tr := app.Catalog.Translator(i18n.Lang(lang))
		n := 0
		for path, item := range doc.Paths {
			for method, op := range item {
				n++
				el := page.Find(`[data-testid="apidoc-op-` + op.OperationID + `"]`)
				if el.Length() != 1 {
					t.Errorf("%s: %s %s (%s) not shown", lang, method, path, op.OperationID)
					continue
				}
				text := el.Text()
				want := tr.T("apidoc.op." + op.OperationID)
				if !strings.Contains(text, strings.ToUpper(method)) || !strings.Contains(text, path) || !strings.Contains(text, want) {
					t.Errorf("%s: %s shows %q", lang, op.OperationID, strings.Join(strings.Fields(text), " ")[:min(200, len(strings.Join(strings.Fields(text), " ")))])
				}
				if op.Scope != "" && strings.TrimSpace(el.Find(`[data-testid="apidoc-scope"]`).Text()) != op.Scope {
					t.Errorf("%s: %s's scope shown as %q, want %q", lang, op.OperationID, el.Find(`[data-testid="apidoc-scope"]`).Text(), op.Scope)
				}
			}
		}
		if page.Find(`details.apidoc-op`).Length() != n {
			t.Errorf("%s: %d operations shown, the description has %d", lang, page.Find(`details.apidoc-op`).Length(), n)
		}
		for name := range doc.Components.Schemas {
			if page.Find(`#schema-`+name).Length() != 1 {
				t.Errorf("%s: schema %s has no table", lang, name)
			}
		}
		// The page's words are the reader's language: every summary and
		// description (of a tag, an operation, its body, parameters and
		// answers, a schema and its properties) holds a Chinese character in
		// Chinese, none in English.
		texts, foreign := 0, []string{}
		page.Find(`.apidoc-summary, .apidoc-desc`).Each(func(_ int, s *goquery.Selection) {
			text := strings.Join(strings.Fields(s.Text()), " ")
			if text == "" {
				return
			}
			texts++
			if hasHan(text) != (lang == "zh-CN") {
				foreign = append(foreign, text)
			}
		})
		if texts < 300 {
			t.Errorf("%s: only %d summaries and descriptions found on the page", lang, texts)
		}
		if len(foreign) > 0 {
			t.Errorf("%s: %d of %d summaries and descriptions are in the other language, such as %q", lang, len(foreign), texts, foreign[:min(3, len(foreign))])
		}
		if lang == "en" && page.Find(`[data-testid="apidoc-tag-admin"] h2`).Text() != "Administration" {
			t.Errorf("admin group heading %q", page.Find(`[data-testid="apidoc-tag-admin"] h2`).Text())
		}
	}
	// The served description's words are English; only an example's
	// values (a vendor's message in Chinese, as a client sends it) may be
	// in another language.
	var words any
	if err := json.Unmarshal(raw, &words); err != nil {
		t.Fatal(err)
	}
	if w := chineseWords(words, ""); len(w) > 0 {
		t.Errorf("the served description holds Chinese at %v: its words are English, the page translates them", w)
	}
	if !hasHan(string(raw)) {
		t.Error("the reading API's example is no Chinese message")
	}
	// Every operation's summary is in both catalogs.
	for _, item := range doc.Paths {
		for _, op := range item {
			for _, l := range i18n.Langs {
				if !app.Catalog.Has(l, "apidoc.op."+op.OperationID) {
					t.Errorf("%s has no summary apidoc.op.%s", l, op.OperationID)
				}
			}
		}
	}
}

// chineseWords lists where the JSON value v holds Chinese, examples'
// values aside: the paths of its strings, and of keys, that hold Chinese.
func chineseWords(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if hasHan(x) {
			out = append(out, at)
		}
	case []any:
		for i, e := range x {
			out = append(out, chineseWords(e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case map[string]any:
		for k, e := range x {
			if hasHan(k) {
				out = append(out, at+"."+k)
			}
			if k != "example" && k != "examples" {
				out = append(out, chineseWords(e, at+"."+k)...)
			}
		}
	}
	return out
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// stripCSRF drops the per-session CSRF token from a page, for comparing
// two answers' bytes.
func stripCSRF(body string) string {
	var out bytes.Buffer
	for _, line := range strings.Split(body, "\n") {
		if !strings.Contains(line, "csrf") {
			out.WriteString(line)
			out.WriteByte('\n')
		}
	}
	return out.String()
}
