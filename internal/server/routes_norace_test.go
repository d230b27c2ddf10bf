//go:build !race

// The route policy table checks answers, not races: close to a thousand
// requests one after another, each as a new user, which -race slows
// several times over, so make test runs it in its pass without -race
// (scripts/test.sh), with the route walk.

package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// want lists the expected status per caller, in the order of who.
type want [5]int

// routeCase is how to call one route of the table and what each caller gets.
type routeCase struct {
	path   string                           // concrete path (":id" filled in by target)
	form   func(a *testutil.App) url.Values // POST body (nil: empty form)
	target bool                             // path contains :id of a fresh user
	// setup, when set, prepares what the call needs and returns its path.
	setup func(a *testutil.App) string
	want  want
}

// TestRoutePolicies walks every route of the route table × {anonymous,
// analyst, finance, editor, admin} and asserts the status each gets. A route
// added to the table without a case here fails the test, and so does a
// route without a policy.
func TestRoutePolicies(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	n := 0
	uniq := func() string { n++; return fmt.Sprint(n) }

	cases := map[string]routeCase{
		"GET /healthz":  {want: want{200, 200, 200, 200, 200}},
		"GET /readyz":   {want: want{200, 200, 200, 200, 200}},
		"GET /metrics":  {want: want{404, 404, 404, 404, 404}}, // docs/RULES.md §16.6
		"GET /static/*": {path: "/static/css/app.css", want: want{200, 200, 200, 200, 200}},

		// The load test's ceilings are off unless configured.
		"GET /bench/plaintext": {want: want{404, 404, 404, 404, 404}},
		"GET /bench/fortunes":  {want: want{404, 404, 404, 404, 404}},

		"GET /":           {want: want{200, 200, 200, 200, 200}},
		"POST /lang":      {form: func(*testutil.App) url.Values { return url.Values{"lang": {"en"}} }, want: want{303, 303, 303, 303, 303}},
		"GET /login":      {want: want{200, 303, 303, 303, 303}},
		"GET /calculator": {want: want{200, 200, 200, 200, 200}},
		"POST /calculator": {form: func(*testutil.App) url.Values {
			return url.Values{"quote.currency": {"EUR"}, "quote.gpu_count": {"1"}, "quote.hourly": {"0.471"},
				"quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
				"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}}
		}, want: want{200, 200, 200, 200, 200}},
		"POST /api/v1/tco/evaluate":    {want: want{422, 422, 422, 422, 422}},
		"POST /api/v1/tco/rent-vs-buy": {want: want{422, 422, 422, 422, 422}},
		"POST /api/v1/bills/check":     {want: want{422, 422, 422, 422, 422}},
		"POST /api/v1/verify/nvidia-smi": {setup: func(a *testutil.App) string {
			return "/api/v1/verify/nvidia-smi?gpu_model=" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		}, form: func(*testutil.App) url.Values {
			return url.Values{"text": {"name, memory.total [MiB]\nNVIDIA Test GPU, 24564 MiB\n"}}
		}, want: want{401, 200, 200, 200, 200}},
		// Availability records (docs/RULES.md §18.2): a form body is no JSON object.
		"POST /api/v1/availability": {want: want{401, 422, 422, 422, 422}},

		// The data API (docs/RULES.md §19) by session; tokens and scopes
		// are TestAPIScopeMatrix's. A form body is no JSON object (422);
		// an id that matches nothing is 404.
		"GET /api/v1/openapi.json": {want: want{200, 200, 200, 200, 200}},
		"GET /api/docs":            {want: want{200, 200, 200, 200, 200}},
		"GET /api/v1/platforms":    {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/platforms/:id": {setup: func(a *testutil.App) string {
			return "/api/v1/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)
		},
			want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/gpus": {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/gpus/:id": {setup: func(a *testutil.App) string {
			return "/api/v1/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		},
			want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/quotes": {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/quotes/:id": {setup: func(a *testutil.App) string { return "/api/v1/quotes/" + itoa(publishedQuote(a)) },
			want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/quotes/:id/versions": {setup: func(a *testutil.App) string {
			return "/api/v1/quotes/" + itoa(publishedQuote(a)) + "/versions"
		}, want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/reference-prices": {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/fx-rates":         {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/availability": {setup: func(a *testutil.App) string {
			return "/api/v1" + availabilityPath(a)
		}, want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/reports":                 {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/reports/:id":             {path: "/api/v1/reports/999999", want: want{401, 404, 404, 404, 404}},
		"GET /api/v1/reports/:id/export.csv":  {path: "/api/v1/reports/999999/export.csv", want: want{401, 404, 404, 404, 404}},
		"GET /api/v1/reports/:id/export.xlsx": {path: "/api/v1/reports/999999/export.xlsx", want: want{401, 404, 404, 404, 404}},
		"GET /api/v1/quotes/export.csv":       {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/own-hardware":            {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/trials":                  {want: want{401, 200, 200, 200, 200}},
		"POST /api/v1/compare":                {want: want{401, 422, 422, 422, 422}},
		"POST /api/v1/quotes/extract":         {want: want{401, 422, 422, 422, 422}},
		"POST /api/v1/quotes":                 {want: want{401, 403, 403, 422, 422}},
		"POST /api/v1/quotes/:id/versions":    {path: "/api/v1/quotes/999999/versions", want: want{401, 403, 403, 404, 404}},
		"POST /api/v1/proposals":              {want: want{401, 422, 422, 422, 422}},
		"POST /api/v1/reference-prices":       {want: want{401, 403, 403, 422, 422}},
		"POST /api/v1/fx-rates":               {want: want{401, 403, 403, 422, 422}},
		"POST /api/v1/reports":                {want: want{401, 422, 422, 422, 422}},
		"POST /api/v1/reports/:id/submit":     {path: "/api/v1/reports/999999/submit", want: want{401, 404, 404, 404, 404}},
		"POST /api/v1/reports/:id/approve":    {path: "/api/v1/reports/999999/approve", want: want{401, 403, 404, 403, 404}},
		"POST /api/v1/reports/:id/return":     {path: "/api/v1/reports/999999/return", want: want{401, 403, 404, 403, 404}},
		"POST /api/v1/trials/:id/checks":      {path: "/api/v1/trials/999999/checks", want: want{401, 404, 404, 404, 404}},
		"GET /api/v1/audit":                   {want: want{401, 403, 403, 403, 200}},
		"GET /availability":                   {setup: availabilityPath, want: want{303, 200, 200, 200, 200}},
		"POST /availability":                  {form: availabilityForm, want: want{401, 303, 303, 303, 303}},
		// Reaching the handler: the password is asked for again and this one is wrong.
		"POST /account/tokens": {form: func(*testutil.App) url.Values {
			return url.Values{"name": {"route test"}, "password": {"not my password"}}
		}, want: want{401, 422, 422, 422, 422}},
		"POST /account/sessions/:id/end": {path: "/account/sessions/00000000-0000-4000-8000-000000000000/end",
			want: want{401, 404, 404, 404, 404}},
		"POST /account/tokens/:id/revoke": {setup: func(a *testutil.App) string {
			return "/account/tokens/" + itoa(someonesAPIToken(a)) + "/revoke"
		}, want: want{401, 404, 404, 404, 404}},
		"POST /login": {form: func(*testutil.App) url.Values {
			return url.Values{"email": {"nobody" + uniq() + "@example.test"}, "password": {"wrong password"}}
		}, want: want{401, 401, 401, 401, 401}},
		"POST /logout": {want: want{401, 303, 303, 303, 303}},
		"GET /account": {want: want{303, 200, 200, 200, 200}},
		"POST /account/password": {form: func(*testutil.App) url.Values {
			return url.Values{"current": {"not my password"}, "new": {"a new long password"}, "confirm": {"a new long password"}}
		}, want: want{401, 422, 422, 422, 422}},
		"POST /account/mail": {form: func(*testutil.App) url.Values { return url.Values{"mail_choice": {"daily"}} },
			want: want{401, 303, 303, 303, 303}},
		// Feed tokens (docs/RULES.md §24.6): each user makes their own;
		// revoking one they do not hold is 404.
		"POST /account/feed-token":        {want: want{401, 201, 201, 201, 201}},
		"POST /account/feed-token/revoke": {want: want{401, 404, 404, 404, 404}},
		// The feeds (docs/RULES.md §24.5) are read with a feed token, never
		// a session: without one they are not found, whoever asks.
		"GET /feeds/quotes.atom":  {want: want{404, 404, 404, 404, 404}},
		"GET /feeds/watch/:token": {path: "/feeds/watch/gqf_0000000000000000000000000000000000000000000.atom", want: want{404, 404, 404, 404, 404}},
		// Market: platforms and GPU models.
		"GET /platforms":     {want: want{303, 200, 200, 200, 200}},
		"GET /platforms/new": {want: want{303, 403, 403, 200, 200}},
		"POST /platforms":    {form: specPlatformForm, want: want{401, 403, 403, 303, 303}},
		"GET /platforms/:id": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)
		},
			want: want{303, 200, 200, 200, 200}},
		"GET /platforms/:id/edit": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/edit"
		},
			want: want{303, 403, 403, 200, 200}},
		"POST /platforms/:id": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)
		},
			form: func(a *testutil.App) url.Values { v := specPlatformForm(a); v.Set("lock_version", "1"); return v },
			want: want{401, 403, 403, 303, 303}},
		"GET /gpus":     {want: want{303, 200, 200, 200, 200}},
		"GET /gpus/new": {want: want{303, 403, 403, 200, 200}},
		"POST /gpus":    {form: specGPUForm, want: want{401, 403, 403, 303, 303}},
		"GET /gpus/:id": {setup: func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		},
			want: want{303, 200, 200, 200, 200}},
		"GET /gpus/:id/edit": {setup: func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID) + "/edit"
		},
			want: want{303, 403, 403, 200, 200}},
		"POST /gpus/:id": {setup: func(a *testutil.App) string {
			return "/gpus/" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
		},
			form: func(a *testutil.App) url.Values { v := specGPUForm(a); v.Set("lock_version", "1"); return v },
			want: want{401, 403, 403, 303, 303}},

		// Market: quotes.
		"GET /quotes":     {want: want{303, 200, 200, 200, 200}},
		"GET /quotes/new": {want: want{303, 200, 200, 200, 200}}, // a proposal form, or the editors' draft form
		// Proposals (docs/RULES.md §18.1): a proposal is its author's, the
		// editors' and the admins'; a stranger's id is a 404.
		"POST /quotes/proposals":        {form: proposalForm, want: want{401, 303, 303, 303, 303}},
		"GET /quotes/proposals":         {want: want{303, 200, 200, 200, 200}},
		"GET /quotes/:id/proposal/edit": {setup: proposalPath("/proposal/edit"), want: want{303, 404, 404, 404, 404}},
		"POST /quotes/:id/proposal": {setup: proposalPath("/proposal"), form: proposalForm,
			want: want{401, 404, 404, 404, 404}},
		"GET /quotes/:id/attachments/:att": {setup: proposalAttachmentPath, want: want{303, 404, 404, 200, 200}},
		"GET /quotes/review":               {want: want{303, 403, 403, 200, 200}},
		"GET /quotes/:id/review":           {setup: proposalPath("/review"), want: want{303, 403, 403, 200, 200}},
		"POST /quotes/:id/review/publish": {setup: proposalPath("/review/publish"),
			form: func(a *testutil.App) url.Values { v := quoteForm(a); v.Set("lock_version", "1"); return v },
			want: want{401, 403, 403, 303, 303}},
		"POST /quotes/:id/review/return": {setup: proposalPath("/review/return"),
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}, "comment": {"why"}} },
			want: want{401, 403, 403, 303, 303}},
		// Withdrawing a file is the editors' and admins' (it answers with a
		// word on the quote page, here that the proposal is not returned).
		"POST /quotes/:id/attachments/:att/withdraw": {setup: func(a *testutil.App) string { return proposalAttachmentPath(a) + "/withdraw" },
			want: want{401, 403, 403, 303, 303}},
		"POST /quotes":    {form: quoteForm, want: want{401, 403, 403, 303, 303}},
		"GET /quotes/:id": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) }, want: want{303, 200, 200, 200, 200}},
		"GET /quotes/:id/edit": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) + "/edit" },
			want: want{303, 403, 403, 200, 200}},
		"POST /quotes/:id": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) },
			form: func(a *testutil.App) url.Values { v := quoteForm(a); v.Set("lock_version", "1"); return v },
			want: want{401, 403, 403, 303, 303}},
		"POST /quotes/:id/publish": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) + "/publish" },
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}} }, want: want{401, 403, 403, 303, 303}},
		"POST /quotes/:id/versions": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) + "/versions" },
			want: want{401, 403, 403, 303, 303}},
		"POST /quotes/:id/archive": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(publishedQuote(a)) + "/archive" },
			want: want{401, 403, 403, 303, 303}},
		"POST /quotes/:id/delete": {setup: func(a *testutil.App) string { return "/quotes/" + itoa(draftQuote(a).ID) + "/delete" },
			form: func(*testutil.App) url.Values { return url.Values{"lock_version": {"1"}} }, want: want{401, 403, 403, 303, 303}},

		// Market: reference prices and exchange rates.
		"GET /prices": {want: want{303, 403, 403, 200, 200}},
		"POST /prices/reference": {form: func(*testutil.App) url.Values {
			uniq() // a new past day per call, so every valid post is a new sample
			asOf := fmt.Sprintf("2000-%02d-%02d", 1+n/28%12, 1+n%28)
			return url.Values{"item": {"egress"}, "currency": {"CNY"}, "unit": {"per_gb"}, "unit_price": {"0.8"},
				"as_of": {asOf}, "source": {"route test"}}
		}, want: want{401, 403, 403, 303, 303}},
		"POST /prices/fx": {form: func(*testutil.App) url.Values {
			uniq()
			asOf := fmt.Sprintf("2000-%02d-%02d", 1+n/28%12, 1+n%28)
			return url.Values{"base": {"EUR"}, "quote": {"CNY"}, "rate": {"7.8"}, "as_of": {asOf}, "source": {"route test"}}
		}, want: want{401, 403, 403, 303, 303}},

		// Own hardware (docs/RULES.md §17.4): someone else's private option is
		// hidden from analysts (404), read-only for finance (403 on writes).
		"GET /own-hardware":     {want: want{303, 200, 200, 200, 200}},
		"GET /own-hardware/new": {want: want{303, 200, 200, 200, 200}},
		"POST /own-hardware":    {form: ownForm, want: want{401, 303, 303, 303, 303}},
		"GET /own-hardware/:id": {setup: func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) },
			want: want{303, 404, 200, 200, 200}},
		"GET /own-hardware/:id/edit": {setup: func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) + "/edit" },
			want: want{303, 404, 403, 200, 200}},
		"POST /own-hardware/:id": {setup: func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) },
			form: func(a *testutil.App) url.Values { v := ownForm(a); v.Set("based_on", "1"); return v },
			want: want{401, 404, 403, 303, 303}},
		"POST /own-hardware/:id/archive": {setup: func(a *testutil.App) string { return "/own-hardware/" + itoa(someonesOwnOption(a)) + "/archive" },
			want: want{401, 404, 403, 303, 303}},
		"GET /electricity":  {want: want{303, 403, 403, 200, 200}},
		"POST /electricity": {form: func(*testutil.App) url.Values { uniq(); return electricityForm(n) }, want: want{401, 403, 403, 303, 303}},

		// Market: price history, dashboard, import and export.
		"GET /history": {setup: func(a *testutil.App) string {
			publishedQuote(a)
			pid, gid := marketRefs(a)
			return "/history?platform=" + itoa(pid) + "&gpu=" + itoa(gid)
		}, want: want{303, 200, 200, 200, 200}},
		"GET /dashboard":         {want: want{303, 403, 403, 200, 200}},
		"GET /quotes/export.csv": {want: want{303, 200, 200, 200, 200}},
		"GET /quotes/import":     {want: want{303, 403, 403, 200, 200}},
		"POST /quotes/import":    {want: want{401, 403, 403, 422, 422}}, // no file: the form comes back
		// The SkyPilot catalog import (docs/RULES.md §7.7): no file, the
		// form comes back; nothing ticked, the import's page.
		"GET /quotes/import/skypilot":  {want: want{303, 403, 403, 200, 200}},
		"POST /quotes/import/skypilot": {want: want{401, 403, 403, 422, 422}},
		"GET /quotes/import/skypilot/:id": {setup: func(a *testutil.App) string {
			return "/quotes/import/skypilot/" + itoa(someCatalogImport(a.T, a))
		}, want: want{303, 403, 403, 200, 200}},
		"POST /quotes/import/skypilot/:id/publish": {setup: func(a *testutil.App) string {
			return "/quotes/import/skypilot/" + itoa(someCatalogImport(a.T, a)) + "/publish"
		}, want: want{401, 403, 403, 303, 303}},

		// Compare.
		"GET /compare": {want: want{303, 200, 200, 200, 200}},
		// Trials and platform terms.
		"GET /trials": {want: want{303, 200, 200, 200, 200}},
		"GET /trials/new": {setup: func(a *testutil.App) string { return "/trials/new?quote=" + itoa(publishedQuote(a)) },
			want: want{303, 200, 200, 200, 200}},
		"POST /trials": {form: func(a *testutil.App) url.Values {
			return url.Values{"quote": {itoa(publishedQuote(a))}, "started_on": {"2020-01-01"}}
		}, want: want{401, 303, 303, 303, 303}},
		"GET /trials/:id": {setup: func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) }, want: want{303, 200, 200, 200, 200}},
		"POST /trials/:id/checks": {setup: func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/checks" },
			form: func(*testutil.App) url.Values { return url.Values{"check": {"1"}, "state": {"pass"}} }, want: want{401, 403, 403, 303, 303}},
		"POST /trials/:id/nvidia-smi": {setup: func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/nvidia-smi" },
			form: func(*testutil.App) url.Values { return url.Values{"output": {throttledRTX3090}} }, want: want{401, 403, 403, 303, 303}},
		"POST /trials/:id/performance": {setup: func(a *testutil.App) string { return "/trials/" + itoa(routeTrial(a)) + "/performance" },
			form: func(*testutil.App) url.Values {
				return url.Values{"precision": {"fp32"}, "measured": {"80"}, "benchmark": {"sgemm"}}
			}, want: want{401, 403, 403, 303, 303}},
		// Someone else's trial (docs/RULES.md §16.3): everyone reads it.
		"GET /trials/:id/pastes/:paste": {setup: func(a *testutil.App) string {
			id, paste, _ := routeTrialOutputs(a)
			return "/trials/" + itoa(id) + "/pastes/" + itoa(paste)
		},
			want: want{303, 200, 200, 200, 200}},
		"GET /trials/:id/results/:result/output": {setup: func(a *testutil.App) string {
			id, _, result := routeTrialOutputs(a)
			return "/trials/" + itoa(id) + "/results/" + itoa(result) + "/output"
		}, want: want{303, 200, 200, 200, 200}},
		"GET /platforms/:id/terms/edit": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/terms/edit"
		},
			want: want{303, 403, 403, 200, 200}},
		"POST /platforms/:id/terms": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/terms"
		},
			form: func(*testutil.App) url.Values {
				return termsForm(map[string]string{"sla.data_loss.answer": "route test", "sla.data_loss.in_writing": "true"})
			}, want: want{401, 403, 403, 303, 303}},
		"GET /platforms/:id/bill-mappings": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings"
		}, want: want{303, 403, 403, 200, 200}},
		"POST /platforms/:id/bill-mappings": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings"
		}, form: func(*testutil.App) url.Values {
			return url.Values{"kind": {"sku"}, "key": {"gpu.h100.hour"}, "item": {"compute_hourly"}}
		}, want: want{401, 403, 403, 303, 303}},
		"POST /platforms/:id/bill-mappings/delete": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/bill-mappings/delete"
		}, form: func(*testutil.App) url.Values { return url.Values{"kind": {"sku"}, "key": {"none"}} },
			want: want{401, 403, 403, 404, 404}},
		"GET /platforms/:id/facts": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/facts"
		},
			want: want{303, 403, 403, 200, 200}},
		"POST /platforms/:id/facts": {setup: func(a *testutil.App) string {
			return "/platforms/" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "/facts"
		},
			form: func(*testutil.App) url.Values {
				return url.Values{"kind": {"backups"}, "value": {"yes"}, "source": {"route test"}, "as_of": {"2026-01-01"}}
			}, want: want{401, 403, 403, 303, 303}},

		"GET /compare/questions": {setup: func(a *testutil.App) string {
			return "/compare/questions?profile.hours_per_month=200&profile.months=1&profile.instances=1&quote=" + itoa(publishedQuote(a))
		}, want: want{303, 200, 200, 200, 200}},
		// The compare page's sections (docs/RULES.md §20.4): a comparison,
		// and the empty state of none.
		"GET /compare/lines": {setup: func(a *testutil.App) string {
			return "/compare/lines?profile.hours_per_month=200&profile.months=1&profile.instances=1&q=" + itoa(publishedQuote(a))
		}, want: want{303, 200, 200, 200, 200}},
		"GET /compare/facts": {setup: func(a *testutil.App) string {
			return "/compare/facts?profile.hours_per_month=200&profile.months=1&profile.instances=1&q=" + itoa(publishedQuote(a))
		}, want: want{303, 200, 200, 200, 200}},
		"GET /compare/availability": {want: want{303, 200, 200, 200, 200}},
		"POST /compare/profiles": {form: func(*testutil.App) url.Values {
			return url.Values{"name": {"Steady"}, "profile.hours_per_month": {"600"}, "profile.months": {"12"}, "profile.instances": {"1"}}
		}, want: want{401, 303, 303, 303, 303}},
		"POST /compare/profiles/:id/delete": {setup: func(a *testutil.App) string {
			return "/compare/profiles/" + itoa(someonesProfile(a)) + "/delete"
		}, want: want{401, 403, 403, 403, 303}},

		// Saved TCO reports: the steps on one report are someone else's
		// (drafts are their author's alone: others get 404, admins 403).
		"GET /reports":       {want: want{303, 200, 200, 200, 200}},
		"GET /reports/inbox": {want: want{303, 403, 200, 403, 200}},
		"GET /reports/new": {setup: func(a *testutil.App) string {
			return "/reports/new?" + reportForm("", "200", publishedQuote(a)).Encode()
		}, want: want{303, 200, 200, 200, 200}},
		"POST /reports": {form: func(a *testutil.App) url.Values { return reportForm("Route test", "200", publishedQuote(a)) },
			want: want{401, 303, 303, 303, 303}},
		"GET /reports/:id": {setup: func(a *testutil.App) string { return "/reports/" + itoa(someonesReport(a, "submitted")) },
			want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/export.csv": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/export.csv"
		}, want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/export.xlsx": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/export.xlsx"
		}, want: want{303, 200, 200, 200, 200}},
		"POST /reports/:id/submit": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "draft")) + "/submit"
		}, want: want{401, 404, 404, 404, 403}},
		"POST /reports/:id/approve": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/approve"
		}, want: want{401, 403, 303, 403, 303}},
		"POST /reports/:id/return": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/return"
		}, form: func(*testutil.App) url.Values { return url.Values{"comment": {"Use twelve months"}} },
			want: want{401, 403, 303, 403, 303}},
		"POST /reports/:id/revise": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "returned")) + "/revise"
		}, form: func(*testutil.App) url.Values { return url.Values{"title": {"Revised"}, "data": {"same"}} },
			want: want{401, 403, 403, 403, 403}},
		"POST /reports/:id/recompute": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "submitted")) + "/recompute"
		}, want: want{401, 303, 303, 303, 303}},
		"POST /reports/:id/retitle": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "draft")) + "/retitle"
		}, form: func(*testutil.App) url.Values { return url.Values{"title": {"Renamed"}} },
			want: want{401, 404, 404, 404, 403}},
		"POST /reports/:id/delete": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "draft")) + "/delete"
		}, want: want{401, 404, 404, 404, 403}},
		// Bills on someone's approved report: finance and admins check
		// them (its author too, not among the callers), everyone reads.
		"GET /reports/:id/bills/new": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "approved")) + "/bills/new"
		}, want: want{303, 403, 200, 403, 200}},
		"POST /reports/:id/bills": {setup: func(a *testutil.App) string {
			return "/reports/" + itoa(someonesReport(a, "approved")) + "/bills"
		}, want: want{401, 403, 422, 403, 422}},
		"GET /reports/:id/bills/:bill":             {setup: func(a *testutil.App) string { return someonesBill(a) }, want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/bills/:bill/letter":      {setup: func(a *testutil.App) string { return someonesBill(a) + "/letter" }, want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/bills/:bill/export.csv":  {setup: func(a *testutil.App) string { return someonesBill(a) + "/export.csv" }, want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/bills/:bill/export.xlsx": {setup: func(a *testutil.App) string { return someonesBill(a) + "/export.xlsx" }, want: want{303, 200, 200, 200, 200}},
		"GET /reports/:id/bills/:bill/focus.csv":   {setup: func(a *testutil.App) string { return someonesBill(a) + "/focus.csv" }, want: want{303, 200, 200, 200, 200}},

		"GET /admin/users": {want: want{303, 403, 403, 403, 200}},
		"POST /admin/users": {form: func(*testutil.App) url.Values {
			return url.Values{"email": {"new" + uniq() + "@example.test"}, "display_name": {"New"}, "role": {"analyst"}}
		}, want: want{401, 403, 403, 403, 201}},
		"POST /admin/users/:id/role": {target: true, form: func(*testutil.App) url.Values {
			return url.Values{"role": {"finance"}}
		}, want: want{401, 403, 403, 403, 303}},
		"POST /admin/users/:id/disable": {target: true, want: want{401, 403, 403, 403, 303}},
		"POST /admin/users/:id/enable":  {target: true, want: want{401, 403, 403, 403, 303}},
		"GET /admin/audit":              {want: want{303, 403, 403, 403, 200}},
		"GET /admin/mail":               {want: want{303, 403, 403, 403, 200}},
		"GET /admin/webhooks":           {want: want{303, 403, 403, 200, 200}},
		"POST /admin/webhooks": {form: func(*testutil.App) url.Values { return webhookForm() },
			want: want{401, 403, 403, 303, 303}},
		"GET /admin/webhooks/:id": {setup: func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) },
			want: want{303, 403, 403, 200, 200}},
		"POST /admin/webhooks/:id": {setup: func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) },
			form: func(*testutil.App) url.Values { return webhookForm() }, want: want{401, 403, 403, 303, 303}},
		"POST /admin/webhooks/:id/enable": {setup: func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/enable" },
			want: want{401, 403, 403, 303, 303}},
		"POST /admin/webhooks/:id/disable": {setup: func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/disable" },
			want: want{401, 403, 403, 303, 303}},
		"POST /admin/webhooks/:id/delete": {setup: func(a *testutil.App) string { return web.WebhookPath(routeWebhook(a)) + "/delete" },
			want: want{401, 403, 403, 303, 303}},
		"POST /admin/webhooks/:id/deliveries/:delivery/redeliver": {setup: routeDelivery, want: want{401, 403, 403, 303, 303}},
		// Each reader their own notifications (docs/RULES.md §18.4): a
		// user's id is no notification of the caller's.
		"GET /notifications":           {want: want{303, 200, 200, 200, 200}},
		"POST /notifications/read-all": {want: want{401, 303, 303, 303, 303}},
		"POST /notifications/:id/open": {target: true, want: want{401, 404, 404, 404, 404}},
		// Watches (docs/RULES.md §24.4): everyone keeps their own; an
		// empty form is refused on the form, another's watch is 404.
		"GET /watches":             {want: want{303, 200, 200, 200, 200}},
		"GET /watches/new":         {want: want{303, 200, 200, 200, 200}},
		"POST /watches":            {want: want{401, 422, 422, 422, 422}},
		"GET /watches/:id/edit":    {setup: func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/edit" }, want: want{303, 404, 404, 404, 404}},
		"POST /watches/:id":        {setup: func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) }, want: want{401, 404, 404, 404, 404}},
		"POST /watches/:id/pause":  {setup: func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/pause" }, want: want{401, 404, 404, 404, 404}},
		"POST /watches/:id/resume": {setup: func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/resume" }, want: want{401, 404, 404, 404, 404}},
		"POST /watches/:id/delete": {setup: func(a *testutil.App) string { return "/watches/" + itoa(someonesWatch(a)) + "/delete" }, want: want{401, 404, 404, 404, 404}},
		// Watches, the feed token and webhook endpoints through the data
		// API (docs/RULES.md §24.9): another's watch is 404; the endpoints
		// are the editors'.
		"GET /api/v1/watches":                 {want: want{401, 200, 200, 200, 200}},
		"GET /api/v1/watches/:id":             {setup: func(a *testutil.App) string { return "/api/v1/watches/" + itoa(someonesWatch(a)) }, want: want{401, 404, 404, 404, 404}},
		"POST /api/v1/watches":                {want: want{401, 422, 422, 422, 422}},
		"PUT /api/v1/watches/:id":             {setup: func(a *testutil.App) string { return "/api/v1/watches/" + itoa(someonesWatch(a)) }, want: want{401, 404, 404, 404, 404}},
		"DELETE /api/v1/watches/:id":          {setup: func(a *testutil.App) string { return "/api/v1/watches/" + itoa(someonesWatch(a)) }, want: want{401, 404, 404, 404, 404}},
		"POST /api/v1/watches/:id/pause":      {setup: func(a *testutil.App) string { return "/api/v1/watches/" + itoa(someonesWatch(a)) + "/pause" }, want: want{401, 404, 404, 404, 404}},
		"POST /api/v1/watches/:id/resume":     {setup: func(a *testutil.App) string { return "/api/v1/watches/" + itoa(someonesWatch(a)) + "/resume" }, want: want{401, 404, 404, 404, 404}},
		"POST /api/v1/feed-token":             {want: want{401, 201, 201, 201, 201}},
		"DELETE /api/v1/feed-token":           {want: want{401, 404, 404, 404, 404}},
		"GET /api/v1/webhooks":                {want: want{401, 403, 403, 200, 200}},
		"GET /api/v1/webhooks/:id":            {setup: func(a *testutil.App) string { return "/api/v1/webhooks/" + itoa(routeWebhook(a)) }, want: want{401, 403, 403, 200, 200}},
		"GET /api/v1/webhooks/:id/deliveries": {setup: func(a *testutil.App) string { return "/api/v1/webhooks/" + itoa(routeWebhook(a)) + "/deliveries" }, want: want{401, 403, 403, 200, 200}},
		"POST /api/v1/webhooks":               {want: want{401, 403, 403, 422, 422}},
		"PUT /api/v1/webhooks/:id":            {setup: func(a *testutil.App) string { return "/api/v1/webhooks/" + itoa(routeWebhook(a)) }, want: want{401, 403, 403, 422, 422}},
		"DELETE /api/v1/webhooks/:id":         {setup: func(a *testutil.App) string { return "/api/v1/webhooks/" + itoa(routeWebhook(a)) }, want: want{401, 403, 403, 204, 204}},
		"POST /api/v1/webhooks/:id/deliveries/:delivery/redeliver": {setup: func(a *testutil.App) string { return "/api/v1" + strings.TrimPrefix(routeDelivery(a), "/admin") },
			want: want{401, 403, 403, 200, 200}},
	}

	seen := map[string]bool{}
	for _, r := range app.Server.Routes() {
		key := r.Method + " " + r.Path
		seen[key] = true
		if !r.Policy.Defined() {
			t.Errorf("%s has no policy", key)
		}
		c, ok := cases[key]
		if !ok {
			t.Errorf("%s is in the route table but not in this test: add its expected statuses", key)
			continue
		}
		for i, role := range who {
			t.Run(strings.ReplaceAll(key, "/", "_")+"/"+role, func(t *testing.T) {
				client := app.Client()
				if role != "anonymous" {
					client, _ = app.AsUser(auth.Role(role))
				}
				path := c.path
				if path == "" {
					path = r.Path
				}
				if c.target {
					_, _, id := app.CreateUser(auth.RoleAnalyst)
					path = strings.Replace(path, ":id", fmt.Sprint(id), 1)
				}
				if c.setup != nil {
					path = c.setup(app)
				}
				var resp *testutil.Response
				switch r.Method {
				case http.MethodGet:
					resp = client.Get(path)
				case http.MethodPost:
					form := url.Values{}
					if c.form != nil {
						form = c.form(app)
					}
					resp = client.PostForm(path, form)
				case http.MethodPut, http.MethodDelete:
					// The data API's other methods: a form body (no JSON
					// object) with the session's CSRF token in its header.
					if client.CSRF == "" {
						client.Get("/login")
					}
					req, err := http.NewRequest(r.Method, app.URL+path, strings.NewReader(""))
					if err != nil {
						t.Fatal(err)
					}
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set("X-CSRF-Token", client.CSRF)
					resp = client.Do(req)
				default:
					t.Fatalf("no way to call method %s", r.Method)
				}
				if resp.StatusCode != c.want[i] {
					t.Errorf("%s %s as %s: status %d, want %d", r.Method, path, role, resp.StatusCode, c.want[i])
				}
			})
		}
	}
	for key := range cases {
		if !seen[key] {
			t.Errorf("test case %s names no route in the table", key)
		}
	}
}
