package config

import (
	"errors"
	"net"
	"net/mail"
	"net/url"
	"strconv"
)

// SMTP is where mail goes (GPUQUOTE_SMTP_URL, docs/RULES.md §18.4):
// smtp://[user:pass@]host[:port]?from=address sends over STARTTLS when the
// server offers it (port 587 by default), smtps:// over TLS from the first
// byte (port 465 by default).
type SMTP struct {
	// ImplicitTLS: smtps://.
	ImplicitTLS bool
	Host        string
	Port        string
	Username    string
	// Password is never logged nor repeated in an error.
	Password string
	// From is the sender's address, as the mail's From header shows it.
	From string
}

// Addr is host:port.
func (s SMTP) Addr() string { return net.JoinHostPort(s.Host, s.Port) }

// String describes the server without the password (for logs).
func (s SMTP) String() string {
	scheme := "smtp"
	if s.ImplicitTLS {
		scheme = "smtps"
	}
	return scheme + "://" + s.Addr()
}

// errSMTPURL is the one line a bad GPUQUOTE_SMTP_URL gets: the value may
// carry a password, so it is never repeated.
var errSMTPURL = errors.New("GPUQUOTE_SMTP_URL: want smtp://user:password@host:port?from=gpuquote@example.com " +
	"(or smtps:// for TLS from the first byte); the value is not repeated here as it may hold a password")

// ParseSMTP reads a GPUQUOTE_SMTP_URL value.
func ParseSMTP(v string) (*SMTP, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") {
		return nil, errSMTPURL
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil || len(q) != 1 || len(q["from"]) != 1 {
		return nil, errSMTPURL
	}
	from, err := mail.ParseAddress(q.Get("from"))
	if err != nil || from.Name != "" {
		return nil, errSMTPURL
	}
	s := &SMTP{ImplicitTLS: u.Scheme == "smtps", Host: u.Hostname(), Port: u.Port(), From: from.Address}
	if s.Port == "" {
		s.Port = "587"
		if s.ImplicitTLS {
			s.Port = "465"
		}
	}
	if p, err := strconv.Atoi(s.Port); err != nil || p < 1 || p > 65535 {
		return nil, errSMTPURL
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	return s, nil
}
