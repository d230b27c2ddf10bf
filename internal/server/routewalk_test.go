package server_test

import (
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// walkValues are what the route walk sends in every parameter: control
// characters, numbers beyond int64 and beyond every numeric column, an
// exponent, nothing, and a long text; and ids past 32 bits and at the top
// of int64, valid ids that match nothing.
var walkValues = []string{
	"a\x00b", "\x01", "123456789012345678901234567890", "9223372036854775808", "-9223372036854775809",
	"2147483648", "9223372036854775807",
	"1e400", "99999999999999999999999999.99", "", strings.Repeat("x", 10000),
}

// walkCase says how to call one route: a concrete path (its ids those of
// records the caller may see, its query a valid one), a valid form, and
// the query parameters and posted fields the handler reads beyond those
// the pages' own forms and links name.
type walkCase struct {
	path   func(a *testutil.App, c *testutil.Client) string
	form   func(a *testutil.App) url.Values
	query  []string
	fields []string
	// noQuery: the route's query is not walked (the profiler would run
	// for as many seconds as asked).
	noQuery bool
}

// profileQuery is the comparison's usage profile for one quote.
func profileQuery(a *testutil.App) string {
	return "profile.hours_per_month=200&profile.months=1&profile.instances=1&q=" + itoa(publishedQuote(a))
}

// ownReport is a draft report of the client's own (someone else's for an
// anonymous client).
func ownReport(a *testutil.App, c *testutil.Client) int64 {
	r := c.PostForm("/reports", reportForm("Walk", "200", publishedQuote(a)))
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if m == nil {
		return someonesReport(a, "draft")
	}
	var id int64
	fmt.Sscan(m[1], &id)
	return id
}

// walkCases are the routes that need more than their bare path: every
// route with an :id, and those whose handler reads a query or form the
// pages do not show in full.
func walkCases() map[string]walkCase {
	p := func(f func(a *testutil.App) string) func(*testutil.App, *testutil.Client) string {
		return func(a *testutil.App, _ *testutil.Client) string { return f(a) }
	}
	listQuery := []string{"page", "q", "platform", "gpu", "quote", "author", "state", "status", "currency", "stale",
		"verdict", "from", "to", "min", "max", "sort", "dir"}
	return map[string]walkCase{
		"GET /login":                   {query: []string{"next"}},
		"POST /login":                  {fields: []string{"email", "password", "next"}},
		"POST /lang":                   {fields: []string{"lang", "next"}},
		"POST /api/v1/tco/evaluate":    {},
		"POST /api/v1/tco/rent-vs-buy": {},
		"POST /api/v1/bills/check":     {},
		"POST /calculator": {form: func(*testutil.App) url.Values {
			return url.Values{"quote.currency": {"EUR"}, "quote.gpu_count": {"1"}, "quote.hourly": {"0.471"},
				"quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
				"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}}
		}},
		"POST /api/v1/verify/nvidia-smi": {path: p(func(a *testutil.App) string {
			return "/api/v1/verify/nvidia-smi?gpu_model=" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		}), query: []string{"gpu_model"}, fields: []string{"text"}},
		"POST /api/v1/quotes/extract": {fields: []string{"text"}},
		"POST /api/v1/availability": {fields: []string{"attempted_at", "gpu_count", "obtained", "wait_minutes", "note", "quote_id",
			"trial_id", "platform", "gpu_model"}},
		"GET /availability":  {path: p(availabilityPath), query: []string{"platform", "gpu", "page"}},
		"POST /availability": {form: availabilityForm, fields: []string{"quote_id", "trial_id"}},
		"POST /account/password": {form: func(*testutil.App) url.Values {
			return url.Values{"current": {"not my password"}, "new": {"a new long password"}, "confirm": {"a new long password"}}
		}},
		"POST /account/tokens":            {form: func(*testutil.App) url.Values { return url.Values{"name": {"walk"}} }},
		"POST /account/tokens/:id/revoke": {path: p(func(a *testutil.App) string { return "/account/tokens/" + itoa(someonesAPIToken(a)) + "/revoke" })},
		"POST /account/sessions/:id/end": {path: p(func(*testutil.App) string {
			return "/account/sessions/00000000-0000-4000-8000-000000000000/end"
		})},
		"GET /feeds/quotes.atom":  {query: []string{"token", "lang"}},
		"GET /feeds/watch/:token": {query: []string{"lang"}},

		"GET /platforms":  {query: []string{"q", "qual", "has", "page"}},
		"POST /platforms": {form: specPlatformForm},
		"GET /platforms/:id": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)
		})},
		"GET /platforms/:id/edit": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/edit"
		})},
		"POST /platforms/:id": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)
		}),
			form: func(a *testutil.App) url.Values { v := specPlatformForm(a); v.Set("lock_version", "1"); return v }},
		"GET /gpus":  {query: []string{"q", "interconnect", "page"}},
		"POST /gpus": {form: specGPUForm},
		"GET /gpus/:id": {path: p(func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		})},
		"GET /gpus/:id/edit": {path: p(func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID) + "/edit"
		})},
		"POST /gpus/:id": {path: p(func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		}),
			form: func(a *testutil.App) url.Values { v := specGPUForm(a); v.Set("lock_version", "1"); return v }},

		"GET /quotes":     {query: listQuery},
		"GET /quotes/new": {query: []string{"platform", "gpu_model", "currency"}},
		"POST /quotes":    {form: quoteForm},
		"GET /quotes/:id": {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) })},
		"GET /quotes/:id/edit": {path: p(func(a *testutil.App) string {
			return "/quotes/" + itoa(draftQuote(a).ID) + "/edit"
		})},
		"POST /quotes/:id": {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) }),
			form: func(a *testutil.App) url.Values { v := quoteForm(a); v.Set("lock_version", "1"); return v }},
		"POST /quotes/:id/publish": {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) + "/publish" }),
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}} }},
		"POST /quotes/:id/versions": {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) + "/versions" })},
		"POST /quotes/:id/archive":  {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) + "/archive" })},
		"POST /quotes/:id/delete": {path: p(func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) + "/delete" }),
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}} }},
		"GET /quotes/proposals":            {query: []string{"page"}},
		"POST /quotes/proposals":           {form: proposalForm},
		"GET /quotes/review":               {query: []string{"page"}},
		"GET /quotes/:id/proposal/edit":    {path: p(proposalPath("/proposal/edit"))},
		"POST /quotes/:id/proposal":        {path: p(proposalPath("/proposal")), form: proposalForm, fields: []string{"lock_version"}},
		"GET /quotes/:id/attachments/:att": {path: p(proposalAttachmentPath)},
		"GET /quotes/:id/review":           {path: p(proposalPath("/review"))},
		"POST /quotes/:id/review/publish": {path: p(proposalPath("/review/publish")),
			form: func(a *testutil.App) url.Values { v := quoteForm(a); v.Set("lock_version", "1"); return v }},
		"POST /quotes/:id/review/return": {path: p(proposalPath("/review/return")),
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}, "comment": {"why"}} }},
		"POST /quotes/:id/attachments/:att/withdraw": {path: p(func(a *testutil.App) string {
			return proposalAttachmentPath(a) + "/withdraw"
		})},

		"GET /prices": {query: []string{"ref_item", "ref_currency", "ref_page", "fx_base", "fx_quote", "fx_page", "item"}},
		"POST /prices/reference": {form: func(*testutil.App) url.Values {
			return url.Values{"item": {"egress"}, "currency": {"CNY"}, "unit": {"per_gb"}, "unit_price": {"0.8"},
				"as_of": {"2001-01-01"}, "source": {"walk"}}
		}},
		"GET /own-hardware":        {query: []string{"page", "gpu", "scope", "archived"}},
		"POST /own-hardware":       {form: ownForm, fields: []string{"shared"}},
		"GET /watches/new":         {query: []string{"platform", "gpu_model", "gpu_count", "sharing", "currency", "kind", "basis", "target", "percent"}},
		"POST /watches":            {form: watchForm, fields: []string{"shared"}},
		"GET /watches/:id/edit":    {path: p(func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/edit" })},
		"POST /watches/:id":        {path: p(func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) }), form: watchForm},
		"POST /watches/:id/pause":  {path: p(func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/pause" })},
		"POST /watches/:id/resume": {path: p(func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/resume" })},
		"POST /watches/:id/delete": {path: p(func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/delete" })},
		"GET /own-hardware/:id": {path: p(func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) }),
			query: []string{"version"}},
		"GET /own-hardware/:id/edit": {path: p(func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) + "/edit" })},
		"POST /own-hardware/:id": {path: p(func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) }),
			form: func(a *testutil.App) url.Values { v := ownForm(a); v.Set("based_on", "1"); return v }, fields: []string{"based_on"}},
		"POST /own-hardware/:id/archive": {path: p(func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) + "/archive" })},
		"GET /electricity":               {query: []string{"page", "region", "currency"}},
		"POST /electricity":              {form: func(*testutil.App) url.Values { return electricityForm(0) }},
		"POST /prices/fx": {form: func(*testutil.App) url.Values {
			return url.Values{"base": {"EUR"}, "quote": {"CNY"}, "rate": {"7.8"}, "as_of": {"2001-01-01"}, "source": {"walk"}}
		}},
		"GET /history": {path: p(func(a *testutil.App) string {
			publishedQuote(a)
			pid, gid := marketRefs(a)
			return "/history?platform=" + itoa(pid) + "&gpu=" + itoa(gid)
		}), query: []string{"platform", "gpu", "currency"}},
		"GET /quotes/export.csv": {query: listQuery},
		"POST /quotes/import/skypilot": {form: func(a *testutil.App) url.Values {
			return url.Values{"platform": {itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)}, "as_of": {"2026-01-01"},
				"source": {"walk"}, "sharing": {"dedicated"}, "billing_granularity": {"second"}}
		}},
		"GET /quotes/import/skypilot/:id": {path: p(func(a *testutil.App) string {
			return "/quotes/import/skypilot/" + itoa(someCatalogImport(a.T, a))
		})},
		"POST /quotes/import/skypilot/:id/publish": {path: p(func(a *testutil.App) string {
			return "/quotes/import/skypilot/" + itoa(someCatalogImport(a.T, a)) + "/publish"
		}), fields: []string{"quote"}},

		"GET /trials": {query: listQuery},
		"GET /trials/new": {path: p(func(a *testutil.App) string { return "/trials/new?quote=" + itoa(publishedQuote(a)) }),
			query: []string{"quote"}},
		"POST /trials": {form: func(a *testutil.App) url.Values {
			return url.Values{"quote": {itoa(publishedQuote(a))}, "started_on": {"2020-01-01"}}
		}},
		"GET /trials/:id": {path: p(func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) })},
		"POST /trials/:id/checks": {path: p(func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/checks" }),
			form: func(*testutil.App) url.Values { return url.Values{"check": {"1"}, "state": {"pass"}} }},
		"POST /trials/:id/nvidia-smi": {path: p(func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/nvidia-smi" }),
			form: func(*testutil.App) url.Values { return url.Values{"output": {throttledRTX3090}} }},
		"POST /trials/:id/performance": {path: p(func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/performance" }),
			form: func(*testutil.App) url.Values {
				return url.Values{"precision": {"fp32"}, "measured": {"80"}, "benchmark": {"sgemm"}}
			}},
		"GET /platforms/:id/terms/edit": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/terms/edit"
		})},
		"POST /platforms/:id/terms": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/terms"
		}),
			form: func(*testutil.App) url.Values {
				return termsForm(map[string]string{"sla.data_loss.answer": "walk", "sla.data_loss.in_writing": "true"})
			}},
		"GET /admin/webhooks/:id":                                 {path: p(func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) })},
		"POST /admin/webhooks":                                    {form: func(*testutil.App) url.Values { return webhookForm() }},
		"POST /admin/webhooks/:id":                                {path: p(func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) }), form: func(*testutil.App) url.Values { return webhookForm() }},
		"POST /admin/webhooks/:id/enable":                         {path: p(func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/enable" })},
		"POST /admin/webhooks/:id/disable":                        {path: p(func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/disable" })},
		"POST /admin/webhooks/:id/delete":                         {path: p(func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/delete" })},
		"POST /admin/webhooks/:id/deliveries/:delivery/redeliver": {path: p(routeDelivery)},
		"GET /platforms/:id/bill-mappings": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings"
		})},
		"POST /platforms/:id/bill-mappings": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings"
		}), form: func(*testutil.App) url.Values {
			return url.Values{"kind": {"sku"}, "key": {"gpu.h100.hour"}, "item": {"compute_hourly"}}
		}},
		"POST /platforms/:id/bill-mappings/delete": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings/delete"
		}), form: func(*testutil.App) url.Values { return url.Values{"kind": {"sku"}, "key": {"none"}} }},
		"GET /platforms/:id/facts": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/facts"
		}),
			query: []string{"kind"}},
		"POST /platforms/:id/facts": {path: p(func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/facts"
		}),
			form: func(*testutil.App) url.Values {
				return url.Values{"kind": {"setup_minutes"}, "value": {"yes"}, "minutes": {"30"}, "note": {"walk"},
					"source": {"walk"}, "as_of": {"2026-01-01"}, "trial_id": {"1"}}
			}},

		"GET /compare": {path: p(func(a *testutil.App) string { return "/compare?" + profileQuery(a) }),
			query: []string{"profile_id", "preset", "q", "gpu", "sharing", "fresh", "currency", "report_currency", "sort", "dir", "fit", "qual", "env"}},
		"GET /compare/questions": {path: p(func(a *testutil.App) string {
			return "/compare/questions?" + profileQuery(a) + "&quote=" + itoa(publishedQuote(a))
		}),
			query: []string{"quote"}},
		// The page's sections read the page's state (docs/RULES.md §20.4).
		"GET /compare/lines": {path: p(func(a *testutil.App) string { return "/compare/lines?" + profileQuery(a) }),
			query: []string{"profile_id", "preset", "q", "report_currency", "sort", "dir"}},
		"GET /compare/facts": {path: p(func(a *testutil.App) string { return "/compare/facts?" + profileQuery(a) }),
			query: []string{"profile_id", "preset", "q", "report_currency", "sort", "dir"}},
		"GET /compare/availability": {path: p(func(a *testutil.App) string { return "/compare/availability?" + profileQuery(a) }),
			query: []string{"profile_id", "preset", "q", "report_currency", "sort", "dir"}},
		"POST /compare/profiles": {form: func(*testutil.App) url.Values {
			return url.Values{"name": {"Walk"}, "profile.hours_per_month": {"600"}, "profile.months": {"12"}, "profile.instances": {"1"}}
		}, fields: []string{"next"}},
		"POST /compare/profiles/:id/delete": {path: p(func(a *testutil.App) string {
			return "/compare/profiles/" + itoa(someonesProfile(a)) + "/delete"
		}), fields: []string{"next"}},

		"GET /reports":       {query: listQuery},
		"GET /reports/inbox": {query: listQuery},
		"GET /reports/new": {path: p(func(a *testutil.App) string {
			return "/reports/new?" + reportForm("", "200", publishedQuote(a)).Encode()
		}), query: []string{"revise_of", "title", "purpose", "report_currency", "q"}},
		"POST /reports": {form: func(a *testutil.App) url.Values { return reportForm("Walk", "200", publishedQuote(a)) },
			fields: []string{"revise_of"}},
		"GET /reports/:id": {path: p(func(a *testutil.App) string { return "/reports/" + itoa(someonesReport(a, "submitted")) })},
		"GET /reports/:id/export.csv": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/export.csv"
		})},
		"GET /reports/:id/export.xlsx": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/export.xlsx"
		})},
		"POST /reports/:id/submit": {path: func(a *testutil.App, c *testutil.Client) string {
			return "/reports/" + itoa(ownReport(a, c)) + "/submit"
		}},
		"POST /reports/:id/approve": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/approve"
		}), fields: []string{"comment"}},
		"POST /reports/:id/return": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/return"
		}), form: func(*testutil.App) url.Values { return url.Values{"comment": {"Use twelve months"}} }},
		"POST /reports/:id/revise": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "returned")) + "/revise"
		}), form: func(*testutil.App) url.Values { return url.Values{"title": {"Revised"}, "data": {"same"}} }},
		"POST /reports/:id/recompute": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/recompute"
		})},
		"POST /reports/:id/retitle": {path: func(a *testutil.App, c *testutil.Client) string {
			return "/reports/" + itoa(ownReport(a, c)) + "/retitle"
		}, form: func(*testutil.App) url.Values { return url.Values{"title": {"Renamed"}, "purpose": {"walk"}} }},
		"GET /reports/:id/bills/new": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "approved")) + "/bills/new"
		}), query: []string{"correct"}},
		"POST /reports/:id/bills": {path: p(func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "approved")) + "/bills"
		}), form: func(a *testutil.App) url.Values {
			return url.Values{"month": {"2026-11"}, "currency": {"EUR"}, "instances": {"1"}, "prices_include_tax": {"yes"},
				"action": {"typed"}, "rows": {"1"}, "line-0-item": {"compute_hourly"}, "line-0-quantity": {"1"}, "line-0-amount": {"1"}}
		}, fields: []string{"quote", "correct", "format", "file_text", "file_name", "unmapped", "map-0", "map-0-kind", "map-0-key", "note", "fx_rate"}},
		"GET /reports/:id/bills/:bill":             {path: p(someonesBill)},
		"GET /reports/:id/bills/:bill/letter":      {path: p(func(a *testutil.App) string { return someonesBill(a) + "/letter" })},
		"GET /reports/:id/bills/:bill/export.csv":  {path: p(func(a *testutil.App) string { return someonesBill(a) + "/export.csv" })},
		"GET /reports/:id/bills/:bill/export.xlsx": {path: p(func(a *testutil.App) string { return someonesBill(a) + "/export.xlsx" })},
		"GET /reports/:id/bills/:bill/focus.csv":   {path: p(func(a *testutil.App) string { return someonesBill(a) + "/focus.csv" })},
		"POST /reports/:id/delete": {path: func(a *testutil.App, c *testutil.Client) string {
			return "/reports/" + itoa(ownReport(a, c)) + "/delete"
		}},

		"GET /admin/users": {query: []string{"q", "role", "page"}},
		"POST /admin/users": {form: func(*testutil.App) url.Values {
			return url.Values{"email": {"walk@example.test"}, "display_name": {"Walk"}, "role": {"analyst"}}
		}, fields: []string{"password"}},
		"POST /admin/users/:id/role": {path: p(func(a *testutil.App) string {
			_, _, id := a.CreateUser(auth.RoleAnalyst)
			return "/admin/users/" + itoa(id) + "/role"
		}), form: func(*testutil.App) url.Values { return url.Values{"role": {"finance"}} }, fields: []string{"back"}},
		"POST /admin/users/:id/disable": {path: p(func(a *testutil.App) string {
			_, _, id := a.CreateUser(auth.RoleAnalyst)
			return "/admin/users/" + itoa(id) + "/disable"
		}), fields: []string{"back"}},
		"POST /admin/users/:id/enable": {path: p(func(a *testutil.App) string {
			_, _, id := a.CreateUser(auth.RoleAnalyst)
			return "/admin/users/" + itoa(id) + "/enable"
		}), fields: []string{"back"}},
		"GET /admin/audit": {query: []string{"actor", "entity", "action", "from", "to", "before"}},
	}
}

var (
	formTag   = regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`)
	attrRe    = regexp.MustCompile(`(?is)\b(action|method)="([^"]*)"`)
	nameAttr  = regexp.MustCompile(`(?is)<(?:input|select|textarea|button)\b[^>]*\bname="([^"]+)"`)
	hrefQuery = regexp.MustCompile(`(?is)href="(/[^"?#]*)\?([^"#]*)"`)
)

// routeKey is the route of the table that serves method path ("" when
// none): literal segments before :id, as the router prefers them.
func routeKey(routes []server.Route, method, path string) string {
	best, bestLiterals := "", -1
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, r := range routes {
		if r.Method != method || strings.Contains(r.Path, "*") {
			continue
		}
		pat := strings.Split(strings.Trim(r.Path, "/"), "/")
		if len(pat) != len(segs) {
			continue
		}
		literals := 0
		for i, ps := range pat {
			if strings.HasPrefix(ps, ":") {
				continue
			}
			if ps != segs[i] {
				literals = -1
				break
			}
			literals++
		}
		if literals > bestLiterals {
			best, bestLiterals = r.Method+" "+r.Path, literals
		}
	}
	return best
}

// scrape adds the fields of every form on a page to the route its form
// posts (or gets) to, and the query names of every link to the route it
// leads to.
func scrape(routes []server.Route, page, body string, names map[string]map[string]bool) {
	add := func(key, name string) {
		if key == "" || name == "_csrf" {
			return
		}
		if names[key] == nil {
			names[key] = map[string]bool{}
		}
		names[key][name] = true
	}
	for _, m := range formTag.FindAllStringSubmatch(body, -1) {
		action, method := page, "GET"
		for _, a := range attrRe.FindAllStringSubmatch(m[1], -1) {
			switch strings.ToLower(a[1]) {
			case "action":
				if a[2] != "" {
					action = html.UnescapeString(a[2])
				}
			case "method":
				method = strings.ToUpper(a[2])
			}
		}
		u, err := url.Parse(action)
		if err != nil {
			continue
		}
		key := routeKey(routes, method, u.Path)
		for k := range u.Query() {
			add(key, k)
		}
		for _, n := range nameAttr.FindAllStringSubmatch(m[2], -1) {
			add(key, html.UnescapeString(n[1]))
		}
	}
	for _, m := range hrefQuery.FindAllStringSubmatch(body, -1) {
		q, err := url.ParseQuery(html.UnescapeString(m[2]))
		if err != nil {
			continue
		}
		key := routeKey(routes, http.MethodGet, m[1])
		for k := range q {
			add(key, k)
		}
	}
}

// walkRoute sends one route every walk value in every parameter and
// returns how many requests it sent.
func walkRoute(t *testing.T, app *testutil.App, client *testutil.Client, r server.Route, base string, c walkCase, scraped map[string]bool, who string) int {
	t.Helper()
	n := 0
	basePath, rawQuery, _ := strings.Cut(base, "?")
	baseQuery, _ := url.ParseQuery(rawQuery)
	baseForm := url.Values{}
	if c.form != nil {
		baseForm = c.form(app)
	}
	call := func(path string, q, form url.Values, what string) {
		t.Helper()
		target := path
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		n++
		var res *testutil.Response
		switch r.Method {
		case http.MethodGet:
			res = client.Get(target)
		case http.MethodPost:
			res = client.PostForm(target, form)
		case http.MethodPut, http.MethodDelete:
			// The data API's other methods, with the session's CSRF token.
			if client.CSRF == "" {
				client.Get("/login")
			}
			req, err := http.NewRequest(r.Method, app.URL+target, strings.NewReader(form.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-CSRF-Token", client.CSRF)
			res = client.Do(req)
		default:
			t.Fatalf("no way to call %s", r.Method)
		}
		if res.StatusCode >= 500 {
			t.Errorf("as %s, %s %s with %s: status %d", who, r.Method, r.Path, what, res.StatusCode)
		}
	}
	label := func(v string) string {
		if len(v) > 40 {
			return fmt.Sprintf("%q… (%d bytes)", v[:10], len(v))
		}
		return fmt.Sprintf("%q", v)
	}

	// The path's parameter: the id, or what the wildcard matches.
	pat := strings.Split(r.Path, "/")
	for i, seg := range pat {
		if !strings.HasPrefix(seg, ":") && !strings.HasSuffix(seg, "*") {
			continue
		}
		concrete := strings.Split(basePath, "/")
		for _, v := range walkValues {
			segs := append([]string(nil), concrete...)
			if i >= len(segs) {
				segs = append(segs, "")
			}
			segs[i] = strings.TrimSuffix(seg, "*") + url.PathEscape(v)
			if strings.HasSuffix(seg, "*") {
				segs = segs[:i+1]
			}
			call(strings.Join(segs, "/"), baseQuery, baseForm, "path "+label(v))
		}
	}
	// The query: what the handler reads and what links name.
	query := map[string]bool{}
	if !c.noQuery {
		for k := range baseQuery {
			query[k] = true
		}
		for _, k := range c.query {
			query[k] = true
		}
		if r.Method == http.MethodGet {
			for k := range scraped {
				query[k] = true
			}
		}
	}
	// The form: the valid one's fields and those of the pages' forms.
	fields := map[string]bool{}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		for k := range baseForm {
			fields[k] = true
		}
		for _, k := range c.fields {
			fields[k] = true
		}
		for k := range scraped {
			fields[k] = true
		}
	}
	for _, k := range sortedKeys(query) {
		for _, v := range walkValues {
			q := url.Values{}
			for kk, vv := range baseQuery {
				q[kk] = vv
			}
			q.Set(k, v)
			call(basePath, q, baseForm, "query "+k+"="+label(v))
		}
	}
	for _, k := range sortedKeys(fields) {
		for _, v := range walkValues {
			f := url.Values{}
			for kk, vv := range baseForm {
				f[kk] = vv
			}
			f.Set(k, v)
			call(basePath, baseQuery, f, "field "+k+"="+label(v))
		}
	}
	if len(query) == 0 && len(fields) == 0 && !strings.Contains(r.Path, ":") {
		call(basePath, baseQuery, baseForm, "no parameters")
	}
	return n
}

// pathParam is a path parameter of the route table (":id").
var pathParam = regexp.MustCompile(`:[a-z]+`)

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// walkJSONValues are what the JSON walk puts in every value of a JSON
// body, in place of a valid one: the walk's strings as JSON strings (a
// NUL, a control character, numbers beyond every column, an exponent,
// nothing, 10,000 characters), DEL and a line break, and values of every
// other JSON type — numbers beyond float64 and int64, a fraction, a
// negative, a boolean, null, an object holding a NUL and an array.
var walkJSONValues = func() []json.RawMessage {
	var out []json.RawMessage
	for _, v := range append(walkValues, "a\x7fb", "a\r\nb") {
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	for _, raw := range []string{`1e400`, `123456789012345678901234567890`, `-1`, `1.5`, `true`, `null`, `{"a\u0000": 1}`, `["\u0000"]`, `{}`} {
		out = append(out, json.RawMessage(raw))
	}
	return out
}()

// walkJSONBodies are whole bodies the JSON walk sends each JSON door:
// none, not an object, a key twice, nested too deep, not UTF-8.
var walkJSONBodies = []string{``, `[]`, `"x"`, `1e400`, `{"a": 1, "a": 2}`, `{} {}`, strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40),
	"{\"note\": \"\xff\"}"}

// jsonWalkCase is a JSON door's concrete path and a valid body, made over
// a's records for the caller whose token is token.
type jsonWalkCase func(a *testutil.App, token string) (path string, body map[string]any)

// walkQuoteBody is a quote's valid JSON write body on the test market.
func walkQuoteBody(a *testutil.App) map[string]any {
	pid, gid := marketRefs(a)
	return map[string]any{"platform": pid, "gpu_model": gid, "label": "walk", "gpu_count": 1, "sharing": "dedicated",
		"currency": "EUR", "hourly": "0.471", "monthly": "284", "billing_granularity": "second", "prices_include_tax": false,
		"tax_rate": "0.06", "as_of": "2025-01-15", "source": "walk", "notes": "walk",
		"lines": map[string]any{"egress": map[string]any{"status": "charged", "unit": "per_gb", "unit_price": "0.8", "free_allowance": "20",
			"in_writing": true, "note": "walk"}, "public_ip": map[string]any{"status": "included"}}}
}

// jsonObject is body as a generic JSON object.
func jsonObject(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// jsonWalkCases are the JSON doors of the route table: every POST under
// /api/ but the trial evidence endpoint, which reads pasted text.
func jsonWalkCases(t *testing.T) map[string]jsonWalkCase {
	fixed := func(path string, body func(a *testutil.App) map[string]any) jsonWalkCase {
		return func(a *testutil.App, _ string) (string, map[string]any) { return path, body(a) }
	}
	compare := func(a *testutil.App) map[string]any { return apiMarketCompare(publishedQuote(a)) }
	step := func(action string) jsonWalkCase {
		return func(a *testutil.App, _ string) (string, map[string]any) {
			return "/api/v1/reports/" + itoa(someonesReport(a, "submitted")) + "/" + action, map[string]any{"comment": "walk"}
		}
	}
	return map[string]jsonWalkCase{
		"POST /api/v1/tco/evaluate": fixed("/api/v1/tco/evaluate", func(*testutil.App) map[string]any { return jsonObject(t, golden("", "200")) }),
		"POST /api/v1/tco/rent-vs-buy": fixed("/api/v1/tco/rent-vs-buy", func(*testutil.App) map[string]any {
			return jsonObject(t, rentBuyBody("200", "12"))
		}),
		"POST /api/v1/bills/check": fixed("/api/v1/bills/check", func(*testutil.App) map[string]any { return jsonObject(t, goldenBill1) }),
		"POST /api/v1/compare":     fixed("/api/v1/compare", compare),
		"POST /api/v1/quotes/extract": fixed("/api/v1/quotes/extract", func(*testutil.App) map[string]any {
			return map[string]any{"text": "AutoDL RTX 4090 单卡：按量 ¥1.98/小时，按秒计费；包月 ¥1,150。"}
		}),
		"POST /api/v1/quotes": fixed("/api/v1/quotes", walkQuoteBody),
		"POST /api/v1/quotes/:id/versions": func(a *testutil.App, _ string) (string, map[string]any) {
			return "/api/v1/quotes/" + itoa(publishedQuote(a)) + "/versions", walkQuoteBody(a)
		},
		"POST /api/v1/proposals": fixed("/api/v1/proposals", func(a *testutil.App) map[string]any {
			b := walkQuoteBody(a)
			b["vendor_message"] = "walk"
			return b
		}),
		"POST /api/v1/reference-prices": fixed("/api/v1/reference-prices", func(*testutil.App) map[string]any {
			return map[string]any{"item": "egress", "currency": "CNY", "unit": "per_gb", "unit_price": "0.8", "as_of": "2001-01-01", "source": "walk"}
		}),
		"POST /api/v1/fx-rates": fixed("/api/v1/fx-rates", func(*testutil.App) map[string]any {
			return map[string]any{"base": "EUR", "quote": "CNY", "rate": "7.8", "as_of": "2001-01-01", "source": "walk"}
		}),
		"POST /api/v1/reports": fixed("/api/v1/reports", func(a *testutil.App) map[string]any {
			b := compare(a)
			b["title"], b["purpose"], b["revise_of"] = "walk", "walk", 0
			return b
		}),
		"POST /api/v1/reports/:id/submit": func(a *testutil.App, token string) (string, map[string]any) {
			b := compare(a)
			b["title"] = "walk"
			r := apiCall(t, a, http.MethodPost, "/api/v1/reports", token, jsonText(t, b))
			var rep struct{ ID int64 }
			if err := json.Unmarshal([]byte(r.Body), &rep); err != nil || rep.ID == 0 {
				t.Fatalf("a report to submit: %d %s", r.StatusCode, r.Body)
			}
			return "/api/v1/reports/" + itoa(rep.ID) + "/submit", map[string]any{"comment": "walk"}
		},
		"POST /api/v1/reports/:id/approve": step("approve"),
		"POST /api/v1/reports/:id/return":  step("return"),
		"POST /api/v1/trials/:id/checks": func(a *testutil.App, _ string) (string, map[string]any) {
			return "/api/v1/trials/" + itoa(routeTrial(a)) + "/checks",
				map[string]any{"check": 1, "state": "fail", "note": "walk", "measured": "1", "output": "walk"}
		},
		// Watching the market (docs/RULES.md §24.9): the admin's own watch,
		// a registered endpoint and one of its deliveries; the doors that
		// read no body are walked all the same.
		"POST /api/v1/watches": fixed("/api/v1/watches", walkWatchBody),
		"PUT /api/v1/watches/:id": func(a *testutil.App, token string) (string, map[string]any) {
			return "/api/v1/watches/" + itoa(walkOwnWatch(t, a, token)), walkWatchBody(a)
		},
		"POST /api/v1/watches/:id/pause": func(a *testutil.App, token string) (string, map[string]any) {
			return "/api/v1/watches/" + itoa(walkOwnWatch(t, a, token)) + "/pause", map[string]any{}
		},
		"POST /api/v1/watches/:id/resume": func(a *testutil.App, token string) (string, map[string]any) {
			return "/api/v1/watches/" + itoa(walkOwnWatch(t, a, token)) + "/resume", map[string]any{}
		},
		"POST /api/v1/feed-token": fixed("/api/v1/feed-token", func(*testutil.App) map[string]any { return map[string]any{} }),
		"POST /api/v1/webhooks":   fixed("/api/v1/webhooks", walkWebhookBody),
		"PUT /api/v1/webhooks/:id": func(a *testutil.App, _ string) (string, map[string]any) {
			return "/api/v1/webhooks/" + itoa(routeWebhook(a)), walkWebhookBody(a)
		},
		"POST /api/v1/webhooks/:id/deliveries/:delivery/redeliver": func(a *testutil.App, _ string) (string, map[string]any) {
			return "/api/v1" + strings.TrimPrefix(routeDelivery(a), "/admin"), map[string]any{}
		},
		"POST /api/v1/availability": fixed("/api/v1/availability", func(a *testutil.App) map[string]any {
			return map[string]any{"platform": testfactory.Platform(a.T, a.Store, market.Platform{}).ID,
				"gpu_model": testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID, "attempted_at": "2026-01-10T13:30",
				"gpu_count": 2, "obtained": true, "wait_minutes": 12, "note": "walk"}
		}),
	}
}

// jsonPaths lists the path of every value in v below the root (an
// object's members, an array's first element only: the others are read
// alike), containers before what they hold.
func jsonPaths(v any, prefix []any) [][]any {
	var out [][]any
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := append(append([]any(nil), prefix...), k)
			out = append(out, p)
			out = append(out, jsonPaths(x[k], p)...)
		}
	case []any:
		if len(x) > 0 {
			p := append(append([]any(nil), prefix...), 0)
			out = append(out, p)
			out = append(out, jsonPaths(x[0], p)...)
		}
	}
	return out
}

// jsonWith is a deep copy of v with the value at path replaced by raw.
func jsonWith(v any, path []any, raw json.RawMessage) any {
	if len(path) == 0 {
		return raw
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		k := path[0].(string)
		out[k] = jsonWith(x[k], path[1:], raw)
		return out
	case []any:
		out := append([]any(nil), x...)
		i := path[0].(int)
		out[i] = jsonWith(x[i], path[1:], raw)
		return out
	}
	return v
}

// walkJSONRoute sends one JSON door each walk value in each value of its
// body, and each whole walk body; it returns how many requests it sent.
func walkJSONRoute(t *testing.T, app *testutil.App, token, key, path string, body map[string]any) int {
	t.Helper()
	n := 0
	method, _, _ := strings.Cut(key, " ")
	send := func(payload, what string) {
		t.Helper()
		n++
		if r := apiCall(t, app, method, path, token, payload); r.StatusCode >= 500 {
			t.Errorf("%s with %s: status %d %s", key, what, r.StatusCode, r.Body)
		}
	}
	// apiCall sends no body for "": send the empty body as whitespace.
	for _, b := range walkJSONBodies {
		if b == "" {
			b = " "
		}
		send(b, fmt.Sprintf("the body %.40q", b))
	}
	var generic any = body
	if b, err := json.Marshal(body); err == nil {
		_ = json.Unmarshal(b, &generic) // numbers as float64 are fine: the valid body's are small
	}
	for _, p := range jsonPaths(generic, nil) {
		for _, v := range walkJSONValues {
			b, err := json.Marshal(jsonWith(generic, p, v))
			if err != nil {
				t.Fatal(err)
			}
			label := string(v)
			if len(label) > 40 {
				label = fmt.Sprintf("%.10s… (%d bytes)", label, len(label))
			}
			send(string(b), fmt.Sprintf("%v = %s", p, label))
		}
	}
	return n
}

// walkWatchBody is a valid watch for the JSON walk.
func walkWatchBody(a *testutil.App) map[string]any {
	return map[string]any{"gpu_model_id": testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID, "gpu_count": 8, "sharing": "dedicated",
		"currency": "CNY", "kind": "price_below", "basis": "hourly", "target": "10", "percent": "5", "cooldown_hours": 24}
}

// walkOwnWatch makes a watch of the token's user and returns its id.
func walkOwnWatch(t *testing.T, a *testutil.App, token string) int64 {
	t.Helper()
	b, err := json.Marshal(walkWatchBody(a))
	if err != nil {
		t.Fatal(err)
	}
	r := apiCall(t, a, http.MethodPost, "/api/v1/watches", token, string(b))
	var w struct{ ID int64 }
	if err := json.Unmarshal([]byte(r.Body), &w); err != nil || w.ID == 0 {
		t.Fatalf("a watch to walk: %d %s", r.StatusCode, r.Body)
	}
	return w.ID
}

// walkWebhookBody is a valid generic endpoint for the JSON walk.
func walkWebhookBody(*testutil.App) map[string]any {
	return map[string]any{"kind": "generic", "url": "https://hooks.example.test/walk", "events": []any{"quote.published"}, "description": "walk",
		"secret": "walk", "enabled": true}
}
