package auth

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// csrfPurpose is the signing purpose of anonymous CSRF tokens.
const csrfPurpose = "csrf"

// newAnonCSRF returns a fresh anonymous CSRF token: a random nonce, a dot
// and the nonce's signature (docs/RULES.md §16.6).
func newAnonCSRF(s *Signer) string {
	nonce := NewToken()
	return nonce + "." + s.Sign(csrfPurpose, nonce)
}

// validAnonCSRF reports whether v is a token newAnonCSRF made with the
// shared key: a value the client chose itself never is.
func validAnonCSRF(s *Signer, v string) bool {
	nonce, mac, ok := strings.Cut(v, ".")
	return ok && len(nonce) == 43 && s.Verify(csrfPurpose, nonce, mac)
}

// Site is what the CSRF check knows of the site's own address, to judge a
// request's Origin header (docs/RULES.md §16.6).
type Site struct {
	// PublicURL, when set, is the site's address as readers reach it: the
	// only origin state-changing requests may come from.
	PublicURL string
	// TLS says the site is served over HTTPS, even when a proxy hands this
	// process plain HTTP.
	TLS bool
}

// originAllowed reports whether a state-changing request may proceed as far
// as its Origin header goes: absent is allowed (the token decides), "null"
// never, any other value only when it is the site's own origin.
func (s Site) originAllowed(c echo.Context) bool {
	r := c.Request()
	vs, present := r.Header["Origin"]
	if !present {
		return true
	}
	if len(vs) != 1 {
		return false
	}
	got, ok := normalOrigin(vs[0])
	if !ok {
		return false // "null", or not an origin at all
	}
	var want string
	if s.PublicURL != "" {
		want, ok = normalOrigin(s.PublicURL)
	} else {
		scheme := c.Scheme()
		if s.TLS || r.TLS != nil {
			scheme = "https"
		}
		want, ok = normalOrigin(scheme + "://" + r.Host)
	}
	return ok && got == want
}

// normalOrigin reduces an absolute http(s) URL to its origin as browsers
// write it: lower-case scheme and host, no default port, no path.
func normalOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" || u.User != nil {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host, true
	}
	return scheme + "://" + net.JoinHostPort(host, port), true
}

// anonCSRFCookieFor is the cookie that carries token to the browser.
func (m *Manager) anonCSRFCookieFor(token string) *http.Cookie {
	return &http.Cookie{Name: m.anonCSRFCookie(), Value: token, Path: "/",
		HttpOnly: true, Secure: m.Secure, SameSite: http.SameSiteLaxMode}
}
