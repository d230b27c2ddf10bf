package pages

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// apiTokenNameMax bounds a token's name (the column's CHECK says the same).
const apiTokenNameMax = 100

// renderAccountView renders the account page: v brings the form errors or
// the token just created; the user and their tokens are filled in here.
func (s *Handlers) renderAccountView(c echo.Context, status int, v web.AccountView) error {
	ctx := c.Request().Context()
	cur := auth.CurrentUser(c)
	tokens, err := s.Store.APITokens(ctx, cur.UserID)
	if err != nil {
		return err
	}
	// The user's live sessions, this browser's first (docs/RULES.md §16.5).
	sessions, err := s.Store.UserSessions(ctx, cur.UserID, cur.TokenHash, s.Now(), s.Auth.Idle)
	if err != nil {
		return err
	}
	// What the form was sent with when it was refused, else the stored
	// choice (docs/RULES.md §18.4).
	if v.MailChoice == "" {
		if v.MailChoice, err = s.Store.MailChoice(ctx, cur.UserID); err != nil {
			return err
		}
	}
	v.MailOn = s.Config.SMTP != nil
	// The feed token (docs/RULES.md §24.6): whether there is one, never
	// the token.
	if ft, found, err := s.Store.FeedToken(ctx, cur.UserID); err != nil {
		return err
	} else if found {
		v.Feed = web.NewFeedTokenRow(ft)
	}
	v = v.WithTokens(tokens, string(cur.Role))
	v.Sessions = web.NewSessionRows(sessions)
	v.Page = s.Page(c, "account.title")
	v.Email, v.DisplayName, v.Role = cur.Email, cur.DisplayName, string(cur.Role)
	return s.Render(c, status, v.Page, web.Account(v))
}

// CreateAPIToken makes a personal API token for the signed-in user and
// shows it on the account page this once: only its hash is stored, so it
// can never be shown again (201, like a new user's one-time password). The
// user's password is asked for again first: a token outlives the session,
// so a borrowed or stolen session must not be able to mint one
// (docs/RULES.md §16.5). A wrong password creates nothing (422).
func (s *Handlers) CreateAPIToken(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	kept, errs := web.ReadAPITokenForm(values, string(auth.CurrentUser(c).Role))
	password := values.Get("password")
	switch {
	case kept.Name == "":
		errs.Set("token_name", "form.required")
	case !form.OneLine(kept.Name):
		errs.Set("token_name", form.MsgLineBreak)
	case utf8.RuneCountInString(kept.Name) > apiTokenNameMax:
		errs.Set("token_name", "apitoken.name.too_long")
	}
	if password == "" {
		errs.Set("token_password", "form.required")
	}
	if len(errs) > 0 {
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs, TokenForm: kept})
	}
	// The re-check is counted and may be refused like the one of
	// /account/password (docs/RULES.md §16.2).
	switch err := s.Auth.VerifyCurrentPassword(c.Request().Context(), s.Actor(c), auth.CurrentUser(c).UserID, password); {
	case errors.Is(err, auth.ErrThrottled):
		c.Response().Header().Set("Retry-After", s.Auth.RetryAfterSeconds(err))
		errs["token_password"] = s.throttled("account.password.throttled")
		return s.renderAccountView(c, http.StatusTooManyRequests, web.AccountView{TokenErrors: errs, TokenForm: kept})
	case errors.Is(err, auth.ErrInvalidCredentials):
		errs.Set("token_password", "account.password.wrong")
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs, TokenForm: kept})
	case err != nil:
		return err
	}
	token := auth.NewAPIToken()
	now := s.Now()
	expires := now.AddDate(0, 0, kept.ExpiresDays)
	t, err := s.Store.CreateAPIToken(c.Request().Context(), s.Actor(c), user.APIToken{Name: kept.Name, Scopes: kept.Scopes, ExpiresAt: &expires},
		auth.HashToken(token), now)
	if errors.Is(err, store.ErrTooManyTokens) {
		errs.Set("token_name", "apitoken.too_many")
		return s.renderAccountView(c, http.StatusUnprocessableEntity, web.AccountView{TokenErrors: errs, TokenForm: kept})
	}
	if err != nil {
		return err
	}
	return s.renderAccountView(c, http.StatusCreated, web.AccountView{
		NewToken: &web.NewAPIToken{Name: t.Name, Scopes: t.Scopes, Expires: expires.UTC().Format("2006-01-02 15:04"),
			Token: token, BaseURL: s.Config.BaseURL()}})
}

// RevokeAPIToken revokes one of the signed-in user's tokens; another
// user's token, or one already revoked, is not found.
func (s *Handlers) RevokeAPIToken(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	t, err := s.Store.RevokeAPIToken(c.Request().Context(), s.Actor(c), id, s.Now())
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/account", "ok", "apitoken.revoked", "Name", t.Name)
}
