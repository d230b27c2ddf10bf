package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/webhook"
)

// TestSignatureRoundTrip: what Signature writes, Verify accepts, and a
// changed body, secret or stale time it refuses (docs/RULES.md §24.7).
func TestSignatureRoundTrip(t *testing.T) {
	secret := webhook.NewSecret()
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+43 {
		t.Fatalf("secret %q: want whsec_ and 32 bytes in base64url", secret)
	}
	body := []byte(`{"id":"evt_1","type":"quote.published"}`)
	now := time.Unix(1_800_000_000, 0)
	h := webhook.Signature(secret, now.Unix(), body)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("1800000000." + string(body)))
	if want := "t=1800000000,v1=" + hex.EncodeToString(m.Sum(nil)); h != want {
		t.Fatalf("signature %q, want %q", h, want)
	}
	if !webhook.Verify(secret, h, body, now.Add(time.Minute), 5*time.Minute) {
		t.Fatal("own signature refused")
	}
	for name, ok := range map[string]bool{
		"body":   webhook.Verify(secret, h, append(body, ' '), now, 5*time.Minute),
		"secret": webhook.Verify(secret+"x", h, body, now, 5*time.Minute),
		"stale":  webhook.Verify(secret, h, body, now.Add(6*time.Minute), 5*time.Minute),
		"empty":  webhook.Verify(secret, "", body, now, 5*time.Minute),
	} {
		if ok {
			t.Errorf("changed %s accepted", name)
		}
	}
}

// TestChatSignatures: DingTalk's and Feishu's signatures for a fixed
// timestamp and secret, against the formulas of the vendors' documents
// computed here step by step (docs/RULES.md §24.8).
func TestChatSignatures(t *testing.T) {
	const secret = "SECtest0123456789"
	const ms = int64(1_700_000_000_123)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("1700000000123\n" + secret))
	want := base64.StdEncoding.EncodeToString(m.Sum(nil))
	if got := webhook.DingTalkSign(secret, ms); got != want {
		t.Fatalf("dingtalk sign %q, want %q", got, want)
	}
	u := webhook.DingTalkURL("https://oapi.dingtalk.com/robot/send?access_token=abc", secret, ms)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if q := pu.Query(); q.Get("access_token") != "abc" || q.Get("timestamp") != "1700000000123" || q.Get("sign") != want {
		t.Fatalf("dingtalk url %s: query %v", u, q)
	}
	if !strings.Contains(u, "&sign="+url.QueryEscape(want)) {
		t.Fatalf("dingtalk sign not URL-encoded in %s", u)
	}
	if webhook.DingTalkURL("https://oapi.dingtalk.com/robot/send?access_token=abc", "", ms) != "https://oapi.dingtalk.com/robot/send?access_token=abc" {
		t.Fatal("unsigned robot's address changed")
	}

	const sec = int64(1_700_000_000)
	f := hmac.New(sha256.New, []byte("1700000000\n"+secret))
	f.Write(nil)
	fwant := base64.StdEncoding.EncodeToString(f.Sum(nil))
	if got := webhook.FeishuSign(secret, sec); got != fwant {
		t.Fatalf("feishu sign %q, want %q", got, fwant)
	}
	// Values computed once outside Go, with openssl, so a change of either
	// formula shows here too:
	//   printf '' | openssl dgst -sha256 -hmac $'1599360473\ndemo' -binary | base64
	//   printf '1700000000123\nSECtest0123456789' | openssl dgst -sha256 -hmac SECtest0123456789 -binary | base64
	if got := webhook.FeishuSign("demo", 1599360473); got != "l1N0gAcBjdwBvGm1xMjOF0XSyaLRpR7tuO5dHfhAYc8=" {
		t.Errorf("feishu sign of the fixed example %q", got)
	}
	if want != "Fu23Ue8IkFmlxFpmeItlgyo2GpWW6M6MFH5DnuAvYg8=" {
		t.Errorf("dingtalk sign of the fixed example %q", want)
	}
}

func ptr(s string) *string { return &s }

// TestChatPayloads: each bot gets its documented shape (docs/RULES.md
// §24.8): WeCom and DingTalk markdown, Feishu text with its signature.
func TestChatPayloads(t *testing.T) {
	obj, _ := json.Marshal(webhook.QuoteObject{ID: 7, Version: 2, PlatformZH: "算力云", GPU: "NVIDIA H100", GPUCount: 8,
		Currency: "CNY", Hourly: ptr("12.5"), AsOf: "2026-05-01", URL: "https://gpuquote.example.test/quotes/7"})
	m, err := webhook.ChatMessage(webhook.QuotePublished, obj)
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "新报价已发布" || !strings.Contains(m.Markdown(), "算力云") || !strings.Contains(m.Markdown(), "12.5 CNY/小时") ||
		!strings.Contains(m.Markdown(), "(https://gpuquote.example.test/quotes/7)") {
		t.Fatalf("message %+v\n%s", m, m.Markdown())
	}
	var wecom struct {
		MsgType  string            `json:"msgtype"`
		Markdown map[string]string `json:"markdown"`
	}
	b, _ := webhook.ChatBody(webhook.KindWeCom, "", m, 1)
	if err := json.Unmarshal(b, &wecom); err != nil || wecom.MsgType != "markdown" || wecom.Markdown["content"] != m.Markdown() || len(wecom.Markdown) != 1 {
		t.Fatalf("wecom body %s", b)
	}
	b, _ = webhook.ChatBody(webhook.KindDingTalk, "SEC1", m, 1)
	var ding struct {
		MsgType  string            `json:"msgtype"`
		Markdown map[string]string `json:"markdown"`
	}
	if err := json.Unmarshal(b, &ding); err != nil || ding.MsgType != "markdown" || ding.Markdown["title"] != m.Title || ding.Markdown["text"] != m.Markdown() {
		t.Fatalf("dingtalk body %s", b)
	}
	b, _ = webhook.ChatBody(webhook.KindFeishu, "fsecret", m, 1700000000)
	var fs map[string]any
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	content, _ := fs["content"].(map[string]any)
	if fs["msg_type"] != "text" || fs["timestamp"] != "1700000000" || fs["sign"] != webhook.FeishuSign("fsecret", 1700000000) ||
		content["text"] != m.Text() || !strings.HasPrefix(m.Text(), "【新报价已发布】") {
		t.Fatalf("feishu body %s", b)
	}
	b, _ = webhook.ChatBody(webhook.KindFeishu, "", m, 1700000000)
	if strings.Contains(string(b), "sign") || strings.Contains(string(b), "timestamp") {
		t.Fatalf("unsigned feishu body carries a signature: %s", b)
	}
	for _, typ := range webhook.EventTypes {
		if _, err := webhook.ChatMessage(typ, json.RawMessage(`{}`)); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}

// TestBlockedAddresses: the ranges a delivery may not reach.
func TestBlockedAddresses(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "::",
		"fe80::1", "fc00::1", "fd12::1", "224.0.0.1", "ff02::1", "100.64.0.1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"} {
		if !webhook.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s not blocked", s)
		}
	}
	for _, s := range []string{"203.0.113.9", "8.8.8.8", "2001:4860:4860::8888", "1.1.1.1"} {
		if webhook.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s blocked", s)
		}
	}
	for raw, ok := range map[string]bool{
		"https://example.com/hook": true, "http://203.0.113.9:8080/x": true,
		"https://127.0.0.1/hook": false, "http://[::1]/": false, "http://localhost:8080/": false, "http://10.0.0.5/": false,
		"ftp://example.com/": false, "https://user:pw@example.com/": false, "example.com/hook": false, "https:///x": false,
	} {
		if err := webhook.CheckURL(raw, false); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", raw, err, ok)
		}
	}
	if err := webhook.CheckURL("http://127.0.0.1:9/", true); err != nil {
		t.Errorf("allowed private refused: %v", err)
	}
}

// TestBackoff: 30 s, 1 min, 2 min, … at most 6 h; given up once the next
// attempt would come more than 24 h after the event.
func TestBackoff(t *testing.T) {
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute}
	for i, w := range want {
		if got := webhook.Backoff(i + 1); got != w {
			t.Errorf("after failure %d: %v, want %v", i+1, got, w)
		}
	}
	if webhook.Backoff(12) != 6*time.Hour || webhook.Backoff(40) != 6*time.Hour {
		t.Errorf("cap: %v %v", webhook.Backoff(12), webhook.Backoff(40))
	}
	ev := time.Unix(1_800_000_000, 0)
	d := webhook.Delivery{EventAt: ev}
	if next, gu := webhook.NextAttempt(d, 1, ev); gu || !next.Equal(ev.Add(30*time.Second)) {
		t.Errorf("first retry %v %v", next, gu)
	}
	if _, gu := webhook.NextAttempt(d, 10, ev.Add(23*time.Hour)); !gu {
		t.Error("not given up past 24 h")
	}
}

// TestTruncate: answers are kept to 1 KB of valid UTF-8.
func TestTruncate(t *testing.T) {
	s := webhook.Truncate([]byte(strings.Repeat("价", 500)), webhook.ResponseMax)
	if len(s) > 1024 || len(s)%3 != 0 || !strings.HasPrefix(s, "价") {
		t.Fatalf("truncated to %d bytes", len(s))
	}
	if webhook.Truncate([]byte("a\x00b\xff"), 10) != "ab\uFFFD" {
		t.Fatalf("%q", webhook.Truncate([]byte("a\x00b\xff"), 10))
	}
}
