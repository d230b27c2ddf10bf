package server

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/gzsplice"
	"gpuquote/internal/i18n"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/web"
)

// Translator returns the request's Translator.
func Translator(c echo.Context) *i18n.Translator { return i18n.FromContext(c.Request().Context()) }

// Page builds the layout's view model for this request; titleID is the
// catalog message of the page title. It consumes the flash cookie.
func (s *Server) Page(c echo.Context, titleID string) web.Page {
	p := web.Page{Title: Translator(c).T(titleID), CSRF: auth.CSRFToken(c), Path: c.Request().URL.Path}
	if m := c.Request().Method; m == http.MethodGet || m == http.MethodHead {
		p.Here = c.Request().URL.RequestURI()
	}
	if cur := auth.CurrentUser(c); cur != nil {
		p.User = &web.User{ID: cur.UserID, Name: cur.DisplayName, Email: cur.Email, Role: string(cur.Role)}
	}
	for _, it := range web.NavItems {
		if s.Can(c, http.MethodGet, it.Href) {
			p.Nav = append(p.Nav, it)
		}
	}
	// What waits for a signed-in reader, beside the entries they may open.
	s.navCounts(c, &p)
	if ck, err := c.Cookie(flashCookie); err == nil {
		if kind, id, args, ok := parseFlash(ck.Value); ok && s.Catalog.Has(Translator(c).Lang, id) {
			p.Flash = &web.Flash{Kind: kind, Text: Translator(c).TMap(id, args)}
		}
		c.SetCookie(&http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.Config.TLS, SameSite: http.SameSiteLaxMode})
	}
	return p
}

// Render writes a page: the whole layout for normal requests, only the body
// for htmx requests that swap part of a page (one place decides).
func (s *Server) Render(c echo.Context, status int, p web.Page, body templ.Component) error {
	r := c.Response()
	r.Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	r.Header().Set("Cache-Control", "no-store")
	r.WriteHeader(status)
	ctx := c.Request().Context()
	if c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Boosted") != "true" {
		return body.Render(ctx, r)
	}
	return web.Layout(p).Render(templ.WithChildren(ctx, body), r)
}

// RenderKept is Render for a page holding kept fragments
// (gzsplice.Block, docs/RULES.md §20.5): to a client that accepts gzip it
// writes the gzip stream itself, compressing what is drawn for the request
// and splicing each fragment's kept compression, so the server's own
// compression (compressed) passes it through; to any other client it
// writes what Render writes. Decompressed, the answer is Render's byte for
// byte.
func (s *Server) RenderKept(c echo.Context, status int, p web.Page, body templ.Component) error {
	if !gzsplice.Accepts(c.Request()) {
		return s.Render(c, status, p, body)
	}
	r := c.Response()
	h := r.Header()
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	h.Set("Cache-Control", "no-store")
	h.Set(echo.HeaderContentEncoding, "gzip")
	if !slices.ContainsFunc(h.Values(echo.HeaderVary), func(v string) bool {
		return slices.ContainsFunc(strings.Split(v, ","), func(f string) bool {
			f = strings.TrimSpace(f)
			return f == "*" || strings.EqualFold(f, echo.HeaderAcceptEncoding)
		})
	}) {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	}
	h.Del(echo.HeaderContentLength)
	r.WriteHeader(status)
	z := gzsplice.NewWriter(r)
	ctx := gzsplice.WithWriter(c.Request().Context(), z)
	var err error
	if c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Boosted") != "true" {
		err = body.Render(ctx, z)
	} else {
		err = web.Layout(p).Render(templ.WithChildren(ctx, body), z)
	}
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	return err
}

const flashCookie = "gq_flash"

// RedirectWithFlash answers a successful form post: 303 to target with a
// one-time message (a catalog ID and its template data as name/value
// pairs) shown by the next page.
func (s *Server) RedirectWithFlash(c echo.Context, target, kind, messageID string, args ...string) error {
	v := kind + ":" + messageID
	if len(args) > 1 {
		q := url.Values{}
		for i := 0; i+1 < len(args); i += 2 {
			q.Set(args[i], args[i+1])
		}
		v += ":" + base64.RawURLEncoding.EncodeToString([]byte(q.Encode()))
	}
	c.SetCookie(&http.Cookie{Name: flashCookie, Value: v, Path: "/", MaxAge: 60,
		HttpOnly: true, Secure: s.Config.TLS, SameSite: http.SameSiteLaxMode})
	return c.Redirect(http.StatusSeeOther, target)
}

// parseFlash reads a flash cookie: "kind:id" or "kind:id:base64(args)".
// The message ID is checked against the catalog by the caller, so a forged
// cookie can only show one of our own messages.
func parseFlash(v string) (kind, id string, args map[string]any, ok bool) {
	parts := strings.SplitN(v, ":", 3)
	if len(parts) < 2 || (parts[0] != "ok" && parts[0] != "error") {
		return "", "", nil, false
	}
	if len(parts) == 3 {
		raw, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil {
			return "", "", nil, false
		}
		q, err := url.ParseQuery(string(raw))
		if err != nil {
			return "", "", nil, false
		}
		args = make(map[string]any, len(q))
		for k := range q {
			args[k] = q.Get(k)
		}
	}
	return parts[0], parts[1], args, true
}

// LocalPath returns next when it is a path on this site, else fallback; it
// keeps redirects after login or a language switch from leaving the site.
func LocalPath(next, fallback string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return fallback
	}
	return next
}

// ReaderCounts counts what waits for the signed-in reader, only what they
// may see: their own reports when they may open the report list, the
// inbox when they may open it, the dashboard's counts when they may open
// the dashboard (over the dashboard's window). Nil for anonymous visitors.
func (s *Server) ReaderCounts(c echo.Context) (*web.Counts, error) {
	cur := auth.CurrentUser(c)
	if cur == nil {
		return nil, nil
	}
	ask := store.HomeAsk{Inbox: s.Can(c, http.MethodGet, "/reports/inbox"), Market: s.Can(c, http.MethodGet, "/dashboard")}
	if s.Can(c, http.MethodGet, "/notifications") {
		ask.Reader = cur.UserID
	}
	if s.Can(c, http.MethodGet, "/reports") {
		ask.UserID = cur.UserID
	}
	if ask.Market {
		// Stale = dated before today − 90 days; recent jumps = dated
		// within the same window, as on the dashboard.
		ask.StaleBefore = tco.StaleBefore(s.Today())
		ask.JumpsSince = ask.StaleBefore
	}
	n, err := s.Store.HomeCounts(c.Request().Context(), ask)
	if err != nil {
		return nil, err
	}
	return &web.Counts{Mine: ask.UserID != 0, Drafts: n.Drafts, Returned: n.Returned, Notices: n.Notices, Inbox: ask.Inbox,
		Waiting: n.Waiting, Market: ask.Market, Stale: n.Stale, Jumps: n.Jumps, Notified: ask.Reader != 0, Unread: n.Unread}, nil
}

// navCounts puts the reader's counts on the page and beside its navigation
// entries. It asks only for a signed-in reader, only when the layout is
// drawn (not for the part of a page htmx swaps) and only under the
// request's deadline: the error page renders without one, after a failure
// that may be the database's, so it never waits on it and shows no counts.
// A failed count is logged and leaves the navigation without badges.
func (s *Server) navCounts(c echo.Context, p *web.Page) {
	r := c.Request()
	if p.User == nil || (r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true") {
		return
	}
	if _, ok := r.Context().Deadline(); !ok {
		return
	}
	counts, err := s.ReaderCounts(c)
	if err != nil {
		s.Log.WarnContext(r.Context(), "navigation counts", "path", r.URL.Path, "err", err.Error())
		return
	}
	p.Counts = counts
	p.Nav = web.NavBadges(p.Nav, *counts)
	if counts.Mine && counts.Notices > 0 {
		// Decisions on the reader's reports, on every page until they open
		// the report (docs/RULES.md §11.3).
		rs, err := s.Store.ReportNotices(r.Context(), p.User.ID, web.NoticesShown)
		if err != nil {
			s.Log.WarnContext(r.Context(), "report notices", "path", r.URL.Path, "err", err.Error())
			return
		}
		p.Notices = web.NewReportNotices(rs)
		p.NoticesMore = max(counts.Notices-len(rs), 0)
	}
}
