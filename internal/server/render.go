package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/web"
)

// t returns the request's translator.
func t(c echo.Context) *i18n.Translator { return i18n.FromContext(c.Request().Context()) }

// page builds the layout's view model for this request; titleID is the
// catalog message of the page title. It consumes the flash cookie.
func (s *Server) page(c echo.Context, titleID string) web.Page {
	p := web.Page{Title: t(c).T(titleID), CSRF: auth.CSRFToken(c), Path: c.Request().URL.Path}
	if cur := auth.CurrentUser(c); cur != nil {
		p.User = &web.User{ID: cur.UserID, Name: cur.DisplayName, Email: cur.Email, Role: string(cur.Role)}
	}
	if ck, err := c.Cookie(flashCookie); err == nil {
		kind, id, ok := strings.Cut(ck.Value, ":")
		if ok && (kind == "ok" || kind == "error") && s.catalog.Has(t(c).Lang, id) {
			p.Flash = &web.Flash{Kind: kind, Text: t(c).T(id)}
		}
		c.SetCookie(&http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.cfg.TLS, SameSite: http.SameSiteLaxMode})
	}
	return p
}

// render writes a page: the whole layout for normal requests, only the body
// for htmx requests that swap part of a page (one place decides).
func (s *Server) render(c echo.Context, status int, p web.Page, body templ.Component) error {
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

const flashCookie = "gq_flash"

// redirectWithFlash answers a successful form post: 303 to target with a
// one-time message (a catalog ID) shown by the next page.
func (s *Server) redirectWithFlash(c echo.Context, target, kind, messageID string) error {
	c.SetCookie(&http.Cookie{Name: flashCookie, Value: kind + ":" + messageID, Path: "/", MaxAge: 60,
		HttpOnly: true, Secure: s.cfg.TLS, SameSite: http.SameSiteLaxMode})
	return c.Redirect(http.StatusSeeOther, target)
}

// localPath returns next when it is a path on this site, else fallback; it
// keeps redirects after login or a language switch from leaving the site.
func localPath(next, fallback string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return fallback
	}
	return next
}
