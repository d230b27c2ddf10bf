package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/webhook"
)

// base is the fake clock's start; the sender is driven by DeliverDue at
// the moments a test chooses, never by sleeping.
var base = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

// receiver is an HTTP server on 127.0.0.1 that records what it got and
// answers with answer(n) for its n-th request (from 1).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	heads  []http.Header
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, b)
		rc.heads = append(rc.heads, r.Header.Clone())
		n := len(rc.bodies)
		rc.mu.Unlock()
		answer(n, w, r)
	})}}
	rc.Start()
	t.Cleanup(rc.Close)
	return rc
}

// got is a copy of what the receiver got.
func (rc *receiver) got() ([][]byte, []http.Header) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]byte(nil), rc.bodies...), append([]http.Header(nil), rc.heads...)
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.bodies)
}

// endpoint registers an endpoint of kind at u subscribed to every event.
func endpoint(t *testing.T, st *store.Store, kind, u, secret string) webhook.Endpoint {
	t.Helper()
	e, err := st.CreateWebhookEndpoint(context.Background(), user.SystemActor, base,
		webhook.Endpoint{Kind: kind, URL: u, Secret: secret, Events: webhook.EventTypes})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// enqueue records a quote.published event at base, as a write would.
func enqueue(t *testing.T, st *store.Store, id int64) {
	t.Helper()
	ctx := context.Background()
	h := "3.5"
	err := st.InTx(ctx, func(tx pgx.Tx) error {
		return store.EnqueueEvent(ctx, tx, webhook.Event{Type: webhook.QuotePublished, EntityID: id, At: base,
			Object: webhook.QuoteObject{ID: id, Version: 1, PlatformZH: "测试云", GPU: "NVIDIA H100", GPUCount: 1, Currency: "CNY",
				Hourly: &h, AsOf: "2026-05-01", Path: "/quotes/" + strconv.FormatInt(id, 10)}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sender(st *store.Store, allowPrivate bool) *webhook.Sender {
	return webhook.NewSender(st, webhook.NewClient(allowPrivate, "https://gpuquote.example.test"), nil, nil)
}

func pass(t *testing.T, s *webhook.Sender, at time.Time) webhook.Pass {
	t.Helper()
	p, err := s.DeliverDue(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func onlyLog(t *testing.T, st *store.Store, endpointID int64) webhook.LogRow {
	t.Helper()
	log, err := st.WebhookLog(context.Background(), endpointID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 {
		t.Fatalf("log has %d deliveries, want 1", len(log))
	}
	return log[0]
}

// TestDeliveryRetriesUntilAccepted: a receiver answering 500 three times
// and then 200 gets four attempts, at the backoff's times (30 s, 1 min,
// 2 min after each failure), and the log shows each with its status and
// one success (docs/RULES.md §24.7). Every body is signed, and the
// verification snippet of docs/API.md accepts it.
func TestDeliveryRetriesUntilAccepted(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 3 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	e := endpoint(t, st, webhook.KindGeneric, rc.URL+"/hook", "")
	enqueue(t, st, 41)
	s := sender(st, true)

	steps := []struct {
		at   time.Time
		want webhook.Pass
	}{
		{base, webhook.Pass{Retried: 1}},
		{base.Add(29 * time.Second), webhook.Pass{}}, // not due yet
		{base.Add(30 * time.Second), webhook.Pass{Retried: 1}},
		{base.Add(90 * time.Second), webhook.Pass{Retried: 1}},
		{base.Add(209 * time.Second), webhook.Pass{}},
		{base.Add(210 * time.Second), webhook.Pass{Delivered: 1}},
		{base.Add(time.Hour), webhook.Pass{}}, // delivered: never again
	}
	for i, s2 := range steps {
		if got := pass(t, s, s2.at); got != s2.want {
			t.Fatalf("pass %d at +%v: %+v, want %+v", i, s2.at.Sub(base), got, s2.want)
		}
	}
	if rc.count() != 4 {
		t.Fatalf("receiver got %d requests, want 4", rc.count())
	}
	l := onlyLog(t, st, e.ID)
	if l.Attempts != 4 || l.DeliveredAt == nil || l.GaveUpAt != nil || len(l.Tries) != 4 || l.LastError != "" {
		t.Fatalf("log %+v", l)
	}
	for i, tr := range l.Tries {
		want := 500
		if i == 3 {
			want = 200
		}
		if tr.Attempt != i+1 || tr.Status == nil || *tr.Status != want || (want == 500) != (tr.Error == "HTTP 500") {
			t.Errorf("attempt %d: %+v", i+1, tr)
		}
	}
	successes := 0
	for _, tr := range l.Tries {
		if tr.Error == "" {
			successes++
		}
	}
	if successes != 1 {
		t.Errorf("%d successes in the log, want 1", successes)
	}

	// The last delivery as received: headers, envelope, signature.
	bodies, heads := rc.got()
	body, h := bodies[3], heads[3]
	if h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "gpuquote-webhook" {
		t.Errorf("headers %v", h)
	}
	var env struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Created int64  `json:"created"`
		Data    struct {
			Object map[string]any `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(env.ID, "evt_") || env.Type != "quote.published" || env.Created != base.Unix() ||
		env.Data.Object["id"] != float64(41) || env.Data.Object["url"] != "https://gpuquote.example.test/quotes/41" {
		t.Errorf("envelope %s", body)
	}
	sig := h.Get("X-Gpuquote-Signature")
	if !webhook.Verify(e.Secret, sig, body, base.Add(210*time.Second), 5*time.Minute) {
		t.Errorf("signature %q does not verify", sig)
	}
	// The snippet of docs/API.md, as a receiver would run it.
	if err := verifyGpuquoteSignature(e.Secret, sig, body, base.Add(211*time.Second)); err != nil {
		t.Errorf("documented snippet: %v", err)
	}
	if err := verifyGpuquoteSignature(e.Secret, sig, append([]byte(" "), body...), base.Add(211*time.Second)); err == nil {
		t.Error("documented snippet accepts a changed body")
	}
}

// verifyGpuquoteSignature is copied from docs/API.md ("Verifying a
// delivery"): keep the two the same.
func verifyGpuquoteSignature(secret, header string, body []byte, now time.Time) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("no timestamp")
	}
	if d := now.Sub(time.Unix(t, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("timestamp outside 5 minutes")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no matching signature")
}

// TestDeliveryRefusesLoopbackByName: an address whose name resolves to
// 127.0.0.1 is refused at dial time without GPUQUOTE_WEBHOOK_ALLOW_PRIVATE,
// nothing reaches the receiver, and the log says why.
func TestDeliveryRefusesLoopbackByName(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	rc := newReceiver(t, func(int, http.ResponseWriter, *http.Request) {})
	_, port, _ := net.SplitHostPort(rc.Listener.Addr().String())
	// Registered past the form's check, as a name that later resolves to
	// a private address would be.
	e := endpoint(t, st, webhook.KindGeneric, "http://localhost:"+port+"/hook", "")
	enqueue(t, st, 1)
	if got := pass(t, sender(st, false), base); got != (webhook.Pass{Retried: 1}) {
		t.Fatalf("pass %+v", got)
	}
	if rc.count() != 0 {
		t.Fatalf("receiver reached %d times", rc.count())
	}
	l := onlyLog(t, st, e.ID)
	if !strings.Contains(l.LastError, "address refused") || l.LastStatus != nil || len(l.Tries) != 1 ||
		!strings.Contains(l.Tries[0].Error, "address refused") {
		t.Fatalf("log %+v", l)
	}
}

// TestDeliveryRedirectAndBody: a 3xx is a failure and is not followed;
// an answer is kept to its first 1 KB.
func TestDeliveryRedirectAndBody(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/target", http.StatusFound)
		case "/big":
			_, _ = io.WriteString(w, strings.Repeat("x", 5000))
		}
	})
	moved := endpoint(t, st, webhook.KindGeneric, rc.URL+"/moved", "")
	big := endpoint(t, st, webhook.KindGeneric, rc.URL+"/big", "")
	enqueue(t, st, 2)
	if got := pass(t, sender(st, true), base); got != (webhook.Pass{Delivered: 1, Retried: 1}) {
		t.Fatalf("pass %+v", got)
	}
	if rc.count() != 2 {
		t.Fatalf("%d requests: the redirect was followed", rc.count())
	}
	l := onlyLog(t, st, moved.ID)
	if l.LastStatus == nil || *l.LastStatus != 302 || !strings.Contains(l.LastError, "redirects are not followed") || l.DeliveredAt != nil {
		t.Errorf("redirect log %+v", l)
	}
	l = onlyLog(t, st, big.ID)
	if l.DeliveredAt == nil || len(l.ResponseBody) != 1024 || len(l.Tries[0].Body) != 1024 {
		t.Errorf("big answer kept as %d bytes (%d in the attempt)", len(l.ResponseBody), len(l.Tries[0].Body))
	}
}

// TestDeliveryBotErrorCode: a chat bot's HTTP 200 with an error code in
// its answer is a failure; errcode 0 is a success.
func TestDeliveryBotErrorCode(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			_, _ = io.WriteString(w, `{"errcode":93000,"errmsg":"invalid webhook url"}`)
			return
		}
		_, _ = io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
	})
	e := endpoint(t, st, webhook.KindWeCom, rc.URL+"/cgi-bin/webhook/send?key=abc", "")
	enqueue(t, st, 3)
	s := sender(st, true)
	if p := pass(t, s, base); p != (webhook.Pass{Retried: 1}) {
		t.Fatalf("pass %+v", p)
	}
	l := onlyLog(t, st, e.ID)
	if !strings.Contains(l.LastError, "errcode 93000") || *l.LastStatus != 200 {
		t.Fatalf("log %+v", l)
	}
	if p := pass(t, s, base.Add(30*time.Second)); p != (webhook.Pass{Delivered: 1}) {
		t.Fatalf("pass %+v", p)
	}
	var body map[string]any
	bodies, _ := rc.got()
	if err := json.Unmarshal(bodies[1], &body); err != nil {
		t.Fatal(err)
	}
	md, _ := body["markdown"].(map[string]any)
	if body["msgtype"] != "markdown" || !strings.Contains(fmt.Sprint(md["content"]), "新报价已发布") ||
		!strings.Contains(fmt.Sprint(md["content"]), "https://gpuquote.example.test/quotes/3") {
		t.Fatalf("wecom body %s", bodies[1])
	}
}

// TestTwoSendersDeliverOnce: two senders with their own pools on one
// database, passing at once, deliver every event exactly once.
func TestTwoSendersDeliverOnce(t *testing.T) {
	t.Parallel()
	_, app := testutil.DB(t)
	st1, st2 := testutil.Open(t, app), testutil.Open(t, app)
	rc := newReceiver(t, func(int, http.ResponseWriter, *http.Request) {})
	endpoint(t, st1, webhook.KindGeneric, rc.URL+"/hook", "")
	const events = 30
	for i := range events {
		enqueue(t, st1, int64(100+i))
	}
	var wg sync.WaitGroup
	passes := make([]webhook.Pass, 2)
	for i, st := range []*store.Store{st1, st2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := sender(st, true).DeliverDue(context.Background(), base)
			if err != nil {
				t.Error(err)
			}
			passes[i] = p
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	bodies, _ := rc.got()
	for _, b := range bodies {
		var env struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		seen[env.ID]++
	}
	if passes[0].Delivered+passes[1].Delivered != events || len(seen) != events || rc.count() != events {
		t.Fatalf("passes %+v, %d distinct of %d requests, want %d", passes, len(seen), rc.count(), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
}
