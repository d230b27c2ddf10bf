package server

import (
	"net/url"
	"regexp"
	"strings"

	"gpuquote/internal/auth"
)

// redacted stands in the log for a secret.
const redacted = "REDACTED"

// apiTokenInText finds a personal API token (auth.APITokenPrefix and its
// random part) anywhere in a string.
var apiTokenInText = regexp.MustCompile(regexp.QuoteMeta(auth.APITokenPrefix) + `[A-Za-z0-9_-]+`)

// feedTokenInText finds a feed token (auth.FeedTokenPrefix and its random
// part) anywhere in a string: the watch feed's address holds one in its
// path (docs/RULES.md §24.6).
var feedTokenInText = regexp.MustCompile(regexp.QuoteMeta(auth.FeedTokenPrefix) + `[A-Za-z0-9_-]+`)

// redactTokens keeps only the prefix of every API or feed token in s.
func redactTokens(s string) string {
	s = apiTokenInText.ReplaceAllString(s, auth.APITokenPrefix+redacted)
	return feedTokenInText.ReplaceAllString(s, auth.FeedTokenPrefix+redacted)
}

// secretParam reports whether a query parameter's name says its value is a
// secret: a token of any kind (access_token, token, csrf_token, …), a
// password, a secret, an API key, a CSRF token or a signature. The
// comparison ignores case.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, part := range []string{"token", "passw", "secret", "csrf", "api_key", "apikey"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	switch n {
	case "key", "auth", "authorization", "sig", "signature", "credential", "credentials":
		return true
	}
	return false
}

// redactForLog is uri as the request log writes it (docs/RULES.md §16.6): the
// value of every secret-bearing query parameter (secretParam) is
// REDACTED, an API or feed token anywhere in the path or a value keeps
// only its prefix, and a value that is itself an address with a query (the ?next=
// of the login redirect) is redacted the same way. Everything else stays
// as the client wrote it.
func redactForLog(uri string) string { return redactURI(uri, 3) }

func redactURI(uri string, depth int) string {
	path, query, hasQuery := strings.Cut(uri, "?")
	path = redactTokens(path)
	if !hasQuery {
		return path
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		k, v, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		switch {
		case secretParam(name):
			if hasValue {
				parts[i] = k + "=" + redacted
			}
		case hasValue:
			parts[i] = k + "=" + redactValue(v, depth)
		default:
			parts[i] = redactTokens(p)
		}
	}
	return path + "?" + strings.Join(parts, "&")
}

// redactValue redacts a query value as written (escaped): an API token in
// it, and, while depth lasts, the secrets of an address it holds.
func redactValue(raw string, depth int) string {
	v, err := url.QueryUnescape(raw)
	if err != nil {
		return redactTokens(raw)
	}
	var out string
	if depth > 0 && strings.Contains(v, "?") {
		out = redactURI(v, depth-1)
	} else {
		out = redactTokens(v)
	}
	if out == v {
		return raw
	}
	return url.QueryEscape(out)
}
