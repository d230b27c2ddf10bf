package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/i18n"
	"gpuquote/web"
)

// home explains the product and links to the sections.
func (s *Server) home(c echo.Context) error {
	p := s.page(c, "home.title")
	return s.render(c, http.StatusOK, p, web.Home(web.HomeView{Page: p}))
}

// setLang remembers the chosen language in a cookie and returns to the page.
func (s *Server) setLang(c echo.Context) error {
	lang := i18n.Lang(c.FormValue("lang"))
	if !lang.Valid() {
		lang = i18n.ZH
	}
	c.SetCookie(i18n.LangCookie(lang, s.cfg.TLS))
	return c.Redirect(http.StatusSeeOther, localPath(c.FormValue("next"), "/"))
}
