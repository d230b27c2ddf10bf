package pages

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/notify"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// throttled is the message of an attempt the login throttle refused, of
// the family id: it names the configured window, in whole minutes
// (docs/RULES.md §16.2).
func (s *Handlers) throttled(id string) form.Message {
	return web.PluralMessage(id, s.Auth.WindowMinutes())
}

func (s *Handlers) LoginForm(c echo.Context) error {
	next := server.LocalPath(c.QueryParam("next"), "/")
	if auth.CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, next)
	}
	p := s.Page(c, "login.title")
	return s.Render(c, http.StatusOK, p, web.Login(web.LoginView{Page: p, Next: next}))
}

// Login signs a user in. An unknown email, a wrong password and a disabled
// account give the same status and the same page.
func (s *Handlers) Login(c echo.Context) error {
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	v := web.LoginView{Email: email, Next: server.LocalPath(c.FormValue("next"), "/"), Errors: web.Errors{}}
	if email == "" {
		v.Errors.Set("email", "form.required")
	}
	if password == "" {
		v.Errors.Set("password", "form.required")
	}
	if len(v.Errors) > 0 {
		v.Page = s.Page(c, "login.title")
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Login(v))
	}
	if cur := auth.CurrentUser(c); cur != nil {
		// Signing in as someone else ends the current session first.
		if err := s.Auth.Logout(c.Request().Context(), s.Actor(c), cur); err != nil {
			return err
		}
	}
	device := ""
	if ck, err := c.Cookie(s.Auth.DeviceCookieName()); err == nil {
		device = ck.Value
	}
	token, u, err := s.Auth.Login(c.Request().Context(), s.Actor(c), email, password, c.Request().UserAgent(), device)
	switch {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.Auth.RetryAfterSeconds(err))
		msg := s.throttled("login.error.throttled")
		v.Page, v.ErrorID, v.ErrorArgs = s.Page(c, "login.title"), msg.ID, msg.Args
		return s.Render(c, http.StatusTooManyRequests, v.Page, web.Login(v))
	case errors.Is(err, auth.ErrInvalidCredentials):
		v.Page, v.ErrorID = s.Page(c, "login.title"), "login.error.invalid"
		return s.Render(c, http.StatusUnauthorized, v.Page, web.Login(v))
	case err != nil:
		return err
	}
	c.SetCookie(s.Auth.SessionCookie(token))
	// A fresh device cookie: later sign-ins from this browser count in a
	// bucket of their own (docs/RULES.md §16.2).
	c.SetCookie(s.Auth.DeviceCookie(u))
	return c.Redirect(http.StatusSeeOther, v.Next)
}

func (s *Handlers) Logout(c echo.Context) error {
	if err := s.Auth.Logout(c.Request().Context(), s.Actor(c), auth.CurrentUser(c)); err != nil {
		return err
	}
	c.SetCookie(s.Auth.ClearCookie())
	return s.RedirectWithFlash(c, "/login", "ok", "logout.done")
}

func (s *Handlers) Account(c echo.Context) error {
	return s.renderAccount(c, http.StatusOK, nil)
}

func (s *Handlers) renderAccount(c echo.Context, status int, errs web.Errors) error {
	return s.renderAccountView(c, status, web.AccountView{Errors: errs})
}

// ChangePassword checks the current password, applies the policy to the
// new one and ends the user's other sessions.
func (s *Handlers) ChangePassword(c echo.Context) error {
	ctx := c.Request().Context()
	cur := auth.CurrentUser(c)
	current, next, confirm := c.FormValue("current"), c.FormValue("new"), c.FormValue("confirm")
	errs := web.Errors{}
	status := http.StatusUnprocessableEntity
	// The re-check is counted and may be refused (docs/RULES.md §16.2).
	switch err := s.Auth.VerifyCurrentPassword(ctx, s.Actor(c), cur.UserID, current); {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.Auth.RetryAfterSeconds(err))
		errs["current"] = s.throttled("account.password.throttled")
		status = http.StatusTooManyRequests
	case errors.Is(err, auth.ErrInvalidCredentials):
		errs.Set("current", "account.password.wrong")
	case err != nil:
		return err
	}
	if err := auth.CheckPassword(next, cur.Email, cur.DisplayName); err != nil {
		errs.Set("new", auth.PasswordMessageID(err))
	} else if next != confirm {
		errs.Set("confirm", "account.password.mismatch")
	}
	if len(errs) > 0 {
		return s.renderAccount(c, status, errs)
	}
	hash, err := s.Hasher.Hash(ctx, next)
	if err != nil {
		return err
	}
	if err := s.Store.SetUserPassword(ctx, s.Actor(c), cur.UserID, hash, cur.TokenHash); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/account", "ok", "account.password.changed")
}

// SetMailChoice records how the signed-in user's notices reach them by
// mail: each one, a daily digest, or none (docs/RULES.md §18.4). Anything
// else re-shows the page with the choice's error (422) and stores nothing.
func (s *Handlers) SetMailChoice(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	choice := values.Get("mail_choice")
	if !notify.ValidMailChoice(choice) {
		errs := web.Errors{}
		if choice == "" {
			errs.Set("mail_choice", "form.required")
		} else {
			errs.Set("mail_choice", "account.mail.invalid")
		}
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{MailErrors: errs})
	}
	cur := auth.CurrentUser(c)
	if err := s.Store.SetMailChoice(c.Request().Context(), s.Actor(c), cur.UserID, choice); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/account#mail", "ok", "account.mail.saved."+choice)
}
