package testutil

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/i18n"
	"gpuquote/internal/routes"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// FastArgon2 keeps tests quick (and -race bearable); the production cost
// parameters are tested in package auth.
var FastArgon2 = auth.Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// App is the whole gpuquote server on a loopback port over a fresh database.
type App struct {
	T       testing.TB
	Store   *store.Store
	Server  *server.Server
	HTTP    *httptest.Server
	URL     string
	Catalog *i18n.Catalog
	Config  config.Config
	users   atomic.Int64
	// ownerURL connects as the tables' owner (empty: Store's role).
	ownerURL string
}

// Option adjusts the server's dependencies before it is built.
type Option func(*server.Deps)

// NewApp starts the server for this test.
func NewApp(t testing.TB, opts ...Option) *App {
	t.Helper()
	owner, app := DB(t)
	a := NewAppOn(t, Open(t, app), opts...)
	a.ownerURL = owner
	return a
}

// Owner opens a pool on the app's database as the tables' owner, for a
// test that breaks the schema on purpose; the server itself never has these
// privileges (docs/RULES.md §16.7). An app on a private cluster has one
// role for both.
func (a *App) Owner() *store.Store {
	a.T.Helper()
	if a.ownerURL == "" {
		return a.Store
	}
	return Open(a.T, a.ownerURL)
}

// NewAppOn starts the server for this test over an existing store.
func NewAppOn(t testing.TB, st *store.Store, opts ...Option) *App {
	t.Helper()
	cat, err := i18n.Load()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	d := server.Deps{Config: config.Default(), Store: st, Catalog: cat,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Hasher: auth.NewHasher(FastArgon2, 4)}
	for _, o := range opts {
		o(&d)
	}
	srv, err := routes.New(context.Background(), d)
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &App{T: t, Store: st, Server: srv, HTTP: hs, URL: hs.URL, Catalog: cat, Config: d.Config}
}

// Password is the password CreateUser gives a user of role (it passes the
// password policy).
func Password(role auth.Role) string { return "correct horse battery " + string(role) }

// CreateUser makes a user with role and returns its email and password.
func (a *App) CreateUser(role auth.Role) (email, password string, id int64) {
	a.T.Helper()
	n := a.users.Add(1)
	email = fmt.Sprintf("%s%d@example.test", role, n)
	password = Password(role)
	hash, err := auth.NewHasher(FastArgon2, 1).Hash(context.Background(), password)
	if err != nil {
		a.T.Fatal(err)
	}
	u, err := a.Store.CreateUser(context.Background(), user.SystemActor, user.NewAccount{
		Email: email, DisplayName: "Test " + string(role) + fmt.Sprint(n), Role: string(role), PasswordHash: hash})
	if err != nil {
		a.T.Fatal(err)
	}
	return email, password, u.ID
}

// Client is a browser-like HTTP client: a cookie jar, no automatic
// redirects, and the CSRF token of the last page it read. Several
// goroutines may share one (as several tabs share a browser).
type Client struct {
	app  *App
	HTTP *http.Client
	mu   sync.Mutex // guards CSRF while requests run at once
	CSRF string
	// Header is added to every request.
	Header http.Header
}

// Client returns a new anonymous client.
func (a *App) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{app: a, Header: http.Header{}, HTTP: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// On returns a client of app b that shares this client's cookies (its
// session): the same browser talking to another server process on the
// same database.
func (c *Client) On(b *App) *Client {
	return &Client{app: b, HTTP: c.HTTP, Header: c.Header.Clone(), CSRF: c.CSRF}
}

// Response is a fully read response.
type Response struct {
	*http.Response
	Body string
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

// Do sends req and reads the whole response, remembering a CSRF token.
func (c *Client) Do(req *http.Request) *Response {
	c.app.T.Helper()
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.app.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.app.T.Fatalf("read body: %v", err)
	}
	if strings.HasPrefix(req.URL.Path, "/api/") && req.Method != http.MethodHead {
		CheckAPI(c.app.T, req, resp.StatusCode, resp.Header, b)
	}
	if m := csrfMeta.FindSubmatch(b); m != nil && len(m[1]) > 0 {
		c.mu.Lock()
		c.CSRF = string(m[1])
		c.mu.Unlock()
	}
	return &Response{Response: resp, Body: string(b)}
}

// Get fetches path.
func (c *Client) Get(path string) *Response {
	c.app.T.Helper()
	req, err := http.NewRequest(http.MethodGet, c.app.URL+path, nil)
	if err != nil {
		c.app.T.Fatal(err)
	}
	return c.Do(req)
}

// PostForm posts form values with the client's CSRF token (fetching a page
// first when it has none yet).
func (c *Client) PostForm(path string, form url.Values) *Response {
	c.app.T.Helper()
	c.mu.Lock()
	token := c.CSRF
	c.mu.Unlock()
	if token == "" {
		c.Get("/login")
		c.mu.Lock()
		token = c.CSRF
		c.mu.Unlock()
	}
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	if _, ok := f["_csrf"]; !ok {
		f.Set("_csrf", token)
	}
	return c.PostRaw(path, f)
}

// PostRaw posts exactly the given form values.
func (c *Client) PostRaw(path string, form url.Values) *Response {
	c.app.T.Helper()
	req, err := http.NewRequest(http.MethodPost, c.app.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.app.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// Login signs in and fails the test unless it succeeds.
func (c *Client) Login(email, password string) {
	c.app.T.Helper()
	c.Get("/login") // like a browser: the form first, with its CSRF token
	r := c.PostForm("/login", url.Values{"email": {email}, "password": {password}})
	if r.StatusCode != http.StatusSeeOther {
		c.app.T.Fatalf("login %s: status %d", email, r.StatusCode)
	}
	c.Get("/") // pick up the session's CSRF token
}

// Cookie returns the client's cookie named name for the app, or nil.
func (c *Client) Cookie(name string) *http.Cookie {
	u, _ := url.Parse(c.app.URL)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

// AsUser returns a client signed in as a new user with role.
func (a *App) AsUser(role auth.Role) (*Client, int64) {
	a.T.Helper()
	email, pw, id := a.CreateUser(role)
	c := a.Client()
	c.Login(email, pw)
	return c, id
}
