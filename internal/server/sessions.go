package server

import (
	"context"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/web"
)

// sessionRows lists the signed-in user's live sessions for the account
// page, this browser's first (docs/RULES.md §16.5).
func (s *Server) sessionRows(ctx context.Context, cur *auth.Current) ([]web.SessionRow, error) {
	list, err := s.store.UserSessions(ctx, cur.UserID, cur.TokenHash, s.now(), s.auth.Idle)
	if err != nil {
		return nil, err
	}
	rows := make([]web.SessionRow, 0, len(list))
	for _, ses := range list {
		browser, os := describeUserAgent(ses.UserAgent)
		rows = append(rows, web.SessionRow{ID: ses.PublicID, Browser: browser, OS: os, UserAgent: ses.UserAgent,
			Address: ses.ClientIP, SignedIn: ses.CreatedAt.UTC().Format("2006-01-02 15:04"),
			LastSeen: ses.LastSeenAt.UTC().Format("2006-01-02 15:04"), Current: ses.Current})
	}
	return rows, nil
}

// sessionID is the form of a session's public id (a UUID); anything else
// names no session.
var sessionID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// endSession ends one of the signed-in user's sessions, named by its public
// id: another browser is signed out at its next request; ending this
// browser's own session signs it out here and now. Someone else's session,
// or one already ended, is not found (docs/RULES.md §16.5).
func (s *Server) endSession(c echo.Context) error {
	id := strings.ToLower(c.Param("id"))
	if !sessionID.MatchString(id) {
		return echo.ErrNotFound
	}
	cur := auth.CurrentUser(c)
	wasCurrent, err := s.store.EndSession(c.Request().Context(), s.actor(c), id, cur.TokenHash)
	if err != nil {
		return err
	}
	if wasCurrent {
		c.SetCookie(s.auth.ClearCookie())
		return s.redirectWithFlash(c, "/login", "ok", "account.sessions.ended_self")
	}
	return s.redirectWithFlash(c, "/account#sessions", "ok", "account.sessions.ended")
}

// describeUserAgent names the browser and the operating system a
// User-Agent header announces, for a person to recognise their device
// ("Firefox", "Windows"); either is "" when the header does not say. It is
// a description, not a check: the header is whatever the client sent.
func describeUserAgent(ua string) (browser, os string) {
	has := func(s string) bool { return strings.Contains(ua, s) }
	switch {
	case has("MicroMessenger/"):
		browser = "WeChat"
	case has("Edg/"), has("EdgA/"), has("EdgiOS/"):
		browser = "Edge"
	case has("OPR/"), has("Opera"):
		browser = "Opera"
	case has("SamsungBrowser/"):
		browser = "Samsung Internet"
	case has("Firefox/"), has("FxiOS/"):
		browser = "Firefox"
	case has("HeadlessChrome/"):
		browser = "Headless Chrome"
	case has("Chromium/"):
		browser = "Chromium"
	case has("Chrome/"), has("CriOS/"):
		browser = "Chrome"
	case has("Safari/") && has("Version/"):
		browser = "Safari"
	case strings.HasPrefix(ua, "curl/"):
		browser = "curl"
	case strings.HasPrefix(ua, "Go-http-client/"):
		browser = "Go"
	case strings.HasPrefix(ua, "python-requests/"), strings.HasPrefix(ua, "Python-urllib/"):
		browser = "Python"
	}
	switch {
	case has("HarmonyOS"), has("OpenHarmony"):
		os = "HarmonyOS"
	case has("Windows NT"), has("Windows Phone"):
		os = "Windows"
	case has("iPhone"), has("iPod"):
		os = "iOS"
	case has("iPad"):
		os = "iPadOS"
	case has("Android"):
		os = "Android"
	case has("CrOS"):
		os = "ChromeOS"
	case has("Mac OS X"), has("Macintosh"):
		os = "macOS"
	case has("Linux"), has("X11"):
		os = "Linux"
	}
	return browser, os
}
