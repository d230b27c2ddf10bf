package pages

import (
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
)

// sessionID is the form of a session's public id (a UUID); anything else
// names no session.
var sessionID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// EndSession ends one of the signed-in user's sessions, named by its public
// id: another browser is signed out at its next request; ending this
// browser's own session signs it out here and now. Someone else's session,
// or one already ended, is not found (docs/RULES.md §16.5).
func (s *Handlers) EndSession(c echo.Context) error {
	id := strings.ToLower(c.Param("id"))
	if !sessionID.MatchString(id) {
		return echo.ErrNotFound
	}
	cur := auth.CurrentUser(c)
	wasCurrent, err := s.Store.EndSession(c.Request().Context(), s.Actor(c), id, cur.TokenHash)
	if err != nil {
		return err
	}
	if wasCurrent {
		c.SetCookie(s.Auth.ClearCookie())
		return s.RedirectWithFlash(c, "/login", "ok", "account.sessions.ended_self")
	}
	return s.RedirectWithFlash(c, "/account#sessions", "ok", "account.sessions.ended")
}
