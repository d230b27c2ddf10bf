package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestBearerToken(t *testing.T) {
	cases := []struct {
		header, token string
		ok            bool
	}{
		{"", "", false},
		{"Bearer gqt_abc", "gqt_abc", true},
		{"bearer  gqt_abc ", "gqt_abc", true},
		{"BEARER gqt_abc", "gqt_abc", true},
		{"Bearer", "", true},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearergqt_abc", "", false},
		{"Token gqt_abc", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		tok, ok := bearerToken(r)
		if tok != c.token || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.header, tok, ok, c.token, c.ok)
		}
	}
	if tok := NewAPIToken(); !strings.HasPrefix(tok, APITokenPrefix) || len(tok) != len(APITokenPrefix)+43 || tok == NewAPIToken() {
		t.Errorf("NewAPIToken = %q", tok)
	}
}

// TestCSRFSkipsOnlyTokenRequestsOnTokenRoutes: a request authenticated by
// an API token skips the CSRF check on a Token route, and nowhere else; a
// cookie session on a Token route still needs its token.
func TestCSRFSkipsOnlyTokenRequestsOnTokenRoutes(t *testing.T) {
	e := echo.New()
	ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	cases := []struct {
		name   string
		policy Policy
		cur    *Current
		want   int
	}{
		{"token on a token route", Policy{AnyUser: true, Token: true}, &Current{UserID: 1, APITokenID: 7}, http.StatusOK},
		{"cookie on a token route", Policy{AnyUser: true, Token: true}, &Current{UserID: 1, CSRFToken: "s"}, http.StatusForbidden},
		{"token on another route", Policy{AnyUser: true}, &Current{UserID: 1, APITokenID: 7}, http.StatusForbidden},
		{"anonymous on a token route", Policy{AnyUser: true, Token: true}, nil, http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
			rec := httptest.NewRecorder()
			ctx := e.NewContext(req, rec)
			if c.cur != nil {
				ctx.Set(ctxCurrent, c.cur)
				ctx.Set(ctxCSRF, c.cur.CSRFToken)
			}
			err := CSRF(c.policy, Site{})(ok)(ctx)
			status := rec.Code
			if he, isHTTP := err.(*echo.HTTPError); isHTTP {
				status = he.Code
			}
			if status != c.want {
				t.Errorf("status %d, want %d", status, c.want)
			}
		})
	}
}

func TestTokenPolicyAdmitsNobodyAlone(t *testing.T) {
	if (Policy{Token: true}).Defined() {
		t.Error("Token alone must not admit anybody")
	}
	if !(Policy{AnyUser: true, Token: true}).Allows(RoleAnalyst, true) || (Policy{AnyUser: true, Token: true}).Allows("", false) {
		t.Error("Token routes admit signed-in users only")
	}
}
