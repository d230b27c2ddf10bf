package server_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/i18n"
	gqmail "gpuquote/internal/mail"
	"gpuquote/internal/notify"
	"gpuquote/internal/server"
	"gpuquote/internal/store"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
	"gpuquote/internal/webhook"
)

// someonesWatch is a new analyst's price watch: not the caller's.
func someonesWatch(a *testutil.App) int64 {
	a.T.Helper()
	_, _, uid := a.CreateUser(auth.RoleAnalyst)
	g := testfactory.GPUModel(a.T, a.Store, market.GPUModel{})
	w, err := a.Store.CreateWatch(a.T.Context(), user.Actor{UserID: uid}, false, time.Now(), watch.Watch{OwnerID: uid, GPUModelID: g.ID,
		Kind: watch.PriceBelow, Basis: watch.Hourly, Currency: "CNY", Target: testfactory.D("10"), CooldownHours: 24})
	if err != nil {
		a.T.Fatal(err)
	}
	return w.ID
}

// watchForm is a valid new-watch form: a GPU model's price per GPU-hour at
// or below 10 CNY.
func watchForm(a *testutil.App) url.Values {
	g := testfactory.GPUModel(a.T, a.Store, market.GPUModel{})
	return url.Values{"gpu_model": {itoa(g.ID)}, "kind": {"price_below"}, "basis": {"hourly"}, "currency": {"CNY"},
		"target": {"10"}, "cooldown_hours": {"24"}}
}

// TestWatchTellsOncePublishedThroughTheAPI: an analyst watches an offer
// from its quote page ("watch this offer", target 5 % under the price);
// an editor publishes a cheaper version through the data API on one
// server process, and a cheaper one still on a second process over the
// same database. The analyst is told exactly once — one notice, one
// queued mail — because the watch stays disarmed until the price is back
// 2 % above its target (docs/RULES.md §24.2, §24.3).
func TestWatchTellsOncePublishedThroughTheAPI(t *testing.T) {
	t.Parallel()
	_, dbURL := testutil.DB(t)
	st1, st2 := testutil.Open(t, dbURL), testutil.Open(t, dbURL)
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := gqmail.Renderer{Catalog: cat, BaseURL: "http://gpuquote.test"}
	for _, st := range []*store.Store{st1, st2} {
		st.SetMail(&store.Mail{Render: r.Render, RenderDigest: r.RenderDigest})
	}
	clock := func(d *server.Deps) { d.Now = func() time.Time { return qwToday } }
	a1, a2 := testutil.NewAppOn(t, st1, clock), testutil.NewAppOn(t, st2, clock)
	_, gpuID := qwRefs(t, a1)
	token, _ := apiToken(t, a1, auth.RoleEditor)
	v1 := qwCreated(t, apiCall(t, a1, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID))))

	analyst, uid := a1.AsUser(auth.RoleAnalyst)
	page := analyst.Get("/quotes/" + itoa(v1.ID))
	m := regexp.MustCompile(`href="(/watches/new\?[^"]+)"[^>]*data-testid="quote-watch"`).FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no \"watch this offer\" on the quote page")
	}
	form := analyst.Get(html.UnescapeString(m[1]))
	// 0.471 EUR + 6 % tax per GPU-hour is 0.49926; 95 % of it is 0.47.
	if !strings.Contains(form.Body, `value="0.47"`) {
		t.Fatalf("the form is not filled with a target under the price:\n%s", form.Body)
	}
	u, _ := url.Parse(html.UnescapeString(m[1]))
	values := u.Query()
	values.Set("cooldown_hours", "24")
	if res := analyst.PostForm("/watches", values); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create watch: %d %s", res.StatusCode, res.Body)
	}

	// Their tools are told too: an endpoint for watch.matched on a receiver
	// of this test, on loopback; and the analyst reads the watch feed.
	type received struct {
		body []byte
		sig  string
	}
	got := make(chan received, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{b, r.Header.Get("X-Gpuquote-Signature")}
	}))
	defer receiver.Close()
	ep, err := st1.CreateWebhookEndpoint(context.Background(), user.SystemActor, qwToday, webhook.Endpoint{Kind: webhook.KindGeneric,
		URL: receiver.URL, Events: []string{webhook.WatchMatched}})
	if err != nil {
		t.Fatal(err)
	}
	_, feedPath := createFeedToken(t, a1, analyst)

	body := qwQuote(gpuID)
	body["hourly"] = "0.43" // 0.4558 per GPU-hour with tax: a match
	v2 := qwCreated(t, apiCall(t, a1, http.MethodPost, "/api/v1/quotes/"+itoa(v1.ID)+"/versions", token, qwJSON(t, body)))
	body["hourly"] = "0.42" // lower still, on the other process: the watch waits
	qwCreated(t, apiCall(t, a2, http.MethodPost, "/api/v1/quotes/"+itoa(v2.ID)+"/versions", token, qwJSON(t, body)))

	ctx := context.Background()
	items, total, unread, err := st2.Notifications(ctx, uid, 0, 10)
	if err != nil || total != 1 || unread != 1 {
		t.Fatalf("%d notices (%d unread), want 1: %v", total, unread, err)
	}
	if items[0].Kind != notify.WatchMatched || items[0].Path() != "/quotes/"+itoa(v2.ID) {
		t.Fatalf("notice %+v", items[0])
	}
	var mails int
	if err := st1.Pool().QueryRow(ctx, `SELECT count(*) FROM mail_queue mq JOIN notifications n ON n.id = mq.notification_id
		WHERE n.user_id = $1`, uid).Scan(&mails); err != nil || mails != 1 {
		t.Fatalf("%d mails queued, want 1: %v", mails, err)
	}
	list := analyst.Get("/watches")
	if !strings.Contains(list.Body, `data-testid="watch-waiting"`) || strings.Count(list.Body, `data-testid="watch-match"`) != 1 {
		t.Fatalf("the list does not show one match and the watch waiting:\n%s", list.Body)
	}
	// One feed entry, read through either process.
	if f := parseAtom(t, getFeed(a2, feedPath), a2.URL+feedPath); len(f.Entries) != 1 || !strings.HasSuffix(f.Entries[0].Links[0].Href, "/quotes/"+itoa(v2.ID)) {
		t.Errorf("the watch feed holds %d entries, want the one match", len(f.Entries))
	}
	// One delivery, whichever process's sender gets to it first, signed as
	// docs/API.md says.
	for _, st := range []*store.Store{st1, st2, st1} {
		if _, err := webhook.NewSender(st, webhook.NewClient(true, ""), time.Now, slog.New(slog.NewTextHandler(io.Discard, nil))).DeliverDue(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(got); n != 1 {
		t.Fatalf("the receiver was called %d times, want once", n)
	}
	d := <-got
	if !webhook.Verify(ep.Secret, d.sig, d.body, time.Now(), 5*time.Minute) {
		t.Errorf("the delivery's signature %q does not verify", d.sig)
	}
	if !strings.Contains(string(d.body), `"type":"watch.matched"`) || !strings.Contains(string(d.body), `"path":"/quotes/`+itoa(v2.ID)+`"`) {
		t.Errorf("the delivery: %s", d.body)
	}
	en := notify.Sentence(cat.Translator(i18n.EN), items[0])
	if !strings.Contains(en, "0.46 EUR per GPU-hour") {
		t.Errorf("sentence %q", en)
	}
}
