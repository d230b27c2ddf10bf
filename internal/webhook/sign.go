package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a generic delivery's signature.
const SignatureHeader = "X-Gpuquote-Signature"

// Signature is the value of X-Gpuquote-Signature for body sent at unix
// second t (docs/RULES.md §24.7, Stripe's scheme):
// "t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>".
func Signature(secret string, t int64, body []byte) string {
	ts := strconv.FormatInt(t, 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks header against body as a receiver does: some v1 value
// must be the HMAC of "<t>.<body>", and t within tolerance of now. It is
// the logic of the Go snippet of docs/API.md ("Webhooks").
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(t, 0)); d > tolerance || d < -tolerance {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// DingTalkSign is 钉钉's 加签 for a custom robot: the millisecond
// timestamp and base64(HMAC-SHA256(key=secret, msg="<ms>\n<secret>")),
// not yet URL-encoded.
func DingTalkSign(secret string, ms int64) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ms, 10) + "\n" + secret))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// DingTalkURL is the robot's webhook address with &timestamp=<ms>&sign=<sign,
// URL-encoded> appended; without a secret, raw as it is.
func DingTalkURL(raw, secret string, ms int64) string {
	if secret == "" {
		return raw
	}
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	return raw + sep + "timestamp=" + strconv.FormatInt(ms, 10) + "&sign=" + url.QueryEscape(DingTalkSign(secret, ms))
}

// FeishuSign is 飞书's 签名校验 for a custom bot: base64 of the HMAC-SHA256
// of an empty message under the key "<seconds>\n<secret>".
func FeishuSign(secret string, sec int64) string {
	m := hmac.New(sha256.New, []byte(strconv.FormatInt(sec, 10)+"\n"+secret))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
