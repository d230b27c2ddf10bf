package i18n

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// CookieName is the cookie remembering the chosen language.
const CookieName = "gq_lang"

// Middleware puts the request's translator into the request context and
// into echo's context under "t", choosing the language by cookie, then
// Accept-Language, then Chinese.
func Middleware(c *Catalog) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(ec echo.Context) error {
			var cookie string
			if ck, err := ec.Cookie(CookieName); err == nil {
				cookie = ck.Value
			}
			t := c.Translator(Negotiate(cookie, ec.Request().Header.Get("Accept-Language")))
			req := ec.Request()
			ec.SetRequest(req.WithContext(WithTranslator(req.Context(), t)))
			ec.Response().Header().Add("Vary", "Accept-Language, Cookie")
			ec.Response().Header().Set("Content-Language", string(t.Lang))
			return next(ec)
		}
	}
}

// LangCookie is the cookie that remembers lang for a year.
func LangCookie(lang Lang, secure bool) *http.Cookie {
	return &http.Cookie{
		Name: CookieName, Value: string(lang), Path: "/",
		Expires: time.Now().Add(365 * 24 * time.Hour), MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	}
}
