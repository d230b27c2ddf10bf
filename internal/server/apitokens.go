package server

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// apiTokenNameMax bounds a token's name (the column's CHECK says the same).
const apiTokenNameMax = 100

// renderAccountView renders the account page: v brings the form errors or
// the token just created; the user and their tokens are filled in here.
func (s *Server) renderAccountView(c echo.Context, status int, v web.AccountView) error {
	cur := auth.CurrentUser(c)
	tokens, err := s.store.APITokens(c.Request().Context(), cur.UserID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		row := web.APITokenRow{ID: t.ID, Name: t.Name, Created: t.CreatedAt.UTC().Format("2006-01-02 15:04")}
		if t.LastUsedAt != nil {
			row.LastUsed = t.LastUsedAt.UTC().Format("2006-01-02 15:04")
		}
		v.Tokens = append(v.Tokens, row)
	}
	if v.Sessions, err = s.sessionRows(c.Request().Context(), cur); err != nil {
		return err
	}
	v.Page = s.page(c, "account.title")
	v.Email, v.DisplayName, v.Role = cur.Email, cur.DisplayName, string(cur.Role)
	return s.render(c, status, v.Page, web.Account(v))
}

// createAPIToken makes a personal API token for the signed-in user and
// shows it on the account page this once: only its hash is stored, so it
// can never be shown again (201, like a new user's one-time password). The
// user's password is asked for again first: a token outlives the session,
// so a borrowed or stolen session must not be able to mint one
// (docs/RULES.md §16.5). A wrong password creates nothing (422).
func (s *Server) createAPIToken(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	password := c.FormValue("password")
	errs := web.Errors{}
	switch {
	case name == "":
		errs.Set("token_name", "form.required")
	case utf8.RuneCountInString(name) > apiTokenNameMax:
		errs.Set("token_name", "apitoken.name.too_long")
	}
	if password == "" {
		errs.Set("token_password", "form.required")
	}
	if len(errs) > 0 {
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs})
	}
	// The re-check is counted and may be refused like the one of
	// /account/password (docs/RULES.md §16.2).
	switch err := s.auth.VerifyCurrentPassword(c.Request().Context(), s.actor(c), auth.CurrentUser(c).UserID, password); {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.auth.RetryAfterSeconds(err))
		errs.Set("token_password", "account.password.throttled")
		return s.renderAccountView(c, http.StatusTooManyRequests, web.AccountView{TokenErrors: errs})
	case errors.Is(err, auth.ErrInvalidCredentials):
		errs.Set("token_password", "account.password.wrong")
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs})
	case err != nil:
		return err
	}
	token := auth.NewAPIToken()
	t, err := s.store.CreateAPIToken(c.Request().Context(), s.actor(c), name, auth.HashToken(token), s.now())
	if errors.Is(err, store.ErrTooManyTokens) {
		errs.Set("token_name", "apitoken.too_many")
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs})
	}
	if err != nil {
		return err
	}
	return s.renderAccountView(c, http.StatusCreated, web.AccountView{
		NewToken: &web.NewAPIToken{Name: t.Name, Token: token, BaseURL: s.cfg.BaseURL()}})
}

// revokeAPIToken revokes one of the signed-in user's tokens; another
// user's token, or one already revoked, is not found.
func (s *Server) revokeAPIToken(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := s.store.RevokeAPIToken(c.Request().Context(), s.actor(c), id, s.now())
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/account", "ok", "apitoken.revoked", "Name", t.Name)
}
