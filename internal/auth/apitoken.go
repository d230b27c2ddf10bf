package auth

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// APITokenPrefix starts every personal API token, so a leaked one is
// recognisable in logs and by secret scanners.
const APITokenPrefix = "gqt_"

// maxBearerLen bounds the bearer token looked up (ours are 47 characters).
const maxBearerLen = 200

// NewAPIToken returns a fresh personal API token: the prefix and 256
// random bits. Only HashToken of it is stored.
func NewAPIToken() string { return APITokenPrefix + NewToken() }

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header; ok is false when the request carries none.
func bearerToken(r *http.Request) (token string, ok bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// ErrInsufficientScope is the 403 of a live token that lacks the route's
// scope (docs/RULES.md §19.2).
var ErrInsufficientScope = echo.NewHTTPError(http.StatusForbidden, "insufficient scope")

// errBadToken is the 401 of an unknown, revoked, expired or disabled user's token.
var errBadToken = echo.NewHTTPError(http.StatusUnauthorized, "invalid API token")

// LoadFor is Load for a route with policy p. On a route whose policy
// admits tokens, a request with "Authorization: Bearer" is authenticated by
// that token alone: a live, unexpired token of an enabled user makes its
// user current when it holds the route's scope (403 when it does not),
// anything else is 401 (never a fall-back to the cookie). On every other
// route the header is ignored and the session cookie decides, as in Load.
func (m *Manager) LoadFor(p Policy) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		load := m.Load(next)
		if !p.Token {
			return load
		}
		return func(c echo.Context) error {
			token, ok := bearerToken(c.Request())
			if !ok {
				return load(c)
			}
			if token == "" || len(token) > maxBearerLen {
				return m.rejectToken(c)
			}
			ctx := c.Request().Context()
			t, u, found, err := m.Store.UserByAPIToken(ctx, HashToken(token))
			if err != nil {
				return err
			}
			if !found || t.Expired(m.Now()) {
				return m.rejectToken(c)
			}
			if p.Scope != "" && !t.HasScope(p.Scope) {
				// RFC 6750 §3.1: the token is good but not for this.
				c.Response().Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+p.Scope+`"`)
				return ErrInsufficientScope
			}
			c.Set(ctxCurrent, &Current{UserID: u.ID, Email: u.Email, DisplayName: u.DisplayName, Role: Role(u.Role), APITokenID: t.ID})
			now := m.Now()
			if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= touchEvery {
				if err := m.Store.TouchAPIToken(ctx, t.ID, now); err != nil {
					m.Logger.WarnContext(ctx, "touch api token", "err", err)
				}
			}
			return next(c)
		}
	}
}

// rejectToken answers a bad bearer token with 401 and the challenge
// RFC 6750 names.
func (m *Manager) rejectToken(c echo.Context) error {
	c.Response().Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	return errBadToken
}
