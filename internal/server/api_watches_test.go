package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/webhook"
)

// apiWatchOf decodes a watch answer.
type apiWatchAnswer struct {
	ID       int64  `json:"id"`
	Shared   bool   `json:"shared"`
	MayEdit  bool   `json:"may_edit"`
	Kind     string `json:"kind"`
	Target   *string
	Paused   bool   `json:"paused"`
	Text     string `json:"text"`
	GPUCount *int64 `json:"gpu_count"`
}

type apiErrorsAnswer struct {
	Errors []struct{ Field, Code, Message string } `json:"errors"`
}

func watchJSON(t *testing.T, r *testutil.Response, status int, v any) {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%d, want %d: %s", r.StatusCode, status, r.Body)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.Body), v); err != nil {
			t.Fatalf("%v: %s", err, r.Body)
		}
	}
}

// TestAPIWatchesRoundTrip: a user's watch through the API — created (201,
// Location), listed with its words in the request's language, read,
// replaced, paused, resumed and deleted — is 404 to another user, and a
// shared watch is read by everyone but kept by editors alone (docs/RULES.md
// §24.9). Every write is audited by the store.
func TestAPIWatchesRoundTrip(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	owner, _ := apiToken(t, app, auth.RoleAnalyst)
	other, _ := apiToken(t, app, auth.RoleAnalyst)
	editor, _ := apiToken(t, app, auth.RoleEditor)
	readOnly, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)

	body := fmt.Sprintf(`{"platform_id": %d, "gpu_model_id": %d, "gpu_count": 8, "currency": "CNY", "kind": "price_below", "basis": "hourly", "target": "10"}`, p.ID, g.ID)
	res := apiCall(t, app, http.MethodPost, "/api/v1/watches", owner, body, "Accept-Language", "en")
	var w apiWatchAnswer
	watchJSON(t, res, http.StatusCreated, &w)
	if loc := res.Header.Get("Location"); loc != fmt.Sprintf("/api/v1/watches/%d", w.ID) {
		t.Errorf("Location %q", loc)
	}
	if w.Shared || !w.MayEdit || w.GPUCount == nil || *w.GPUCount != 8 || !strings.Contains(w.Text, "10.00 CNY") {
		t.Errorf("created: %+v", w)
	}
	path := fmt.Sprintf("/api/v1/watches/%d", w.ID)

	// A token that may only read lists it, and may not write.
	var page struct {
		Items      []apiWatchAnswer `json:"items"`
		NextCursor string           `json:"next_cursor"`
	}
	watchJSON(t, apiCall(t, app, http.MethodGet, "/api/v1/watches", owner, "", "Accept-Language", "zh-CN"), http.StatusOK, &page)
	if len(page.Items) != 1 || page.Items[0].ID != w.ID || !strings.Contains(page.Items[0].Text, "不高于") {
		t.Errorf("list: %+v", page)
	}
	if r := apiCall(t, app, http.MethodPost, "/api/v1/watches", readOnly, body); r.StatusCode != http.StatusForbidden {
		t.Errorf("a read token creates a watch: %d", r.StatusCode)
	}

	// Another user: 404 for every door, and not on their list.
	for _, m := range []struct{ method, path, body string }{
		{http.MethodGet, path, ""}, {http.MethodPut, path, body}, {http.MethodDelete, path, ""},
		{http.MethodPost, path + "/pause", ""}, {http.MethodPost, path + "/resume", ""},
	} {
		if r := apiCall(t, app, m.method, m.path, other, m.body); r.StatusCode != http.StatusNotFound {
			t.Errorf("another user's %s %s: %d %s", m.method, m.path, r.StatusCode, r.Body)
		}
	}
	watchJSON(t, apiCall(t, app, http.MethodGet, "/api/v1/watches", other, ""), http.StatusOK, &page)
	if len(page.Items) != 0 {
		t.Errorf("another user lists %+v", page.Items)
	}

	// Replaced, paused, resumed.
	watchJSON(t, apiCall(t, app, http.MethodPut, path, owner, fmt.Sprintf(`{"gpu_model_id": %d, "kind": "price_jump", "percent": "15"}`, g.ID)), http.StatusOK, &w)
	if w.Kind != "price_jump" || w.GPUCount != nil {
		t.Errorf("replaced: %+v", w)
	}
	watchJSON(t, apiCall(t, app, http.MethodPost, path+"/pause", owner, ""), http.StatusOK, &w)
	if !w.Paused {
		t.Errorf("paused: %+v", w)
	}
	watchJSON(t, apiCall(t, app, http.MethodPost, path+"/resume", owner, ""), http.StatusOK, &w)
	if w.Paused {
		t.Errorf("resumed: %+v", w)
	}

	// Shared: an analyst may not make one, reads the editor's, may not change it.
	if r := apiCall(t, app, http.MethodPost, "/api/v1/watches", owner, strings.Replace(body, "{", `{"shared": true, `, 1)); r.StatusCode != http.StatusForbidden {
		t.Errorf("an analyst's shared watch: %d %s", r.StatusCode, r.Body)
	}
	var sw apiWatchAnswer
	watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/watches", editor, strings.Replace(body, "{", `{"shared": true, `, 1)), http.StatusCreated, &sw)
	spath := fmt.Sprintf("/api/v1/watches/%d", sw.ID)
	var seen apiWatchAnswer
	watchJSON(t, apiCall(t, app, http.MethodGet, spath, other, ""), http.StatusOK, &seen)
	if !seen.Shared || seen.MayEdit {
		t.Errorf("a shared watch as an analyst reads it: %+v", seen)
	}
	for _, m := range []struct{ method, path, body string }{
		{http.MethodPut, spath, body}, {http.MethodDelete, spath, ""}, {http.MethodPost, spath + "/pause", ""},
	} {
		if r := apiCall(t, app, m.method, m.path, other, m.body); r.StatusCode != http.StatusForbidden {
			t.Errorf("an analyst's %s %s of a shared watch: %d %s", m.method, m.path, r.StatusCode, r.Body)
		}
	}
	if r := apiCall(t, app, http.MethodPut, spath, editor, strings.Replace(body, "{", `{"shared": false, `, 1)); r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("unsharing a watch: %d %s", r.StatusCode, r.Body)
	}
	watchJSON(t, apiCall(t, app, http.MethodPut, spath, editor, body), http.StatusOK, nil)
	watchJSON(t, apiCall(t, app, http.MethodDelete, spath, editor, ""), http.StatusNoContent, nil)

	// Deleted: gone from the list and 404.
	watchJSON(t, apiCall(t, app, http.MethodDelete, path, owner, ""), http.StatusNoContent, nil)
	if r := apiCall(t, app, http.MethodGet, path, owner, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted watch: %d", r.StatusCode)
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE entity = 'watch' AND entity_id IN ($1, $2)`,
		fmt.Sprint(w.ID), fmt.Sprint(sw.ID)).Scan(&n); err != nil || n != 8 {
		t.Errorf("%d audit entries (%v), want 8: create, update, pause, resume, delete; create, update, delete", n, err)
	}
}

// TestAPIWatchRefusalsNameEveryField: a watch the form would refuse is 422
// naming every bad field at once, in zh-CN and in English, with the
// form's messages.
func TestAPIWatchRefusalsNameEveryField(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst)
	body := `{"gpu_count": 100, "sharing": "x", "currency": "", "kind": "price_below", "basis": "daily", "target": "-1", "cooldown_hours": 0}`
	want := []string{"basis", "cooldown_hours", "currency", "gpu_count", "platform_id", "sharing", "target"}
	msgs := map[string]string{}
	for _, lang := range []string{"zh-CN", "en"} {
		var a apiErrorsAnswer
		watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/watches", token, body, "Accept-Language", lang), http.StatusUnprocessableEntity, &a)
		var got []string
		for _, e := range a.Errors {
			got = append(got, e.Field)
			if !strings.HasPrefix(e.Code, "watch.error.") || e.Message == "" || e.Message == e.Code {
				t.Errorf("%s: %+v", lang, e)
			}
			if prev, ok := msgs[e.Field]; ok && prev == e.Message {
				t.Errorf("%s: %s is worded alike in both languages: %q", lang, e.Field, e.Message)
			}
			msgs[e.Field] = e.Message
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: fields %v, want %v", lang, got, want)
		}
	}
	// A value of another JSON type is its field's problem.
	var a apiErrorsAnswer
	watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/watches", token, `{"kind": "new_low", "gpu_model_id": "1", "target": 10, "colour": "red"}`),
		http.StatusUnprocessableEntity, &a)
	if len(a.Errors) != 3 {
		t.Errorf("wrong types: %+v", a.Errors)
	}
}

// TestAPIFeedToken: a feed token made through the API answers its two
// feed addresses once; the watch feed reads with it; revoking it makes the
// address 404, and a second revocation is 404.
func TestAPIFeedToken(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst)
	var ft struct {
		QuotesURL string `json:"quotes_url"`
		WatchURL  string `json:"watch_url"`
	}
	watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/feed-token", token, ""), http.StatusCreated, &ft)
	if !strings.Contains(ft.QuotesURL, "/feeds/quotes.atom?token=gqf_") || !strings.Contains(ft.WatchURL, "/feeds/watch/gqf_") {
		t.Fatalf("%+v", ft)
	}
	get := func(u string) int {
		r, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if st := get(ft.WatchURL); st != http.StatusOK {
		t.Errorf("the watch feed: %d", st)
	}
	watchJSON(t, apiCall(t, app, http.MethodDelete, "/api/v1/feed-token", token, ""), http.StatusNoContent, nil)
	if st := get(ft.WatchURL); st != http.StatusNotFound {
		t.Errorf("a revoked token's feed: %d", st)
	}
	if r := apiCall(t, app, http.MethodDelete, "/api/v1/feed-token", token, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("revoking none: %d", r.StatusCode)
	}
}

type apiWebhookAnswer struct {
	ID        int64    `json:"id"`
	Kind      string   `json:"kind"`
	Secret    *string  `json:"secret"`
	HasSecret bool     `json:"has_secret"`
	Events    []string `json:"events"`
	Enabled   bool     `json:"enabled"`
}

// TestAPIWebhooks: editors register, read, change and delete endpoints
// through the API; a generic endpoint's secret is answered on creation and
// when the endpoint is read, never in the list; a chat bot's never;
// analysts are refused (403); bad fields are 422 named in both languages;
// a real delivery to a receiver on 127.0.0.1 is in the log, and a
// redelivery makes it due again.
func TestAPIWebhooks(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := apiToken(t, app, auth.RoleEditor)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)

	if r := apiCall(t, app, http.MethodGet, "/api/v1/webhooks", analyst, ""); r.StatusCode != http.StatusForbidden {
		t.Errorf("an analyst lists endpoints: %d", r.StatusCode)
	}
	body := `{"kind": "generic", "url": "https://hooks.example.com/gpuquote", "events": ["quote.published", "watch.matched"], "description": "Price alerts"}`
	if r := apiCall(t, app, http.MethodPost, "/api/v1/webhooks", analyst, body); r.StatusCode != http.StatusForbidden {
		t.Errorf("an analyst registers an endpoint: %d", r.StatusCode)
	}
	var e apiWebhookAnswer
	res := apiCall(t, app, http.MethodPost, "/api/v1/webhooks", editor, body)
	watchJSON(t, res, http.StatusCreated, &e)
	if e.Secret == nil || !strings.HasPrefix(*e.Secret, "whsec_") || res.Header.Get("Location") != fmt.Sprintf("/api/v1/webhooks/%d", e.ID) {
		t.Fatalf("created: %+v %s", e, res.Header.Get("Location"))
	}
	path := fmt.Sprintf("/api/v1/webhooks/%d", e.ID)
	var one apiWebhookAnswer
	watchJSON(t, apiCall(t, app, http.MethodGet, path, editor, ""), http.StatusOK, &one)
	if one.Secret == nil || *one.Secret != *e.Secret {
		t.Errorf("read: %+v", one)
	}
	var list struct {
		Items []apiWebhookAnswer `json:"items"`
	}
	watchJSON(t, apiCall(t, app, http.MethodGet, "/api/v1/webhooks", editor, ""), http.StatusOK, &list)
	if len(list.Items) != 1 || list.Items[0].Secret != nil {
		t.Errorf("list: %+v", list.Items)
	}

	// A chat bot's secret is written, never read.
	var bot apiWebhookAnswer
	watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/webhooks", editor,
		`{"kind": "dingtalk", "url": "https://oapi.dingtalk.com/robot/send?access_token=x", "events": ["report.approved"], "secret": "SECabc"}`),
		http.StatusCreated, &bot)
	if bot.Secret != nil || !bot.HasSecret {
		t.Errorf("a chat bot's secret answered: %+v", bot)
	}
	watchJSON(t, apiCall(t, app, http.MethodGet, fmt.Sprintf("/api/v1/webhooks/%d", bot.ID), editor, ""), http.StatusOK, &bot)
	if bot.Secret != nil {
		t.Errorf("a chat bot's secret read: %+v", bot)
	}

	// Every bad field at once, in both languages.
	for _, lang := range []string{"zh-CN", "en"} {
		var a apiErrorsAnswer
		watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/webhooks", editor, `{"kind": "fax", "url": "ftp://x", "events": ["nope"]}`,
			"Accept-Language", lang), http.StatusUnprocessableEntity, &a)
		var fields []string
		for _, x := range a.Errors {
			fields = append(fields, x.Field)
		}
		if fmt.Sprint(fields) != "[events kind url]" {
			t.Errorf("%s: %+v", lang, a.Errors)
		}
	}
	if r := apiCall(t, app, http.MethodPut, path, editor, `{"kind": "wecom", "url": "https://hooks.example.com/x", "events": ["quote.published"]}`); r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a kind changed: %d", r.StatusCode)
	}

	// Changed and disabled in one replacement.
	watchJSON(t, apiCall(t, app, http.MethodPut, path, editor, `{"url": "https://hooks.example.com/other", "events": ["report.approved"], "enabled": false}`),
		http.StatusOK, &one)
	if one.Enabled || fmt.Sprint(one.Events) != "[report.approved]" || one.Secret == nil || *one.Secret != *e.Secret {
		t.Errorf("replaced: %+v", one)
	}

	// A real delivery to a receiver on 127.0.0.1, then its log.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rcv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok"))
	})}}
	rcv.Start()
	t.Cleanup(rcv.Close)
	ctx := context.Background()
	local, err := app.Store.CreateWebhookEndpoint(ctx, user.SystemActor, time.Now(),
		webhook.Endpoint{Kind: webhook.KindGeneric, URL: rcv.URL + "/hook", Events: []string{webhook.ReportApproved}})
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Store.InTx(ctx, func(tx pgx.Tx) error {
		return store.EnqueueEvent(ctx, tx, webhook.Event{Type: webhook.ReportApproved, EntityID: 7, Object: webhook.ReportObject{ID: 7}})
	}); err != nil {
		t.Fatal(err)
	}
	sender := webhook.NewSender(app.Store, webhook.NewClient(true, "https://gpuquote.example.test"), nil, nil)
	if _, err := sender.DeliverDue(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	type delivery struct {
		ID       int64  `json:"id"`
		State    string `json:"state"`
		Attempts int    `json:"attempts"`
		Tries    []struct {
			Attempt int  `json:"attempt"`
			Status  *int `json:"status"`
		} `json:"tries"`
	}
	var log struct {
		Items      []delivery `json:"items"`
		NextCursor string     `json:"next_cursor"`
	}
	logPath := fmt.Sprintf("/api/v1/webhooks/%d/deliveries", local.ID)
	watchJSON(t, apiCall(t, app, http.MethodGet, logPath, editor, ""), http.StatusOK, &log)
	if len(log.Items) != 1 || log.Items[0].State != "delivered" || len(log.Items[0].Tries) == 0 ||
		log.Items[0].Tries[0].Status == nil || *log.Items[0].Tries[0].Status != http.StatusOK || log.NextCursor != "" {
		t.Fatalf("log: %+v", log)
	}
	if r := apiCall(t, app, http.MethodGet, logPath, analyst, ""); r.StatusCode != http.StatusForbidden {
		t.Errorf("an analyst reads the log: %d", r.StatusCode)
	}
	var again delivery
	watchJSON(t, apiCall(t, app, http.MethodPost, fmt.Sprintf("%s/%d/redeliver", logPath, log.Items[0].ID), editor, ""), http.StatusOK, &again)
	if again.State != "waiting" {
		t.Errorf("redelivered: %+v", again)
	}
	if r := apiCall(t, app, http.MethodPost, fmt.Sprintf("%s/%d/redeliver", logPath, log.Items[0].ID+1000), editor, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("another delivery: %d", r.StatusCode)
	}
	// A disabled endpoint's delivery is not redelivered (409).
	if r := apiCall(t, app, http.MethodPost, fmt.Sprintf("/api/v1/webhooks/%d/deliveries/%d/redeliver", e.ID, log.Items[0].ID), editor, ""); r.StatusCode != http.StatusConflict && r.StatusCode != http.StatusNotFound {
		t.Errorf("a disabled endpoint's redelivery: %d", r.StatusCode)
	}

	watchJSON(t, apiCall(t, app, http.MethodDelete, path, editor, ""), http.StatusNoContent, nil)
	if r := apiCall(t, app, http.MethodGet, path, editor, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted endpoint: %d", r.StatusCode)
	}
}

// TestAPIWatchOnTCO: a price watch on the TCO of a saved usage profile
// through the API names its profile both ways; without one, or with one
// that does not exist, it is refused naming profile_id.
func TestAPIWatchOnTCO(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{})
	owner, uid := apiToken(t, app, auth.RoleAnalyst)
	profile := testfactory.UsageProfile(t, app.Store, uid, "LoRA 微调", map[string]string{
		"profile.hours_per_month": "200", "profile.months": "3", "profile.instances": "1"})
	body := func(profileID string) string {
		return fmt.Sprintf(`{"platform_id": %d, "currency": "CNY", "kind": "price_below", "basis": "tco", "target": "5000"%s}`, p.ID, profileID)
	}
	var w struct {
		ID        int64  `json:"id"`
		Basis     string `json:"basis"`
		ProfileID *int64 `json:"profile_id"`
		Text      string `json:"text"`
	}
	watchJSON(t, apiCall(t, app, http.MethodPost, "/api/v1/watches", owner, body(fmt.Sprintf(`, "profile_id": %d`, profile))), http.StatusCreated, &w)
	if w.Basis != "tco" || w.ProfileID == nil || *w.ProfileID != profile || !strings.Contains(w.Text, "LoRA 微调") {
		t.Errorf("TCO watch: %+v", w)
	}
	for _, extra := range []string{"", `, "profile_id": 999999`} {
		r := apiCall(t, app, http.MethodPost, "/api/v1/watches", owner, body(extra))
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"field":"profile_id"`) {
			t.Errorf("profile %q: %d %s", extra, r.StatusCode, r.Body)
		}
	}
}
