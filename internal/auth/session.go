package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/user"
)

// Current is the signed-in user of a request, with their session.
type Current struct {
	UserID      int64
	Email       string
	DisplayName string
	Role        Role
	TokenHash   []byte
	CSRFToken   string
	// APITokenID is the personal API token the request was authenticated
	// with; 0 for a cookie session.
	APITokenID int64
}

// Login outcomes that handlers turn into pages.
var (
	// ErrInvalidCredentials covers unknown email, wrong password and a
	// disabled account alike: the three must look identical from outside.
	ErrInvalidCredentials = errors.New("auth: invalid credentials")
	// ErrThrottled means too many recent attempts in the counter an attempt
	// fell in (docs/RULES.md §16.2); a *ThrottleError says until when.
	ErrThrottled = errors.New("auth: too many failed logins")
)

// Store is what authentication reads and writes; the store implements it.
// A lookup that finds nothing says so with found == false.
type Store interface {
	CountLoginAttempt(ctx context.Context, a user.Actor, email string, buckets []user.AttemptBucket, now time.Time, window time.Duration) ([]user.AttemptCount, error)
	RecordLoginFailure(ctx context.Context, a user.Actor, email string) error
	RefundLoginAttempt(ctx context.Context, key string, windowStart time.Time) error
	UserByEmail(ctx context.Context, email string) (u user.User, found bool, err error)
	UserByID(ctx context.Context, id int64) (user.User, error)
	CreateSession(ctx context.Context, a user.Actor, ses user.Session) error
	ActiveSession(ctx context.Context, tokenHash []byte, now time.Time, idle time.Duration) (ses user.Session, u user.User, found bool, err error)
	TouchSession(ctx context.Context, tokenHash []byte, now time.Time) error
	DeleteUserSessions(ctx context.Context, a user.Actor, userID int64) error
	UserByAPIToken(ctx context.Context, tokenHash []byte) (t user.APIToken, u user.User, found bool, err error)
	TouchAPIToken(ctx context.Context, id int64, now time.Time) error
}

// Manager issues, loads and revokes sessions and enforces route policies.
type Manager struct {
	Store  Store
	Hasher *Hasher
	Logger *slog.Logger
	// Now is the clock; tests inject their own to check expiry.
	Now func() time.Time
	// Idle and Max are the idle and absolute session lifetimes.
	Idle, Max time.Duration
	// Secure marks cookies Secure and names the session cookie with the
	// __Host- prefix (the site is served over TLS).
	Secure bool
	// Throttle bounds password attempts (docs/RULES.md §16.2).
	Throttle ThrottleConfig
	// Signer signs values the server hands out and must recognise later
	// (device cookies, anonymous CSRF tokens) with the shared key.
	Signer *Signer

	// dummyHash is verified against when the email is unknown, so unknown
	// users cost the same time as wrong passwords.
	dummyHash string
}

// Init prepares the manager (computes the dummy hash); call once.
func (m *Manager) Init(ctx context.Context) error {
	if m.Now == nil {
		m.Now = time.Now
	}
	m.Throttle = m.Throttle.withDefaults()
	h, err := m.Hasher.Hash(ctx, NewToken())
	if err != nil {
		return err
	}
	m.dummyHash = h
	return nil
}

// CookieName is the session cookie's name: __Host-gq_session over TLS (the
// prefix forbids Domain and requires Secure and Path=/), gq_session otherwise.
func (m *Manager) CookieName() string {
	if m.Secure {
		return "__Host-gq_session"
	}
	return "gq_session"
}

// anonCSRFCookie holds the CSRF token of visitors without a session (the
// login form, the language switch, the public calculator).
func (m *Manager) anonCSRFCookie() string {
	if m.Secure {
		return "__Host-gq_csrf"
	}
	return "gq_csrf"
}

// Login checks credentials and, on success, starts a new session with a
// fresh token (so a token planted before login is worthless). It returns the
// token to put in the cookie. device is the value of the request's device
// cookie ("" without one). The attempt is counted before the password is
// checked and may be refused or delayed (docs/RULES.md §16.2); a success
// does not clear any count.
func (m *Manager) Login(ctx context.Context, a user.Actor, email, password, userAgent, device string) (string, user.User, error) {
	now := m.Now()
	email = strings.TrimSpace(email)
	u, found, err := m.Store.UserByEmail(ctx, email)
	if err != nil {
		return "", user.User{}, err
	}
	buckets, address := m.loginBuckets(email, a.ClientIP, device, u, found, now)
	counted, err := m.admit(ctx, a, email, buckets, address)
	if err != nil {
		return "", user.User{}, err
	}
	hash := u.PasswordHash
	if !found {
		hash = m.dummyHash
	}
	ok, verr := m.Hasher.Verify(ctx, password, hash)
	if verr != nil && !errors.Is(verr, ErrMalformedHash) {
		return "", user.User{}, verr
	}
	if !found || !ok || u.Disabled {
		if rerr := m.Store.RecordLoginFailure(ctx, a, email); rerr != nil {
			return "", user.User{}, rerr
		}
		return "", user.User{}, ErrInvalidCredentials
	}
	now = m.Now()
	token := NewToken()
	a.UserID, a.Email = u.ID, u.Email
	err = m.Store.CreateSession(ctx, a, user.Session{
		TokenHash: HashToken(token), UserID: u.ID, CSRFToken: NewToken(),
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(m.Max),
		ClientIP: a.ClientIP, UserAgent: truncate(userAgent, 300),
	})
	if err != nil {
		return "", user.User{}, err
	}
	if address >= 0 {
		// Only the address counter gives the attempt back (docs/RULES.md §16.2).
		if err := m.Store.RefundLoginAttempt(ctx, counted[address].Key, counted[address].WindowStart); err != nil {
			m.Logger.WarnContext(ctx, "refund login attempt", "err", err)
		}
	}
	return token, u, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// SessionCookie is the cookie carrying token until the absolute expiry.
func (m *Manager) SessionCookie(token string) *http.Cookie {
	return &http.Cookie{
		Name: m.CookieName(), Value: token, Path: "/",
		Expires: m.Now().Add(m.Max), MaxAge: int(m.Max / time.Second),
		HttpOnly: true, Secure: m.Secure, SameSite: http.SameSiteLaxMode,
	}
}

// ClearCookie deletes the session cookie in the browser.
func (m *Manager) ClearCookie() *http.Cookie {
	return &http.Cookie{Name: m.CookieName(), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: m.Secure, SameSite: http.SameSiteLaxMode}
}

const (
	ctxCurrent = "auth.current"
	ctxCSRF    = "auth.csrf"
)

// touchEvery limits last-seen writes to one a minute per session.
const touchEvery = time.Minute

// Load reads the session cookie and, when it names a live session of an
// enabled user, makes that user current. Visitors without a session get an
// anonymous CSRF cookie so their forms (login, language) are protected too.
func (m *Manager) Load(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if ck, err := c.Cookie(m.CookieName()); err == nil && ck.Value != "" {
			now := m.Now()
			hash := HashToken(ck.Value)
			ses, u, found, err := m.Store.ActiveSession(ctx, hash, now, m.Idle)
			switch {
			case err != nil:
				return err
			case found:
				cur := &Current{UserID: u.ID, Email: u.Email, DisplayName: u.DisplayName, Role: Role(u.Role),
					TokenHash: ses.TokenHash, CSRFToken: ses.CSRFToken}
				c.Set(ctxCurrent, cur)
				c.Set(ctxCSRF, ses.CSRFToken)
				if now.Sub(ses.LastSeenAt) >= touchEvery {
					if err := m.Store.TouchSession(ctx, hash, now); err != nil {
						m.Logger.WarnContext(ctx, "touch session", "err", err)
					}
				}
				return next(c)
			default:
				c.SetCookie(m.ClearCookie())
			}
		}
		// The anonymous token is one the server signed; a cookie that does
		// not verify (made up, planted, or from before signing) is replaced,
		// never adopted (docs/RULES.md §16.6).
		if m.Signer == nil {
			return errors.New("auth: Manager.Signer is not set")
		}
		token := ""
		if ck, err := c.Cookie(m.anonCSRFCookie()); err == nil && validAnonCSRF(m.Signer, ck.Value) {
			token = ck.Value
		} else {
			token = newAnonCSRF(m.Signer)
			c.SetCookie(m.anonCSRFCookieFor(token))
		}
		c.Set(ctxCSRF, token)
		return next(c)
	}
}

// CurrentUser returns the signed-in user of the request, or nil.
func CurrentUser(c echo.Context) *Current {
	cur, _ := c.Get(ctxCurrent).(*Current)
	return cur
}

// CSRFToken returns the token forms on this page must carry.
func CSRFToken(c echo.Context) string {
	s, _ := c.Get(ctxCSRF).(string)
	return s
}

// ErrUnauthenticated is returned when a route needs a signed-in user.
var ErrUnauthenticated = echo.NewHTTPError(http.StatusUnauthorized)

// Require enforces a route policy: anonymous visitors are sent to the login
// page (GET) or refused with 401, signed-in users without the role get 403.
func (m *Manager) Require(p Policy) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			cur := CurrentUser(c)
			var role Role
			if cur != nil {
				role = cur.Role
			}
			if p.Allows(role, cur != nil) {
				return next(c)
			}
			if cur == nil {
				r := c.Request()
				if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/api/") {
					return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
				}
				return ErrUnauthenticated
			}
			return echo.NewHTTPError(http.StatusForbidden)
		}
	}
}

// ErrCSRF is returned when a state-changing request fails the CSRF check.
var ErrCSRF = echo.NewHTTPError(http.StatusForbidden, "csrf")

// CSRF protects state-changing requests: a request a browser marks as
// cross-site is refused outright, so is one whose Origin header is present
// but not the site's own (docs/RULES.md §16.6), and the form field _csrf or
// the X-CSRF-Token header (htmx) must equal the session's token (or the
// anonymous cookie's for visitors). Safe methods never change state, and
// neither a NoCSRF route nor a request authenticated by an API token on a
// Token route needs the check.
func CSRF(p Policy, site Site) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if p.NoCSRF {
				return next(c)
			}
			if cur := CurrentUser(c); p.Token && cur != nil && cur.APITokenID != 0 {
				return next(c)
			}
			if r.Header.Get("Sec-Fetch-Site") == "cross-site" || !site.originAllowed(c) {
				return ErrCSRF
			}
			want := CSRFToken(c)
			got := r.Header.Get("X-CSRF-Token")
			if got == "" {
				got = c.FormValue("_csrf")
			}
			if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				return ErrCSRF
			}
			return next(c)
		}
	}
}

// Logout ends every session of the current user: signing out in one
// browser signs out everywhere.
func (m *Manager) Logout(ctx context.Context, a user.Actor, cur *Current) error {
	return m.Store.DeleteUserSessions(ctx, a, cur.UserID)
}
