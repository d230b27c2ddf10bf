package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestAnonCSRFTokenIsSigned(t *testing.T) {
	s := NewSigner([]byte(strings.Repeat("k", 32)))
	other := NewSigner([]byte(strings.Repeat("o", 32)))
	tok := newAnonCSRF(s)
	if !validAnonCSRF(s, tok) || tok == newAnonCSRF(s) {
		t.Fatalf("fresh token %q does not verify or repeats", tok)
	}
	nonce, mac, _ := strings.Cut(tok, ".")
	for _, bad := range []string{"", nonce, strings.Repeat("A", 43), nonce + ".", nonce + "." + mac[:len(mac)-1],
		nonce[1:] + "." + mac, tok + "x", newAnonCSRF(other),
		nonce + "." + s.Sign("device", nonce)} { // signed, but for another purpose
		if validAnonCSRF(s, bad) {
			t.Errorf("%q verifies", bad)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	e := echo.New()
	cases := []struct {
		name   string
		site   Site
		host   string
		origin []string
		header map[string]string
		want   bool
	}{
		{"absent", Site{}, "a.example:8080", nil, nil, true},
		{"same", Site{}, "a.example:8080", []string{"http://a.example:8080"}, nil, true},
		{"upper case", Site{}, "A.example:8080", []string{"HTTP://a.EXAMPLE:8080"}, nil, true},
		{"default port in Host", Site{}, "a.example:80", []string{"http://a.example"}, nil, true},
		{"IPv6", Site{}, "[::1]:8080", []string{"http://[::1]:8080"}, nil, true},
		{"other host", Site{}, "a.example:8080", []string{"http://b.example:8080"}, nil, false},
		{"other port", Site{}, "a.example:8080", []string{"http://a.example:8081"}, nil, false},
		{"other scheme", Site{}, "a.example", []string{"https://a.example"}, nil, false},
		{"null", Site{}, "a.example", []string{"null"}, nil, false},
		{"empty", Site{}, "a.example", []string{""}, nil, false},
		{"two", Site{}, "a.example", []string{"http://a.example", "http://a.example"}, nil, false},
		{"userinfo", Site{}, "a.example", []string{"http://u@a.example"}, nil, false},
		{"TLS site behind a proxy", Site{TLS: true}, "a.example", []string{"https://a.example"}, nil, true},
		{"TLS site, plain origin", Site{TLS: true}, "a.example", []string{"http://a.example"}, nil, false},
		// Echo believes X-Forwarded-Proto from a private-network peer only
		// (the test request comes from 192.0.2.1 unless RemoteAddr says).
		{"proxy says https", Site{}, "a.example", []string{"https://a.example"}, map[string]string{"X-Forwarded-Proto": "https", "RemoteAddr": "10.0.0.1:1234"}, true},
		{"a public peer says https", Site{}, "a.example", []string{"https://a.example"}, map[string]string{"X-Forwarded-Proto": "https"}, false},
		{"public URL", Site{PublicURL: "https://q.example.com"}, "10.0.0.5:8080", []string{"https://q.example.com"}, nil, true},
		{"public URL with its port", Site{PublicURL: "https://q.example.com:443"}, "x", []string{"https://q.example.com"}, nil, true},
		{"public URL, Host's origin", Site{PublicURL: "https://q.example.com"}, "10.0.0.5:8080", []string{"http://10.0.0.5:8080"}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Host = c.host
			if c.origin != nil {
				req.Header["Origin"] = c.origin
			}
			for k, v := range c.header {
				if k == "RemoteAddr" {
					req.RemoteAddr = v
					continue
				}
				req.Header.Set(k, v)
			}
			if got := c.site.originAllowed(e.NewContext(req, httptest.NewRecorder())); got != c.want {
				t.Errorf("%v", got)
			}
		})
	}
}
