package config

import (
	"strings"
	"testing"
)

// TestParseSMTP: GPUQUOTE_SMTP_URL's forms, and a bad value's one line
// that never repeats the password (docs/RULES.md §18.4).
func TestParseSMTP(t *testing.T) {
	s, err := ParseSMTP("smtp://mailer:s3cret-pw@mail.example.com?from=gpuquote@example.com")
	if err != nil || s.ImplicitTLS || s.Addr() != "mail.example.com:587" || s.Username != "mailer" || s.Password != "s3cret-pw" ||
		s.From != "gpuquote@example.com" || strings.Contains(s.String(), "s3cret") {
		t.Errorf("smtp: %+v, %v", s, err)
	}
	s, err = ParseSMTP("smtps://mail.example.com:2465?from=gpuquote@example.com")
	if err != nil || !s.ImplicitTLS || s.Addr() != "mail.example.com:2465" || s.Username != "" {
		t.Errorf("smtps: %+v, %v", s, err)
	}
	for _, bad := range []string{
		"http://u:s3cret-pw@mail.example.com?from=a@example.com",
		"smtp://u:s3cret-pw@mail.example.com",
		"smtp://u:s3cret-pw@mail.example.com?from=not-an-address",
		"smtp://u:s3cret-pw@mail.example.com:99999?from=a@example.com",
		"smtp://u:s3cret-pw@?from=a@example.com",
		"smtp://u:s3cret-pw@mail.example.com?from=a@example.com&x=1",
	} {
		_, err := ParseSMTP(bad)
		if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	c, err := Parse(func(k string) (string, bool) {
		if k == "GPUQUOTE_SMTP_URL" {
			return "smtp://u:s3cret-pw@mail.example.com", true
		}
		return "", false
	})
	if err == nil || c.SMTP != nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Parse with a bad GPUQUOTE_SMTP_URL: %v", err)
	}
}
