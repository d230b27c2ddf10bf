package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"gpuquote/internal/config"
	"gpuquote/internal/loop"
	"gpuquote/internal/store"
)

// Backoff is the wait after each failed try (docs/RULES.md §18.4): 30 s,
// 2 min, 10 min, 1 h, then every 6 h; GiveUpAfter after a mail was queued,
// a failure whose next try would come later is its last.
var Backoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}

// GiveUpAfter bounds how long a mail is retried.
const GiveUpAfter = 48 * time.Hour

// Retry is the store's MailBackoff: the next try after the attempts-th
// failure, or give up.
func Retry(m store.QueuedMail, attempts int, now time.Time) (time.Time, bool) {
	wait := Backoff[min(max(attempts, 1), len(Backoff))-1]
	next := now.Add(wait)
	if next.After(m.CreatedAt.Add(GiveUpAfter)) {
		return time.Time{}, true
	}
	return next, false
}

// Sender sends the queued mail over SMTP.
type Sender struct {
	Store *store.Store
	SMTP  config.SMTP
	// Host names the site in Message-IDs (from GPUQUOTE_PUBLIC_URL or the
	// listen address).
	Host string
	Now  func() time.Time
	Log  *slog.Logger
	// Timeout bounds one SMTP conversation (default 30 s).
	Timeout time.Duration
	// TLS, when set, replaces the TLS settings (tests).
	TLS *tls.Config

	queued                prometheus.Gauge
	sent, failed, retried prometheus.Counter
}

// NewSender makes a sender with its metrics.
func NewSender(st *store.Store, smtpCfg config.SMTP, baseURL string, now func() time.Time, log *slog.Logger) *Sender {
	host := "localhost"
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	if log == nil {
		log = slog.Default()
	}
	return &Sender{Store: st, SMTP: smtpCfg, Host: host, Now: now, Log: log, Timeout: 30 * time.Second,
		queued: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpuquote_mail_queued",
			Help: "Mails waiting to be sent (neither sent nor given up), as of the sender's last pass."}),
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_mail_sent_total",
			Help: "Mails the SMTP server accepted."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_mail_failed_total",
			Help: "Mails given up after their last failed try."}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{Name: "gpuquote_mail_retried_total",
			Help: "Failed tries after which the mail is tried again later."}),
	}
}

// Collectors are the sender's metrics, for the server's registry.
func (s *Sender) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.queued, s.sent, s.failed, s.retried}
}

// Pass is what one SendDue did.
type Pass struct{ Sent, Retried, Failed int }

// maxPerPass bounds one pass: the rest waits for the next.
const maxPerPass = 100

// SendDue sends the mail due now, at most maxPerPass, one row at a time,
// each held by this process alone while it is sent.
func (s *Sender) SendDue(ctx context.Context) (Pass, error) {
	var p Pass
	for range maxPerPass {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		out, err := s.Store.SendNextMail(ctx, s.Now(), s.send, Retry)
		if err != nil {
			return p, err
		}
		switch out {
		case store.MailNone:
			return p, s.count(ctx)
		case store.MailSent:
			p.Sent++
			s.sent.Inc()
		case store.MailRetry:
			p.Retried++
			s.retried.Inc()
		case store.MailFailed:
			p.Failed++
			s.failed.Inc()
		}
	}
	return p, s.count(ctx)
}

func (s *Sender) count(ctx context.Context) error {
	n, err := s.Store.MailWaiting(ctx)
	if err != nil {
		return err
	}
	s.queued.Set(float64(n))
	return nil
}

// Run queues the day's digests and sends due mail every interval until
// ctx is cancelled.
func (s *Sender) Run(ctx context.Context, every time.Duration) {
	loop.Every(ctx, every, func() {
		// Digests due today are queued first, then sent with the rest
		// (docs/RULES.md §18.4).
		if n, err := s.Store.BuildDigests(ctx, s.Now()); err != nil && ctx.Err() == nil {
			s.Log.Warn("mail: build digests", "err", err)
		} else if n > 0 {
			s.Log.Info("mail: digests queued", "count", n)
		}
		p, err := s.SendDue(ctx)
		if err != nil && ctx.Err() == nil {
			s.Log.Warn("mail: send pass", "err", err)
		} else if p.Sent+p.Retried+p.Failed > 0 {
			s.Log.Info("mail: send pass", "sent", p.Sent, "retried", p.Retried, "failed", p.Failed)
		}
	})
}

// MessageID is a mail's Message-ID: the same for every try, so a server
// that got a try whose answer was lost can tell the next one apart.
func (s *Sender) MessageID(id int64) string {
	return fmt.Sprintf("<gpuquote-mail-%d@%s>", id, s.Host)
}

// Message is the whole mail as sent: headers, then the body as
// quoted-printable UTF-8 text.
func (s *Sender) Message(m store.QueuedMail, date time.Time) []byte {
	var b bytes.Buffer
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", s.SMTP.From)
	h("To", m.Recipient)
	h("Subject", mime.BEncoding.Encode("UTF-8", m.Subject))
	h("Date", date.UTC().Format(time.RFC1123Z))
	h("Message-ID", s.MessageID(m.ID))
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=UTF-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	h("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")
	w := quotedprintable.NewWriter(&b)
	_, _ = w.Write([]byte(strings.ReplaceAll(m.Body, "\n", "\r\n")))
	_ = w.Close()
	return b.Bytes()
}

// send delivers one mail in one SMTP conversation, bounded by Timeout.
func (s *Sender) send(m store.QueuedMail) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tlsCfg := s.TLS
	if tlsCfg == nil {
		tlsCfg = &tls.Config{ServerName: s.SMTP.Host, MinVersion: tls.VersionTLS12}
	}
	d := net.Dialer{Timeout: timeout}
	var conn net.Conn
	var err error
	if s.SMTP.ImplicitTLS {
		conn, err = tls.DialWithDialer(&d, "tcp", s.SMTP.Addr(), tlsCfg)
	} else {
		conn, err = d.Dial("tcp", s.SMTP.Addr())
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	c, err := smtp.NewClient(conn, s.SMTP.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello(s.Host); err != nil {
		return err
	}
	if !s.SMTP.ImplicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tlsCfg); err != nil {
				return err
			}
		}
	}
	if s.SMTP.Username != "" {
		// net/smtp refuses PLAIN over a connection that is neither TLS
		// nor to localhost, so the password never travels in clear.
		if err := c.Auth(smtp.PlainAuth("", s.SMTP.Username, s.SMTP.Password, s.SMTP.Host)); err != nil {
			return err
		}
	}
	if err := c.Mail(s.SMTP.From); err != nil {
		return err
	}
	if err := c.Rcpt(m.Recipient); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(s.Message(m, s.Now())); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := c.Quit(); err != nil && !errors.Is(err, net.ErrClosed) {
		// The server accepted the message at the end of DATA; a failed
		// goodbye does not make it unsent.
		s.Log.Debug("mail: quit", "err", err)
	}
	return nil
}
