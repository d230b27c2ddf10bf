package web

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gpuquote/internal/notify"
	"gpuquote/internal/user"
)

// LoginView is the login page's view model.
type LoginView struct {
	Page  Page
	Email string
	Next  string
	// ErrorID is the catalog message of a failed attempt (identical for an
	// unknown email and a wrong password), ErrorArgs its arguments.
	ErrorID   string
	ErrorArgs []any
	Errors    Errors
}

// AccountView is the "my account" page's view model.
type AccountView struct {
	Page        Page
	Email       string
	DisplayName string
	Role        string
	Errors      Errors
	// Tokens are the user's live API tokens, newest first.
	Tokens []APITokenRow
	// NewToken is the token just created, shown this once; nil otherwise.
	NewToken *NewAPIToken
	// TokenErrors are the errors of the create-token form.
	TokenErrors Errors
	// TokenForm is what the create-token form was sent with (its
	// defaults on a first showing), so a refused form keeps its choices.
	TokenForm APITokenForm
	// Sessions are the user's live sessions, this browser's first.
	Sessions []SessionRow
	// MailChoice is how the user's notices reach them by mail
	// (notify.MailEach, MailDaily or MailNone); MailOn says whether this
	// site sends mail at all.
	MailChoice string
	MailOn     bool
	// MailErrors are the errors of the mail choice form.
	MailErrors Errors
	// Feed is the user's feed token, nil when they hold none
	// (docs/RULES.md §24.6).
	Feed *FeedTokenRow
	// NewFeed holds the feed addresses of a token just made, shown this
	// once; nil otherwise.
	NewFeed *NewFeedURLs
}

// FeedTokenRow is what the account page tells of a feed token: never the
// token, which is not kept.
type FeedTokenRow struct {
	Created string // UTC, "2006-01-02 15:04"
	// LastUsed is "" when no feed was read with it yet.
	LastUsed string
}

// NewFeedURLs are the feed addresses of a feed token just made.
type NewFeedURLs struct {
	Quotes, Watch string
}

// NewFeedTokenRow is the account page's row of a feed token.
func NewFeedTokenRow(t user.FeedToken) *FeedTokenRow {
	r := &FeedTokenRow{Created: t.CreatedAt.UTC().Format("2006-01-02 15:04")}
	if t.LastUsedAt != nil {
		r.LastUsed = t.LastUsedAt.UTC().Format("2006-01-02 15:04")
	}
	return r
}

// mailChoices are the mail choices in the order the account page offers
// them.
var mailChoices = notify.MailChoices

// mailChoiceDescribedBy names what describes the mail choices: the hint,
// and the error when there is one.
func mailChoiceDescribedBy(errs Errors) string {
	if errs.Has("mail_choice") {
		return "mail-choice-hint err-mail_choice"
	}
	return "mail-choice-hint"
}

// SessionRow is one live session in the account page's list, named by its
// public id (never by its token).
type SessionRow struct {
	ID string
	// Browser and OS describe the device from its User-Agent; either is ""
	// when the header does not say.
	Browser, OS string
	// UserAgent is the header itself, for a closer look.
	UserAgent string
	// Address is the client address the session signed in from.
	Address  string
	SignedIn string // UTC, "2006-01-02 15:04"
	LastSeen string // UTC, "2006-01-02 15:04"
	// Current marks this browser's own session.
	Current bool
}

// sessionDevice words a session's device: "Firefox on Windows", or as much
// of it as the User-Agent told.
func sessionDevice(ctx context.Context, r SessionRow) string {
	switch {
	case r.Browser != "" && r.OS != "":
		return T(ctx, "account.sessions.device", "Browser", r.Browser, "OS", r.OS)
	case r.Browser != "":
		return r.Browser
	case r.OS != "":
		return T(ctx, "account.sessions.device.os", "OS", r.OS)
	default:
		return T(ctx, "account.sessions.device.unknown")
	}
}

// APITokenRow is one API token in the account page's list.
type APITokenRow struct {
	ID      int64
	Name    string
	Created string // UTC, "2006-01-02 15:04"
	// LastUsed is "" when the token was never used.
	LastUsed string
	// Scopes are what it may do (docs/RULES.md §19.2).
	Scopes []string
	// Expires is when it stops working, UTC "2006-01-02 15:04"; "" when it
	// never expires (a token made before expiries existed).
	Expires string
}

// APITokenForm holds the create-token form's choices: the name, the
// scopes ticked and the lifetime in days (one of APITokenLifetimes).
type APITokenForm struct {
	Name         string
	Scopes       []string
	ExpiresDays  int
	ScopeChoices []string // every scope, in the order the form lists them
}

// APITokenLifetimes are the lifetimes a new token may be given, in days;
// APITokenDefaultLifetime is the form's default.
var APITokenLifetimes = []int{7, 30, 90, 365}

const APITokenDefaultLifetime = 90

// NewAPIToken is a token just created: its only showing.
type NewAPIToken struct {
	Name    string
	Scopes  []string
	Expires string // UTC, "2006-01-02 15:04"
	Token   string
	// BaseURL is this site's address, for the example command.
	BaseURL string
}

// scopeKey is a scope's part of its catalog keys: "quotes:write" →
// "quotes_write" (apitoken.scope.quotes_write and its .hint).
func scopeKey(scope string) string { return strings.ReplaceAll(scope, ":", "_") }

// DescribeUserAgent names the browser and the operating system a
// User-Agent header announces, for a person to recognise their device
// ("Firefox", "Windows"); either is "" when the header does not say. It is
// a description, not a check: the header is whatever the client sent.
func DescribeUserAgent(ua string) (browser, os string) {
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

// NewSessionRows lists a user's live sessions for the account page, in
// their order, each with the device its User-Agent names.
func NewSessionRows(list []user.LiveSession) []SessionRow {
	rows := make([]SessionRow, 0, len(list))
	for _, ses := range list {
		browser, os := DescribeUserAgent(ses.UserAgent)
		rows = append(rows, SessionRow{ID: ses.PublicID, Browser: browser, OS: os, UserAgent: ses.UserAgent,
			Address: ses.ClientIP, SignedIn: ses.CreatedAt.UTC().Format("2006-01-02 15:04"),
			LastSeen: ses.LastSeenAt.UTC().Format("2006-01-02 15:04"), Current: ses.Current})
	}
	return rows
}

// WithTokens is the account page v with the user's API tokens and the
// create-token form: its defaults unless v brings what was sent, and
// every scope a user of role may choose (user.ScopesFor).
func (v AccountView) WithTokens(tokens []user.APIToken, role string) AccountView {
	for _, t := range tokens {
		row := APITokenRow{ID: t.ID, Name: t.Name, Created: t.CreatedAt.UTC().Format("2006-01-02 15:04"), Scopes: t.Scopes}
		if t.LastUsedAt != nil {
			row.LastUsed = t.LastUsedAt.UTC().Format("2006-01-02 15:04")
		}
		if t.ExpiresAt != nil {
			row.Expires = t.ExpiresAt.UTC().Format("2006-01-02 15:04")
		}
		v.Tokens = append(v.Tokens, row)
	}
	if v.TokenForm.ExpiresDays == 0 {
		v.TokenForm = APITokenForm{Scopes: []string{user.ScopeRead}, ExpiresDays: APITokenDefaultLifetime}
	}
	v.TokenForm.ScopeChoices = user.ScopesFor(role)
	return v
}

// ReadAPITokenForm reads the create-token form of a user of role: the
// name (trimmed), the scopes ticked, each once and in the form's order, at
// least one and each one the role may give a token (user.ScopesFor,
// docs/RULES.md §19.2), and one of APITokenLifetimes (the default when it
// is none); errs are the problems of the scopes and the lifetime.
func ReadAPITokenForm(values url.Values, role string) (f APITokenForm, errs Errors) {
	errs = Errors{}
	f.Name = strings.TrimSpace(values.Get("name"))
	allowed := user.ScopesFor(role)
	for _, sc := range allowed {
		if slices.Contains(values["scope"], sc) {
			f.Scopes = append(f.Scopes, sc)
		}
	}
	for _, sc := range values["scope"] {
		switch {
		case !slices.Contains(user.APIScopes, sc):
			errs.Set("token_scope", "apitoken.scope.unknown")
		case !slices.Contains(allowed, sc):
			errs.Set("token_scope", "apitoken.scope.not_for_role")
		}
	}
	if len(f.Scopes) == 0 && errs["token_scope"].ID == "" {
		errs.Set("token_scope", "apitoken.scope.required")
	}
	days, err := strconv.Atoi(values.Get("expires_days"))
	if err != nil || !slices.Contains(APITokenLifetimes, days) {
		errs.Set("token_expiry", "apitoken.expiry.invalid")
		days = APITokenDefaultLifetime
	}
	f.ExpiresDays = days
	return f, errs
}
