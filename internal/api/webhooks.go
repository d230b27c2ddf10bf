package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/webhook"
	"gpuquote/web"
)

// Webhook endpoints through the data API (docs/RULES.md §24.7, §24.9):
// editors and admins keep them as /admin/webhooks does, checked by the
// same webhook.Check and audited by the same store steps.

// apiWebhook is an endpoint as the API answers it. secret is a generic
// endpoint's signing secret, given on creation and when one endpoint is
// read (the endpoint's page shows it to the same editors); in a list, and
// always for a chat bot, whose secret is write-only, it is null.
type apiWebhook struct {
	ID          int64     `json:"id"`
	Kind        string    `json:"kind"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description string    `json:"description"`
	Enabled     bool      `json:"enabled"`
	Secret      *string   `json:"secret"`
	HasSecret   bool      `json:"has_secret"`
	CreatedBy   string    `json:"created_by"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Waiting     int       `json:"waiting"`
	Failed      int       `json:"failed"`
	Page        string    `json:"page"`
}

func newAPIWebhook(e webhook.Endpoint, withSecret bool) apiWebhook {
	out := apiWebhook{ID: e.ID, Kind: e.Kind, URL: e.URL, Events: e.Events, Description: e.Description, Enabled: e.Enabled,
		HasSecret: e.Secret != "", CreatedBy: e.CreatedBy, CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(),
		Waiting: e.Waiting, Failed: e.Failed, Page: web.WebhookPath(e.ID)}
	if out.Events == nil {
		out.Events = []string{}
	}
	if withSecret && e.Kind == webhook.KindGeneric && e.Secret != "" {
		secret := e.Secret
		out.Secret = &secret
	}
	return out
}

// apiWebhookRequest is the body of POST /api/v1/webhooks and PUT
// /api/v1/webhooks/{id}: the endpoint form's fields. kind is read on
// creation only (an endpoint's kind never changes: a PUT may repeat it);
// secret is a chat bot's own (a generic endpoint's is made by the server),
// kept when a PUT leaves it out or empty; enabled, when given, turns the
// endpoint on or off.
type apiWebhookRequest struct {
	Kind        string   `json:"kind"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	Secret      string   `json:"secret"`
	Enabled     *bool    `json:"enabled"`
}

// endpoint reads the request as an endpoint of kind, checked by the
// pages' rules (webhook.Check): each problem by its field.
func (s *Handlers) webhookEndpoint(r apiWebhookRequest, kind string) (webhook.Endpoint, map[string]string) {
	e := webhook.Endpoint{Kind: kind, URL: r.URL, Secret: r.Secret, Description: r.Description, Events: r.Events}
	errs := map[string]string{}
	for f, id := range webhook.Check(&e, s.Config.WebhookAllowPrivate) {
		errs[f] = id
	}
	return e, errs
}

// Webhooks is GET /api/v1/webhooks: the endpoints not deleted, oldest
// first, one page (they are a handful); no secret.
func (s *Handlers) Webhooks(c echo.Context) error {
	es, err := s.Store.WebhookEndpoints(c.Request().Context())
	if err != nil {
		return err
	}
	page := apiPage[apiWebhook]{Items: make([]apiWebhook, 0, len(es))}
	for _, e := range es {
		page.Items = append(page.Items, newAPIWebhook(e, false))
	}
	return apiJSON(c, http.StatusOK, page)
}

// apiWebhookFor reads the endpoint in the path (404 when there is none or
// it was deleted).
func (s *Handlers) apiWebhookFor(c echo.Context) (webhook.Endpoint, error) {
	id, err := server.PathID(c)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	return s.Store.WebhookEndpoint(c.Request().Context(), id)
}

// Webhook is GET /api/v1/webhooks/{id}, with a generic endpoint's secret.
func (s *Handlers) Webhook(c echo.Context) error {
	e, err := s.apiWebhookFor(c)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIWebhook(e, true))
}

// WebhookCreate is POST /api/v1/webhooks: an endpoint registered,
// enabled, audited; 201 with its address in Location and, for a generic
// endpoint, the secret it signs with.
func (s *Handlers) WebhookCreate(c echo.Context) error {
	var req apiWebhookRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	in, errs := s.webhookEndpoint(req, req.Kind)
	if req.Enabled != nil && !*req.Enabled {
		errs["enabled"] = "api.webhook.error.enabled"
	}
	if len(errs) > 0 {
		return apiFieldErrors(c, errs)
	}
	e, err := s.Store.CreateWebhookEndpoint(c.Request().Context(), s.Actor(c), s.Now(), in)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Location", "/api/v1/webhooks/"+strconv.FormatInt(e.ID, 10))
	return apiJSON(c, http.StatusCreated, newAPIWebhook(e, true))
}

// WebhookUpdate is PUT /api/v1/webhooks/{id}: its address, events and
// description replaced (a chat bot's secret too when one is given), and
// enabled or disabled when enabled is given; each step audited.
func (s *Handlers) WebhookUpdate(c echo.Context) error {
	cur, err := s.apiWebhookFor(c)
	if err != nil {
		return err
	}
	var req apiWebhookRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	in, errs := s.webhookEndpoint(req, cur.Kind)
	if req.Kind != "" && req.Kind != cur.Kind {
		errs["kind"] = "api.webhook.error.kind_fixed"
	}
	if len(errs) > 0 {
		return apiFieldErrors(c, errs)
	}
	ctx := c.Request().Context()
	if err := s.Store.UpdateWebhookEndpoint(ctx, s.Actor(c), s.Now(), cur.ID, in); err != nil {
		return err
	}
	if req.Enabled != nil {
		if err := s.Store.SetWebhookEnabled(ctx, s.Actor(c), s.Now(), cur.ID, *req.Enabled); err != nil {
			return err
		}
	}
	e, err := s.Store.WebhookEndpoint(ctx, cur.ID)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIWebhook(e, true))
}

// WebhookDelete is DELETE /api/v1/webhooks/{id}: marked deleted (its log
// stays), its waiting deliveries given up, audited; 204.
func (s *Handlers) WebhookDelete(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteWebhookEndpoint(c.Request().Context(), s.Actor(c), s.Now(), id); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.NoContent(http.StatusNoContent)
}

// apiWebhookDelivery is one delivery of an endpoint's log, with its
// attempts, as the endpoint's page shows it.
type apiWebhookDelivery struct {
	ID             int64               `json:"id"`
	EventID        string              `json:"event_id"`
	Type           string              `json:"type"`
	EntityID       int64               `json:"entity_id"`
	EventAt        time.Time           `json:"event_at"`
	State          string              `json:"state"`
	Attempts       int                 `json:"attempts"`
	NextAttemptAt  *time.Time          `json:"next_attempt_at"`
	LastStatus     *int                `json:"last_status"`
	LastDurationMS *int                `json:"last_duration_ms"`
	LastError      string              `json:"last_error"`
	ResponseBody   string              `json:"response_body"`
	DeliveredAt    *time.Time          `json:"delivered_at"`
	GaveUpAt       *time.Time          `json:"gave_up_at"`
	Tries          []apiWebhookAttempt `json:"tries"`
}

// apiWebhookAttempt is one attempt of a delivery.
type apiWebhookAttempt struct {
	Attempt      int       `json:"attempt"`
	At           time.Time `json:"at"`
	Status       *int      `json:"status"`
	DurationMS   int       `json:"duration_ms"`
	Error        string    `json:"error"`
	ResponseBody string    `json:"response_body"`
}

func newAPIWebhookDelivery(l webhook.LogRow) apiWebhookDelivery {
	d := apiWebhookDelivery{ID: l.ID, EventID: webhook.EventID(l.EventID), Type: l.Type, EntityID: l.EntityID, EventAt: l.EventAt.UTC(),
		Attempts: l.Attempts, LastStatus: l.LastStatus, LastDurationMS: l.LastDuration, LastError: l.LastError,
		ResponseBody: l.ResponseBody, DeliveredAt: utcPtr(l.DeliveredAt), GaveUpAt: utcPtr(l.GaveUpAt), Tries: []apiWebhookAttempt{}}
	switch {
	case l.DeliveredAt != nil:
		d.State = "delivered"
	case l.GaveUpAt != nil:
		d.State = "gave_up"
	default:
		d.State = "waiting"
		d.NextAttemptAt = utcPtr(&l.NextAttemptAt)
	}
	for _, t := range l.Tries {
		d.Tries = append(d.Tries, apiWebhookAttempt{Attempt: t.Attempt, At: t.At.UTC(), Status: t.Status, DurationMS: t.DurationMS,
			Error: t.Error, ResponseBody: t.Body})
	}
	return d
}

// WebhookDeliveries is GET /api/v1/webhooks/{id}/deliveries: the
// endpoint's delivery log, newest first, a keyset page at a time (the
// cursor is the last delivery's id).
func (s *Handlers) WebhookDeliveries(c echo.Context) error {
	e, err := s.apiWebhookFor(c)
	if err != nil {
		return err
	}
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	fp := func() string { return apiMarketFingerprint("webhook-deliveries/"+strconv.FormatInt(e.ID, 10), nil) }
	var pos apiIDCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok || pos.ID < 0 {
		return apiBadCursor(c)
	}
	rows, err := s.Store.WebhookLogBefore(c.Request().Context(), e.ID, pos.ID, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPIWebhookDelivery,
		func(l webhook.LogRow) string { return s.encodeCursor(apiIDCursor{ID: l.ID, FP: fp()}) }))
}

// WebhookRedeliver is POST /api/v1/webhooks/{id}/deliveries/{delivery}/redeliver:
// the delivery due again now — one new attempt — audited; 200 with the
// delivery as it now is, 404 when it is not the endpoint's, 409 while the
// endpoint is disabled.
func (s *Handlers) WebhookRedeliver(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	raw := c.Param("delivery")
	if server.IDOutOfRange(raw) {
		return server.BadID()
	}
	did, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || did <= 0 {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	err = s.Store.RedeliverWebhook(ctx, s.Actor(c), s.Now(), id, did)
	if errors.Is(err, store.ErrNotAllowed) {
		return apiFail(c, http.StatusConflict, "conflict", "api.webhook.error.disabled")
	}
	if err != nil {
		return err
	}
	rows, err := s.Store.WebhookLogBefore(ctx, id, did+1, 1)
	if err != nil {
		return err
	}
	if len(rows) != 1 || rows[0].ID != did {
		return echo.ErrNotFound
	}
	return apiJSON(c, http.StatusOK, newAPIWebhookDelivery(rows[0]))
}
