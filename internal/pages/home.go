package pages

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// Home explains the product and links to the sections; a signed-in reader
// first sees what waits for them, each part only when they may open the
// page behind it (the same counts as the navigation's badges).
func (s *Handlers) Home(c echo.Context) error {
	p := s.Page(c, "home.title")
	cur := auth.CurrentUser(c)
	if cur == nil {
		return s.Render(c, http.StatusOK, p, web.Home(web.HomeView{Page: p}))
	}
	counts := p.Counts
	if counts == nil { // not counted for the layout (an htmx swap): count for the body
		var err error
		if counts, err = s.ReaderCounts(c); err != nil {
			return err
		}
	}
	var mine int64
	if counts.Mine {
		mine = cur.UserID
	}
	lists, err := s.Store.HomeReports(c.Request().Context(), mine, counts.Inbox, web.HomeListed)
	if err != nil {
		return err
	}
	v := web.NewHomeView(server.Translator(c), cur.UserID, *counts, web.HomeLists(lists), s.Can(c, http.MethodGet, "/compare"))
	v.Page = p
	return s.Render(c, http.StatusOK, p, web.Home(v))
}

// SetLang remembers the chosen language in a cookie and returns to the page.
func (s *Handlers) SetLang(c echo.Context) error {
	lang := i18n.Lang(c.FormValue("lang"))
	if !lang.Valid() {
		lang = i18n.ZH
	}
	c.SetCookie(i18n.LangCookie(lang, s.Config.TLS))
	return c.Redirect(http.StatusSeeOther, server.LocalPath(c.FormValue("next"), "/"))
}
