package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/webhook"
	"gpuquote/web"
)

// routeWebhook registers a generic endpoint for every event.
func routeWebhook(a *testutil.App) int64 {
	a.T.Helper()
	e, err := a.Store.CreateWebhookEndpoint(context.Background(), user.SystemActor, time.Now(),
		webhook.Endpoint{Kind: webhook.KindGeneric, URL: "https://hooks.example.test/gpuquote", Events: webhook.EventTypes})
	if err != nil {
		a.T.Fatal(err)
	}
	return e.ID
}

// routeDelivery is the path of redelivering a delivery of a new endpoint.
func routeDelivery(a *testutil.App) string {
	a.T.Helper()
	id := routeWebhook(a)
	ctx := context.Background()
	if err := a.Store.InTx(ctx, func(tx pgx.Tx) error {
		return store.EnqueueEvent(ctx, tx, webhook.Event{Type: webhook.ReportApproved, EntityID: 1, Object: webhook.ReportObject{ID: 1}})
	}); err != nil {
		a.T.Fatal(err)
	}
	log, err := a.Store.WebhookLog(ctx, id, 10)
	if err != nil || len(log) == 0 {
		a.T.Fatalf("log %v %v", log, err)
	}
	return web.WebhookPath(id) + "/deliveries/" + itoa(log[0].ID) + "/redeliver"
}

// webhookForm is a valid registration.
func webhookForm() url.Values {
	return url.Values{"kind": {"generic"}, "url": {"https://hooks.example.test/x"}, "events": {"quote.published", "report.approved"},
		"description": {"route"}}
}

// TestPublishingEnqueuesOneDeliveryPerEndpoint: a quote published through
// the data API enqueues exactly one quote.published delivery for each
// enabled endpoint subscribed to it, none for a disabled one or one
// subscribed to other events, in the publication's transaction
// (docs/RULES.md §24.7).
func TestPublishingEnqueuesOneDeliveryPerEndpoint(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	ctx := context.Background()
	mk := func(events ...string) int64 {
		e, err := app.Store.CreateWebhookEndpoint(ctx, user.SystemActor, time.Now(),
			webhook.Endpoint{Kind: webhook.KindGeneric, URL: "https://hooks.example.test/a", Events: events})
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	a, b := mk(webhook.QuotePublished), mk(webhook.QuotePublished, webhook.ReportApproved)
	off, other := mk(webhook.QuotePublished), mk(webhook.ReportApproved)
	if err := app.Store.SetWebhookEnabled(ctx, user.SystemActor, time.Now(), off, false); err != nil {
		t.Fatal(err)
	}
	_, gpuID := qwRefs(t, app)
	token, _ := apiToken(t, app, auth.RoleEditor)
	published := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID)))).ID
	for id, want := range map[int64]int{a: 1, b: 1, off: 0, other: 0} {
		log, err := app.Store.WebhookLog(ctx, id, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != want {
			t.Errorf("endpoint %d: %d deliveries, want %d", id, len(log), want)
		}
		for _, l := range log {
			if l.Type != webhook.QuotePublished || l.EntityID != published || !l.Waiting() {
				t.Errorf("endpoint %d: %+v", id, l)
			}
		}
	}
	var events int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE type = 'quote.published'`).Scan(&events); err != nil || events != 1 {
		t.Errorf("%d quote.published events (%v), want 1", events, err)
	}
}
