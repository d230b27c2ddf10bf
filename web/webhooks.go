package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gpuquote/internal/i18n"
	"gpuquote/internal/webhook"
)

// WebhooksPath is the list of webhook endpoints.
const WebhooksPath = "/admin/webhooks"

// WebhookPath is endpoint id's page.
func WebhookPath(id int64) string { return WebhooksPath + "/" + strconv.FormatInt(id, 10) }

// WebhooksView is the page of webhook endpoints (docs/RULES.md §24.7):
// every endpoint, and the form that registers one.
type WebhooksView struct {
	Page   Page
	Rows   []WebhookRow
	Kinds  []Option
	Events []WebhookEventOption
	// Form holds a refused registration's values; Errors its problems.
	Form   url.Values
	Errors Errors
}

// WebhookRow is one endpoint in the list.
type WebhookRow struct {
	ID              int64
	Path            string
	Kind            string
	URL             string
	Description     string
	Events          []string
	Enabled         bool
	Waiting, Failed int
}

// WebhookEventOption is one event type to subscribe to.
type WebhookEventOption struct {
	Value   string
	Label   string
	Checked bool
}

// webhookEventOptions are the event types, those in checked ticked.
func webhookEventOptions(tr *i18n.Translator, checked []string) []WebhookEventOption {
	out := make([]WebhookEventOption, len(webhook.EventTypes))
	for i, t := range webhook.EventTypes {
		out[i] = WebhookEventOption{Value: t, Label: tr.T("webhook.event." + t), Checked: slices.Contains(checked, t)}
	}
	return out
}

// webhookKindLabel is how a kind is named.
func webhookKindLabel(tr *i18n.Translator, kind string) string { return tr.T("webhook.kind." + kind) }

// ShownURL is an endpoint's address without its query, which holds a chat
// bot's key: enough to tell endpoints apart in a list.
func ShownURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		s := u.Scheme + "://" + u.Host + u.EscapedPath()
		if u.RawQuery != "" {
			s += "?…"
		}
		return s
	}
	return raw
}

// NewWebhooksView lists endpoints es.
func NewWebhooksView(tr *i18n.Translator, es []webhook.Endpoint, form url.Values, errs Errors) WebhooksView {
	if form == nil {
		form = url.Values{}
	}
	if errs == nil {
		errs = Errors{}
	}
	v := WebhooksView{Form: form, Errors: errs, Events: webhookEventOptions(tr, form["events"])}
	for _, k := range webhook.Kinds {
		v.Kinds = append(v.Kinds, Option{Value: k, Label: webhookKindLabel(tr, k)})
	}
	for _, e := range es {
		r := WebhookRow{ID: e.ID, Path: WebhookPath(e.ID), Kind: webhookKindLabel(tr, e.Kind), URL: ShownURL(e.URL),
			Description: e.Description, Enabled: e.Enabled, Waiting: e.Waiting, Failed: e.Failed}
		for _, t := range e.Events {
			r.Events = append(r.Events, tr.T("webhook.event."+t))
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

// WebhookView is one endpoint's page: what it is, its secret, the form
// that changes it, and its delivery log.
type WebhookView struct {
	Page        Page
	ID          int64
	Path        string
	Kind        string
	Generic     bool
	Enabled     bool
	URL         string
	Description string
	Secret      string
	HasSecret   bool
	CreatedBy   string
	CreatedAt   string
	Events      []WebhookEventOption
	Form        url.Values
	Errors      Errors
	Log         []WebhookLogRow
}

// WebhookLogRow is one delivery of the log.
type WebhookLogRow struct {
	ID        int64
	Event     string
	EventID   string
	EventAt   string
	Attempts  int
	State     string // delivered, waiting, failed
	Status    string
	Duration  string
	Error     string
	Next      string
	Body      string
	Redeliver string
	Tries     []WebhookTryRow
}

// WebhookTryRow is one attempt of a delivery.
type WebhookTryRow struct {
	Attempt  int
	At       string
	Status   string
	Duration string
	Error    string
}

func statusText(s *int) string {
	if s == nil {
		return "—"
	}
	return strconv.Itoa(*s)
}

// NewWebhookView draws endpoint e with its log.
func NewWebhookView(tr *i18n.Translator, e webhook.Endpoint, log []webhook.LogRow, form url.Values, errs Errors) WebhookView {
	if errs == nil {
		errs = Errors{}
	}
	v := WebhookView{ID: e.ID, Path: WebhookPath(e.ID), Kind: webhookKindLabel(tr, e.Kind), Generic: e.Kind == webhook.KindGeneric,
		Enabled: e.Enabled, URL: e.URL, Description: e.Description, HasSecret: e.Secret != "", CreatedBy: e.CreatedBy,
		CreatedAt: ReportTime(tr, e.CreatedAt), Errors: errs}
	if v.Generic {
		v.Secret = e.Secret
	}
	if form == nil {
		form = url.Values{"url": {e.URL}, "description": {e.Description}, "events": e.Events}
	}
	v.Form = form
	v.Events = webhookEventOptions(tr, form["events"])
	for _, l := range log {
		r := WebhookLogRow{ID: l.ID, Event: tr.T("webhook.event." + l.Type), EventID: webhook.EventID(l.EventID),
			EventAt: ReportTime(tr, l.EventAt), Attempts: l.Attempts, Status: statusText(l.LastStatus), Error: l.LastError,
			Body: l.ResponseBody, Redeliver: v.Path + "/deliveries/" + strconv.FormatInt(l.ID, 10) + "/redeliver"}
		switch {
		case l.DeliveredAt != nil:
			r.State = "delivered"
		case l.GaveUpAt != nil:
			r.State = "failed"
		default:
			r.State = "waiting"
			r.Next = ReportTime(tr, l.NextAttemptAt)
		}
		if l.LastDuration != nil {
			r.Duration = strconv.Itoa(*l.LastDuration) + " ms"
		}
		for _, t := range l.Tries {
			r.Tries = append(r.Tries, WebhookTryRow{Attempt: t.Attempt, At: ReportTime(tr, t.At), Status: statusText(t.Status),
				Duration: strconv.Itoa(t.DurationMS) + " ms", Error: strings.TrimSpace(t.Error)})
		}
		v.Log = append(v.Log, r)
	}
	return v
}
