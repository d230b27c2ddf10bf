package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Delivery is one event for one endpoint, as the queue hands it to the
// sender: where and how to send, what, and how many attempts it has had.
type Delivery struct {
	ID         int64
	EndpointID int64
	Kind       string
	URL        string
	Secret     string
	// Active is false for an endpoint disabled or deleted since the event:
	// its deliveries are given up without an attempt.
	Active   bool
	EventID  int64
	Type     string
	Payload  json.RawMessage
	EventAt  time.Time
	Attempts int
}

// Attempt is what one attempt did: the HTTP status (0 when there was no
// answer), how long it took, the first ResponseMax bytes of the answer,
// and the error (empty on success).
type Attempt struct {
	Status   int
	Duration time.Duration
	Body     string
	Err      string
}

// OK reports whether the attempt delivered.
func (a Attempt) OK() bool { return a.Err == "" }

// ResponseMax bounds the answer kept with an attempt (bytes).
const ResponseMax = 1024

// Timeout bounds one attempt, from dialling to the last byte read.
const Timeout = 5 * time.Second

// UserAgent is sent with every delivery.
const UserAgent = "gpuquote-webhook"

// Client sends deliveries: never through a proxy, never following a
// redirect (a 3xx is a failure), refusing blocked addresses at dial time
// unless AllowPrivate.
type Client struct {
	HTTP *http.Client
	// BaseURL, when set, makes each object's path a full URL in the body.
	BaseURL string
}

// NewClient makes a delivery client.
func NewClient(allowPrivate bool, baseURL string) *Client {
	d := &net.Dialer{Timeout: Timeout, Control: dialControl(allowPrivate)}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{
		Transport:     tr,
		Timeout:       Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// withURL sets the object's "url" from its "path" and BaseURL (and of a
// nested "quote"), so receivers get a link they can open.
func (c *Client) withURL(raw json.RawMessage) json.RawMessage {
	if c.BaseURL == "" {
		return raw
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	set := func(o map[string]json.RawMessage) {
		var p string
		if json.Unmarshal(o["path"], &p) == nil && strings.HasPrefix(p, "/") {
			o["url"], _ = json.Marshal(c.BaseURL + p)
		}
	}
	set(obj)
	if q, ok := obj["quote"]; ok {
		var qo map[string]json.RawMessage
		if json.Unmarshal(q, &qo) == nil {
			set(qo)
			obj["quote"], _ = json.Marshal(qo)
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// Body is what delivery d sends at now: the signed envelope for a generic
// endpoint, the bot's message otherwise; target is the address posted to
// (DingTalk's carries its signature).
func (c *Client) Body(d Delivery, now time.Time) (body []byte, target string, header http.Header, err error) {
	header = http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set("User-Agent", UserAgent)
	obj := c.withURL(d.Payload)
	if d.Kind == KindGeneric {
		env := Envelope{ID: EventID(d.EventID), Type: d.Type, Created: d.EventAt.Unix()}
		env.Data.Object = obj
		if body, err = json.Marshal(env); err != nil {
			return nil, "", nil, err
		}
		header.Set(SignatureHeader, Signature(d.Secret, now.Unix(), body))
		header.Set("X-Gpuquote-Event", d.Type)
		header.Set("X-Gpuquote-Delivery", strconv.FormatInt(d.ID, 10))
		return body, d.URL, header, nil
	}
	m, err := ChatMessage(d.Type, obj)
	if err != nil {
		return nil, "", nil, err
	}
	if body, err = ChatBody(d.Kind, d.Secret, m, now.Unix()); err != nil {
		return nil, "", nil, err
	}
	target = d.URL
	if d.Kind == KindDingTalk {
		target = DingTalkURL(d.URL, d.Secret, now.UnixMilli())
	}
	return body, target, header, nil
}

// Send makes one attempt at delivery d at now.
func (c *Client) Send(ctx context.Context, d Delivery, now time.Time) Attempt {
	body, target, header, err := c.Body(d, now)
	if err != nil {
		return Attempt{Err: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Attempt{Err: "bad address: " + redact(err.Error(), d, target)}
	}
	req.Header = header
	start := time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		a := Attempt{Duration: time.Since(start), Err: redact(err.Error(), d, target)}
		if errors.Is(err, ErrBlockedAddress) {
			a.Err = ErrBlockedAddress.Error() + " (" + redact(err.Error(), d, target) + ")"
		}
		return a
	}
	defer resp.Body.Close()
	// Read a little more than is kept, for a bot's JSON answer.
	full, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	a := Attempt{Status: resp.StatusCode, Duration: time.Since(start), Body: Truncate(full, ResponseMax)}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		a.Err = fmt.Sprintf("HTTP %d: redirects are not followed", resp.StatusCode)
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		a.Err = fmt.Sprintf("HTTP %d", resp.StatusCode)
	case rerr != nil && d.Kind != KindGeneric:
		a.Err = "reading the answer: " + rerr.Error()
	case d.Kind != KindGeneric:
		if err := botAnswer(d.Kind, full); err != nil {
			a.Err = err.Error()
		}
	}
	return a
}

// redact keeps an endpoint's secret parts out of a logged error: a chat
// bot's key or token is in its address (WeCom's and DingTalk's query,
// Feishu's path), so only the scheme and host are kept.
func redact(msg string, d Delivery, target string) string {
	safe := "…"
	if u, err := url.Parse(d.URL); err == nil {
		safe = u.Scheme + "://" + u.Host + "/…"
	}
	for _, s := range []string{target, d.URL} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, safe)
		}
	}
	if d.Secret != "" {
		msg = strings.ReplaceAll(msg, d.Secret, "…")
	}
	return msg
}

// Truncate is at most max bytes of b as valid UTF-8 text without NUL
// bytes, cut at a character boundary.
func Truncate(b []byte, max int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
