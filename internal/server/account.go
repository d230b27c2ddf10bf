package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// actor describes who performs this request's writes, for the audit log.
func (s *Server) actor(c echo.Context) user.Actor {
	a := user.Actor{RequestID: c.Response().Header().Get(echo.HeaderXRequestID), ClientIP: c.RealIP()}
	if cur := auth.CurrentUser(c); cur != nil {
		a.UserID, a.Email = cur.UserID, cur.Email
	}
	return a
}

func (s *Server) loginForm(c echo.Context) error {
	next := localPath(c.QueryParam("next"), "/")
	if auth.CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, next)
	}
	p := s.page(c, "login.title")
	return s.render(c, http.StatusOK, p, web.Login(web.LoginView{Page: p, Next: next}))
}

// login signs a user in. An unknown email, a wrong password and a disabled
// account give the same status and the same page.
func (s *Server) login(c echo.Context) error {
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	v := web.LoginView{Email: email, Next: localPath(c.FormValue("next"), "/"), Errors: web.Errors{}}
	if email == "" {
		v.Errors.Set("email", "form.required")
	}
	if password == "" {
		v.Errors.Set("password", "form.required")
	}
	if len(v.Errors) > 0 {
		v.Page = s.page(c, "login.title")
		return s.render(c, http.StatusUnprocessableEntity, v.Page, web.Login(v))
	}
	if cur := auth.CurrentUser(c); cur != nil {
		// Signing in as someone else ends the current session first.
		if err := s.auth.Logout(c.Request().Context(), s.actor(c), cur); err != nil {
			return err
		}
	}
	device := ""
	if ck, err := c.Cookie(s.auth.DeviceCookieName()); err == nil {
		device = ck.Value
	}
	token, u, err := s.auth.Login(c.Request().Context(), s.actor(c), email, password, c.Request().UserAgent(), device)
	switch {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.auth.RetryAfterSeconds(err))
		v.Page, v.ErrorID = s.page(c, "login.title"), "login.error.throttled"
		return s.render(c, http.StatusTooManyRequests, v.Page, web.Login(v))
	case errors.Is(err, auth.ErrInvalidCredentials):
		v.Page, v.ErrorID = s.page(c, "login.title"), "login.error.invalid"
		return s.render(c, http.StatusUnauthorized, v.Page, web.Login(v))
	case err != nil:
		return err
	}
	c.SetCookie(s.auth.SessionCookie(token))
	// A fresh device cookie: later sign-ins from this browser count in a
	// bucket of their own (docs/RULES.md §16.2).
	c.SetCookie(s.auth.DeviceCookie(u.ID))
	return c.Redirect(http.StatusSeeOther, v.Next)
}

func (s *Server) logout(c echo.Context) error {
	if err := s.auth.Logout(c.Request().Context(), s.actor(c), auth.CurrentUser(c)); err != nil {
		return err
	}
	c.SetCookie(s.auth.ClearCookie())
	return s.redirectWithFlash(c, "/login", "ok", "logout.done")
}

func (s *Server) account(c echo.Context) error {
	return s.renderAccount(c, http.StatusOK, nil)
}

func (s *Server) renderAccount(c echo.Context, status int, errs web.Errors) error {
	return s.renderAccountView(c, status, web.AccountView{Errors: errs})
}

// passwordErrorID words a password policy failure.
func passwordErrorID(err error) string {
	switch {
	case errors.Is(err, auth.ErrPasswordTooShort):
		return "password.too_short"
	case errors.Is(err, auth.ErrPasswordTooLong):
		return "password.too_long"
	case errors.Is(err, auth.ErrPasswordCommon):
		return "password.common"
	case errors.Is(err, auth.ErrPasswordBlank):
		return "password.blank"
	case errors.Is(err, auth.ErrPasswordRepeated):
		return "password.repeated"
	case errors.Is(err, auth.ErrPasswordSequence):
		return "password.sequence"
	case errors.Is(err, auth.ErrPasswordPersonal):
		return "password.personal"
	default:
		return "password.invalid"
	}
}

// changePassword checks the current password, applies the policy to the
// new one and ends the user's other sessions.
func (s *Server) changePassword(c echo.Context) error {
	ctx := c.Request().Context()
	cur := auth.CurrentUser(c)
	current, next, confirm := c.FormValue("current"), c.FormValue("new"), c.FormValue("confirm")
	errs := web.Errors{}
	status := http.StatusUnprocessableEntity
	// The re-check is counted and may be refused (docs/RULES.md §16.2).
	switch err := s.auth.VerifyCurrentPassword(ctx, s.actor(c), cur.UserID, current); {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.auth.RetryAfterSeconds(err))
		errs.Set("current", "account.password.throttled")
		status = http.StatusTooManyRequests
	case errors.Is(err, auth.ErrInvalidCredentials):
		errs.Set("current", "account.password.wrong")
	case err != nil:
		return err
	}
	if err := auth.CheckPassword(next, cur.Email, cur.DisplayName); err != nil {
		errs.Set("new", passwordErrorID(err))
	} else if next != confirm {
		errs.Set("confirm", "account.password.mismatch")
	}
	if len(errs) > 0 {
		return s.renderAccount(c, status, errs)
	}
	hash, err := s.hasher.Hash(ctx, next)
	if err != nil {
		return err
	}
	if err := s.store.SetUserPassword(ctx, s.actor(c), cur.UserID, hash, cur.TokenHash); err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/account", "ok", "account.password.changed")
}
