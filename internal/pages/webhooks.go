package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/webhook"
	"gpuquote/web"
)

// WebhooksPage is GET /admin/webhooks: the webhook endpoints and the form
// that registers one (docs/RULES.md §24.7).
func (s *Handlers) WebhooksPage(c echo.Context) error {
	return s.renderWebhooks(c, http.StatusOK, nil, nil)
}

func (s *Handlers) renderWebhooks(c echo.Context, status int, form url.Values, errs web.Errors) error {
	es, err := s.Store.WebhookEndpoints(c.Request().Context())
	if err != nil {
		return err
	}
	v := web.NewWebhooksView(server.Translator(c), es, form, errs)
	v.Page = s.Page(c, "webhook.title")
	return s.Render(c, status, v.Page, web.Webhooks(v))
}

// readWebhook reads the endpoint form: its fields checked by
// webhook.Check, each problem under its field.
func (s *Handlers) readWebhook(values url.Values, kind string) (webhook.Endpoint, web.Errors) {
	e := webhook.Endpoint{Kind: kind, URL: values.Get("url"), Secret: values.Get("secret"),
		Description: values.Get("description"), Events: values["events"]}
	errs := web.Errors{}
	for field, id := range webhook.Check(&e, s.Config.WebhookAllowPrivate) {
		errs.Add(field, id)
	}
	return e, errs
}

// WebhookCreate is POST /admin/webhooks: an endpoint registered, audited;
// a generic one gets its signing secret, shown on its page.
func (s *Handlers) WebhookCreate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	in, errs := s.readWebhook(values, values.Get("kind"))
	if len(errs) > 0 {
		return s.renderWebhooks(c, http.StatusUnprocessableEntity, values, errs)
	}
	e, err := s.Store.CreateWebhookEndpoint(c.Request().Context(), s.Actor(c), s.Now(), in)
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, web.WebhookPath(e.ID), "ok", "webhook.flash.created")
}

// WebhookShow is GET /admin/webhooks/:id: the endpoint, its secret and
// its delivery log.
func (s *Handlers) WebhookShow(c echo.Context) error {
	return s.renderWebhook(c, http.StatusOK, nil, nil)
}

func (s *Handlers) renderWebhook(c echo.Context, status int, form url.Values, errs web.Errors) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.Store.WebhookEndpoint(ctx, id)
	if err != nil {
		return err
	}
	log, err := s.Store.WebhookLog(ctx, id, 100)
	if err != nil {
		return err
	}
	v := web.NewWebhookView(server.Translator(c), e, log, form, errs)
	v.Page = s.Page(c, "webhook.one.title")
	return s.Render(c, status, v.Page, web.Webhook(v))
}

// WebhookUpdate is POST /admin/webhooks/:id: its address, events,
// description (and a chat bot's new secret) changed, audited.
func (s *Handlers) WebhookUpdate(c echo.Context) error {
	id, values, err := pathForm(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cur, err := s.Store.WebhookEndpoint(ctx, id)
	if err != nil {
		return err
	}
	in, errs := s.readWebhook(values, cur.Kind)
	if len(errs) > 0 {
		return s.renderWebhook(c, http.StatusUnprocessableEntity, values, errs)
	}
	if err := s.Store.UpdateWebhookEndpoint(ctx, s.Actor(c), s.Now(), id, in); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, web.WebhookPath(id), "ok", "webhook.flash.saved")
}

// WebhookEnable and WebhookDisable are POST /admin/webhooks/:id/enable and
// …/disable, audited.
func (s *Handlers) WebhookEnable(c echo.Context) error  { return s.setWebhookEnabled(c, true) }
func (s *Handlers) WebhookDisable(c echo.Context) error { return s.setWebhookEnabled(c, false) }

func (s *Handlers) setWebhookEnabled(c echo.Context, on bool) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	if err := s.Store.SetWebhookEnabled(c.Request().Context(), s.Actor(c), s.Now(), id, on); err != nil {
		return err
	}
	msg := "webhook.flash.disabled"
	if on {
		msg = "webhook.flash.enabled"
	}
	return s.RedirectWithFlash(c, web.WebhookPath(id), "ok", msg)
}

// WebhookDelete is POST /admin/webhooks/:id/delete, audited.
func (s *Handlers) WebhookDelete(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteWebhookEndpoint(c.Request().Context(), s.Actor(c), s.Now(), id); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, web.WebhooksPath, "ok", "webhook.flash.deleted")
}

// WebhookRedeliver is POST /admin/webhooks/:id/deliveries/:delivery/redeliver:
// one new attempt now, audited; 409 while the endpoint is disabled.
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
	err = s.Store.RedeliverWebhook(c.Request().Context(), s.Actor(c), s.Now(), id, did)
	if errors.Is(err, store.ErrNotAllowed) {
		return echo.NewHTTPError(http.StatusConflict)
	}
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, web.WebhookPath(id), "ok", "webhook.flash.redelivered")
}
