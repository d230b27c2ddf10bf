// Package routes is gpuquote's route table: every path, its policy and
// the handler that answers it, from the server's own routes, the pages and
// the data API, seen whole in one place.
package routes

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/api"
	"gpuquote/internal/auth"
	"gpuquote/internal/billfile"
	"gpuquote/internal/jsonbody"
	"gpuquote/internal/pages"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/skycatalog"
	"gpuquote/internal/user"
	"gpuquote/internal/verify"
	"gpuquote/static"
	"gpuquote/web"
)

// New builds the server with this route table.
func New(ctx context.Context, d server.Deps) (*server.Server, error) {
	d.Routes = Table
	return server.New(ctx, d)
}

// apiBodyLimit bounds the body of every JSON door (docs/RULES.md §19.1):
// a quote with its twelve lines, a comparison or a report is a few
// kilobytes. A larger body is 413.
const apiBodyLimit = jsonbody.MaxBytes

// verifyBodyLimit is the trial evidence API's request body limit: the text
// may be verify.MaxInputBytes long, and a form post spends up to three
// bytes on each of its bytes. Longer text is refused by verify.Parse with a
// message, not by the body limit.
const verifyBodyLimit = 3*verify.MaxInputBytes + 64<<10

// importBodyLimit is the upload limit of the import route (the global
// request limit is much smaller).
const importBodyLimit = quote.CSVMaxBytes

// proposalBodyLimit is the upload limit of the proposal routes: the 5 MiB
// file, the form and the multipart framing around them. Their form is read
// as it arrives (proposalUpload), never past this limit; a file over 5 MiB
// is told on the form (docs/RULES.md §18.1).
const proposalBodyLimit = proposal.MaxFileBytes + 1<<20

// proposalUpload reads the proposal form's vendor_file as it arrives,
// keeping at most 5 MiB of it.
var proposalUpload = &server.Upload{File: "vendor_file", MaxFile: proposal.MaxFileBytes}

// catalogBodyLimit is the upload limit of the catalog import: the file
// (skycatalog.MaxBytes) and the form around it; catalogUpload reads the
// file as it arrives, keeping at most that much (docs/RULES.md §7.7).
const catalogBodyLimit = skycatalog.MaxBytes + 1<<20

// billBodyLimit bounds the bill form: a file of billfile.MaxBytes, or the
// same file carried back in base64 with the answers to its unmapped SKUs,
// and the typed rows.
const billBodyLimit = billfile.MaxBytes*2 + 1<<20

var billUpload = &server.Upload{File: "file", MaxFile: billfile.MaxBytes}

var catalogUpload = &server.Upload{File: skycatalog.FieldFile, MaxFile: skycatalog.MaxBytes}

// apiAnyUser admits every signed-in user, by session or by a token
// holding scope (docs/RULES.md §19.2).
func apiAnyUser(scope string) auth.Policy {
	return auth.Policy{AnyUser: true, Token: true, Scope: scope}
}

// apiRole admits users of one of roles (and admins), by session or by a
// token holding scope.
func apiRole(scope string, roles ...auth.Role) auth.Policy {
	return auth.Policy{Roles: roles, Token: true, Scope: scope}
}

// reviewers are the roles that decide on reports (report.ReviewerRoles:
// the rule is stated there once; a policy admits admins anyway).
func reviewers() []auth.Role {
	out := make([]auth.Role, len(report.ReviewerRoles))
	for i, r := range report.ReviewerRoles {
		out[i] = auth.Role(r)
	}
	return out
}

// apiEditor admits editors and admins, by session or by a token holding scope.
func apiEditor(scope string) auth.Policy { return apiRole(scope, auth.RoleEditor) }

// Table is the whole HTTP surface of gpuquote in one table: the server's
// own routes (health, metrics, assets), the pages (package pages) and the
// data API (package api). Every route names its policy; the route policy
// test walks this table, so a route added without one fails.
func Table(s *server.Server) []server.Route {
	p, a := pages.New(s), api.New(s)
	admin := auth.Allow(auth.RoleAdmin)
	editor := auth.Allow(auth.RoleEditor) // and admins
	reviewer := auth.Allow(reviewers()...)
	apiRead := apiAnyUser(user.ScopeRead)
	return []server.Route{
		// Operations.
		{Method: http.MethodGet, Path: "/healthz", Policy: auth.Public, Handler: s.Healthz, Bare: true},
		{Method: http.MethodGet, Path: "/readyz", Policy: auth.Public, Handler: s.Readyz, Bare: true},
		// 404 unless GPUQUOTE_METRICS_TOKEN is set and presented; the metrics
		// listener (GPUQUOTE_METRICS_ADDR) is the usual way in.
		{Method: http.MethodGet, Path: "/metrics", Policy: auth.Public, Handler: s.MetricsOnAppPort(), Bare: true},
		{Method: http.MethodGet, Path: static.Prefix + "*", Policy: auth.Public, Handler: echo.WrapHandler(static.Handler()), Bare: true},
		// The load test's two ceilings (404 unless GPUQUOTE_BENCH_ROUTES is
		// on): they pass through the same middleware as every page.
		{Method: http.MethodGet, Path: "/bench/plaintext", Policy: auth.Public, Handler: s.BenchPlaintext},
		{Method: http.MethodGet, Path: "/bench/fortunes", Policy: auth.Public, Handler: s.BenchFortunes},

		// Atom feeds (docs/RULES.md §24.5): read by a feed reader with the
		// user's feed token, never a session (404 for a token that names
		// no one); bare, so no session or cookie is made for them.
		{Method: http.MethodGet, Path: "/feeds/quotes.atom", Policy: auth.Public, Handler: p.QuotesFeed, Bare: true, Limited: true},
		{Method: http.MethodGet, Path: "/feeds/watch/:token", Policy: auth.Public, Handler: p.WatchFeed, Bare: true, Limited: true},

		// Everyone.
		{Method: http.MethodGet, Path: "/", Policy: auth.Public, Handler: p.Home},
		{Method: http.MethodPost, Path: "/lang", Policy: auth.Public, Handler: p.SetLang},
		{Method: http.MethodGet, Path: "/login", Policy: auth.Public, Handler: p.LoginForm},
		{Method: http.MethodPost, Path: "/login", Policy: auth.Public, Handler: p.Login},
		{Method: http.MethodGet, Path: "/calculator", Policy: auth.Public, Handler: p.CalculatorPage},
		{Method: http.MethodPost, Path: "/calculator", Policy: auth.Public, Handler: p.Calculate, Limited: true},
		{Method: http.MethodPost, Path: "/api/v1/tco/evaluate", Policy: auth.Policy{Public: true, NoCSRF: true}, Handler: a.Evaluate, Limited: true, BodyLimit: apiBodyLimit, Reads: true},
		{Method: http.MethodPost, Path: "/api/v1/tco/rent-vs-buy", Policy: auth.Policy{Public: true, NoCSRF: true}, Handler: a.RentVsBuy, Limited: true, BodyLimit: apiBodyLimit, Reads: true},
		{Method: http.MethodPost, Path: "/api/v1/bills/check", Policy: auth.Policy{Public: true, NoCSRF: true}, Handler: a.BillCheck, Limited: true, BodyLimit: apiBodyLimit, Reads: true},

		// The data API (docs/RULES.md §19, docs/API.md): a token acts as its
		// user within its scopes; a browser session may call it too (writes
		// with the session's CSRF token). Described at /api/v1/openapi.json.
		{Method: http.MethodGet, Path: "/api/v1/openapi.json", Policy: auth.Public, Handler: a.OpenAPI},
		{Method: http.MethodGet, Path: "/api/docs", Policy: auth.Public, Handler: p.APIDocs},
		{Method: http.MethodGet, Path: "/api/v1/platforms", Policy: apiRead, Handler: a.Platforms},
		{Method: http.MethodGet, Path: "/api/v1/platforms/:id", Policy: apiRead, Handler: a.Platform},
		{Method: http.MethodGet, Path: "/api/v1/gpus", Policy: apiRead, Handler: a.GPUs},
		{Method: http.MethodGet, Path: "/api/v1/gpus/:id", Policy: apiRead, Handler: a.GPU},
		{Method: http.MethodGet, Path: "/api/v1/quotes", Policy: apiRead, Handler: a.Quotes},
		{Method: http.MethodGet, Path: "/api/v1/quotes/:id", Policy: apiRead, Handler: a.Quote},
		{Method: http.MethodGet, Path: "/api/v1/quotes/:id/versions", Policy: apiRead, Handler: a.QuoteVersions},
		{Method: http.MethodGet, Path: "/api/v1/reference-prices", Policy: apiRead, Handler: a.ReferencePrices},
		{Method: http.MethodGet, Path: "/api/v1/fx-rates", Policy: apiRead, Handler: a.FXRates},
		{Method: http.MethodGet, Path: "/api/v1/availability", Policy: apiRead, Handler: a.AvailabilityRecords},
		{Method: http.MethodGet, Path: "/api/v1/reports", Policy: apiRead, Handler: a.Reports},
		{Method: http.MethodGet, Path: "/api/v1/reports/:id", Policy: apiRead, Handler: a.Report},
		// The files the pages' links download, for a token (docs/RULES.md §19.5).
		{Method: http.MethodGet, Path: "/api/v1/quotes/export.csv", Policy: apiRead, Handler: a.QuotesExportCSV},
		{Method: http.MethodGet, Path: "/api/v1/reports/:id/export.csv", Policy: apiRead, Handler: a.ReportExportCSV},
		{Method: http.MethodGet, Path: "/api/v1/reports/:id/export.xlsx", Policy: apiRead, Handler: a.ReportExportXLSX},
		// What other operations take by id: own-hardware options and trials.
		{Method: http.MethodGet, Path: "/api/v1/own-hardware", Policy: apiRead, Handler: a.OwnHardware},
		{Method: http.MethodGet, Path: "/api/v1/trials", Policy: apiRead, Handler: a.Trials},
		// A comparison stores nothing: reading is all it takes.
		{Method: http.MethodPost, Path: "/api/v1/compare", Policy: apiRead, Handler: a.Compare, BodyLimit: apiBodyLimit, Reads: true},
		// Reading a vendor's message stores nothing either (docs/RULES.md
		// §22.10); its 20,000 characters fit the JSON doors' bound even as
		// \uXXXX escapes (120 KB).
		{Method: http.MethodPost, Path: "/api/v1/quotes/extract", Policy: apiRead, Handler: a.QuoteExtract, BodyLimit: apiBodyLimit, Reads: true},
		{Method: http.MethodPost, Path: "/api/v1/quotes", Policy: apiEditor(user.ScopeQuotesWrite), Handler: a.QuoteCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/quotes/:id/versions", Policy: apiEditor(user.ScopeQuotesWrite), Handler: a.QuoteNewVersion, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/proposals", Policy: apiAnyUser(user.ScopeQuotesWrite), Handler: a.ProposalCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reference-prices", Policy: apiEditor(user.ScopeQuotesWrite), Handler: a.ReferencePriceCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/fx-rates", Policy: apiEditor(user.ScopeQuotesWrite), Handler: a.FXRateCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports", Policy: apiAnyUser(user.ScopeReportsWrite), Handler: a.ReportCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/submit", Policy: apiAnyUser(user.ScopeReportsWrite), Handler: a.ReportSubmit, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/approve", Policy: apiRole(user.ScopeReportsWrite, reviewers()...), Handler: a.ReportApprove, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/return", Policy: apiRole(user.ScopeReportsWrite, reviewers()...), Handler: a.ReportReturn, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/trials/:id/checks", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: a.TrialCheck, BodyLimit: apiBodyLimit},
		{Method: http.MethodGet, Path: "/api/v1/audit", Policy: apiRole(user.ScopeAdmin, auth.RoleAdmin), Handler: a.Audit},
		// Trial evidence API.
		{Method: http.MethodPost, Path: "/api/v1/verify/nvidia-smi", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: a.VerifyNvidiaSMI, BodyLimit: verifyBodyLimit},
		// Availability records (docs/RULES.md §18.2): any signed-in user
		// records an attempt; nobody changes or withdraws one.
		{Method: http.MethodPost, Path: "/api/v1/availability", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: a.RecordAvailability, BodyLimit: apiBodyLimit},
		// Watching the market (docs/RULES.md §24.9): everyone keeps their
		// own watches and feed token; editors the shared watches (the
		// handlers decide per watch) and the webhook endpoints.
		{Method: http.MethodGet, Path: "/api/v1/watches", Policy: apiRead, Handler: a.Watches},
		{Method: http.MethodGet, Path: "/api/v1/watches/:id", Policy: apiRead, Handler: a.Watch},
		{Method: http.MethodPost, Path: "/api/v1/watches", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.WatchCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPut, Path: "/api/v1/watches/:id", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.WatchUpdate, BodyLimit: apiBodyLimit},
		{Method: http.MethodDelete, Path: "/api/v1/watches/:id", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.WatchDelete},
		{Method: http.MethodPost, Path: "/api/v1/watches/:id/pause", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.WatchPause, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/watches/:id/resume", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.WatchResume, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/feed-token", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.FeedTokenCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodDelete, Path: "/api/v1/feed-token", Policy: apiAnyUser(user.ScopeWatchesWrite), Handler: a.FeedTokenRevoke},
		{Method: http.MethodGet, Path: "/api/v1/webhooks", Policy: apiEditor(user.ScopeRead), Handler: a.Webhooks},
		{Method: http.MethodGet, Path: "/api/v1/webhooks/:id", Policy: apiEditor(user.ScopeRead), Handler: a.Webhook},
		{Method: http.MethodGet, Path: "/api/v1/webhooks/:id/deliveries", Policy: apiEditor(user.ScopeRead), Handler: a.WebhookDeliveries},
		{Method: http.MethodPost, Path: "/api/v1/webhooks", Policy: apiEditor(user.ScopeWatchesWrite), Handler: a.WebhookCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPut, Path: "/api/v1/webhooks/:id", Policy: apiEditor(user.ScopeWatchesWrite), Handler: a.WebhookUpdate, BodyLimit: apiBodyLimit},
		{Method: http.MethodDelete, Path: "/api/v1/webhooks/:id", Policy: apiEditor(user.ScopeWatchesWrite), Handler: a.WebhookDelete},
		{Method: http.MethodPost, Path: "/api/v1/webhooks/:id/deliveries/:delivery/redeliver", Policy: apiEditor(user.ScopeWatchesWrite), Handler: a.WebhookRedeliver, BodyLimit: apiBodyLimit},

		// Signed-in users.
		{Method: http.MethodPost, Path: "/logout", Policy: auth.AnyUser, Handler: p.Logout},
		{Method: http.MethodGet, Path: "/account", Policy: auth.AnyUser, Handler: p.Account},
		{Method: http.MethodPost, Path: "/account/password", Policy: auth.AnyUser, Handler: p.ChangePassword},
		{Method: http.MethodPost, Path: "/account/mail", Policy: auth.AnyUser, Handler: p.SetMailChoice},
		{Method: http.MethodPost, Path: "/account/tokens", Policy: auth.AnyUser, Handler: p.CreateAPIToken},
		{Method: http.MethodPost, Path: "/account/tokens/:id/revoke", Policy: auth.AnyUser, Handler: p.RevokeAPIToken},
		{Method: http.MethodPost, Path: "/account/sessions/:id/end", Policy: auth.AnyUser, Handler: p.EndSession},
		// The feed token (docs/RULES.md §24.6): made anew or revoked by its user.
		{Method: http.MethodPost, Path: "/account/feed-token", Policy: auth.AnyUser, Handler: p.CreateFeedToken},
		{Method: http.MethodPost, Path: "/account/feed-token/revoke", Policy: auth.AnyUser, Handler: p.RevokeFeedToken},
		// Notifications (docs/RULES.md §18.4): each reader their own.
		{Method: http.MethodGet, Path: "/notifications", Policy: auth.AnyUser, Handler: p.NotificationList},
		{Method: http.MethodPost, Path: "/notifications/read-all", Policy: auth.AnyUser, Handler: p.NotificationsReadAll},
		{Method: http.MethodPost, Path: "/notifications/:id/open", Policy: auth.AnyUser, Handler: p.NotificationOpen},
		// Watching the market (docs/RULES.md §24.4): everyone keeps their
		// own watches; the handlers let editors change the shared ones.
		{Method: http.MethodGet, Path: "/watches", Policy: auth.AnyUser, Handler: p.WatchList},
		{Method: http.MethodGet, Path: "/watches/new", Policy: auth.AnyUser, Handler: p.WatchNewForm},
		{Method: http.MethodPost, Path: "/watches", Policy: auth.AnyUser, Handler: p.WatchCreate},
		{Method: http.MethodGet, Path: "/watches/:id/edit", Policy: auth.AnyUser, Handler: p.WatchEditForm},
		{Method: http.MethodPost, Path: "/watches/:id", Policy: auth.AnyUser, Handler: p.WatchUpdate},
		{Method: http.MethodPost, Path: "/watches/:id/pause", Policy: auth.AnyUser, Handler: p.WatchPause},
		{Method: http.MethodPost, Path: "/watches/:id/resume", Policy: auth.AnyUser, Handler: p.WatchResume},
		{Method: http.MethodPost, Path: "/watches/:id/delete", Policy: auth.AnyUser, Handler: p.WatchDelete},

		// Market: platforms and GPU models (everyone signed in reads, editors write).
		{Method: http.MethodGet, Path: "/platforms", Policy: auth.AnyUser, Handler: p.PlatformList},
		{Method: http.MethodGet, Path: "/platforms/new", Policy: editor, Handler: p.PlatformFormPage},
		{Method: http.MethodPost, Path: "/platforms", Policy: editor, Handler: p.PlatformCreate},
		{Method: http.MethodGet, Path: "/platforms/:id", Policy: auth.AnyUser, Handler: p.PlatformShow},
		{Method: http.MethodGet, Path: "/platforms/:id/edit", Policy: editor, Handler: p.PlatformFormPage},
		{Method: http.MethodPost, Path: "/platforms/:id", Policy: editor, Handler: p.PlatformUpdate},
		{Method: http.MethodGet, Path: "/gpus", Policy: auth.AnyUser, Handler: p.GPUList},
		{Method: http.MethodGet, Path: "/gpus/new", Policy: editor, Handler: p.GPUFormPage},
		{Method: http.MethodPost, Path: "/gpus", Policy: editor, Handler: p.GPUCreate},
		{Method: http.MethodGet, Path: "/gpus/:id", Policy: auth.AnyUser, Handler: p.GPUShow},
		{Method: http.MethodGet, Path: "/gpus/:id/edit", Policy: editor, Handler: p.GPUFormPage},
		{Method: http.MethodPost, Path: "/gpus/:id", Policy: editor, Handler: p.GPUUpdate},

		// Market: quotes (everyone signed in reads published ones, editors write).
		{Method: http.MethodGet, Path: "/quotes", Policy: auth.AnyUser, Handler: p.QuoteList},
		// Anyone signed in proposes a quote (docs/RULES.md §18.1): /quotes/new
		// is the editors' draft form or everyone else's proposal form; the
		// handlers decide per proposal (404 unless the author, an editor or
		// an admin may read it).
		{Method: http.MethodGet, Path: "/quotes/new", Policy: auth.AnyUser, Handler: p.QuoteNew},
		{Method: http.MethodPost, Path: "/quotes/proposals", Policy: auth.AnyUser, Handler: p.ProposalCreate, BodyLimit: proposalBodyLimit,
			Upload: proposalUpload},
		{Method: http.MethodGet, Path: "/quotes/proposals", Policy: auth.AnyUser, Handler: p.ProposalMine},
		{Method: http.MethodGet, Path: "/quotes/:id/proposal/edit", Policy: auth.AnyUser, Handler: p.ProposalEditForm},
		{Method: http.MethodPost, Path: "/quotes/:id/proposal", Policy: auth.AnyUser, Handler: p.ProposalUpdate, BodyLimit: proposalBodyLimit,
			Upload: proposalUpload},
		{Method: http.MethodGet, Path: "/quotes/:id/attachments/:att", Policy: auth.AnyUser, Handler: p.QuoteAttachment},
		{Method: http.MethodPost, Path: "/quotes/:id/attachments/:att/withdraw", Policy: editor, Handler: p.AttachmentWithdraw},
		{Method: http.MethodGet, Path: "/quotes/review", Policy: editor, Handler: p.ProposalQueue},
		{Method: http.MethodGet, Path: "/quotes/:id/review", Policy: editor, Handler: p.ProposalReview},
		{Method: http.MethodPost, Path: "/quotes/:id/review/publish", Policy: editor, Handler: p.ProposalPublish},
		{Method: http.MethodPost, Path: "/quotes/:id/review/return", Policy: editor, Handler: p.ProposalReturn},
		{Method: http.MethodPost, Path: "/quotes", Policy: editor, Handler: p.QuoteCreate},
		{Method: http.MethodGet, Path: "/quotes/:id", Policy: auth.AnyUser, Handler: p.QuoteShow},
		{Method: http.MethodGet, Path: "/quotes/:id/edit", Policy: editor, Handler: p.QuoteEditForm},
		{Method: http.MethodPost, Path: "/quotes/:id", Policy: editor, Handler: p.QuoteUpdate},
		{Method: http.MethodPost, Path: "/quotes/:id/publish", Policy: editor, Handler: p.QuotePublish},
		{Method: http.MethodPost, Path: "/quotes/:id/versions", Policy: editor, Handler: p.QuoteNewVersion},
		{Method: http.MethodPost, Path: "/quotes/:id/archive", Policy: editor, Handler: p.QuoteArchive},
		{Method: http.MethodPost, Path: "/quotes/:id/delete", Policy: editor, Handler: p.QuoteDeleteDraft},

		// Market: reference prices and exchange rates (editors).
		{Method: http.MethodGet, Path: "/prices", Policy: editor, Handler: p.PricesPage},
		{Method: http.MethodPost, Path: "/prices/reference", Policy: editor, Handler: p.CreateReferencePrice},
		{Method: http.MethodPost, Path: "/prices/fx", Policy: editor, Handler: p.CreateFXRate},

		// Own hardware (docs/RULES.md §17.4): everyone signed in keeps their
		// own options and reads shared ones; the handlers decide per option
		// (404 when it may not be seen, 403 when it may not be changed).
		// Electricity prices are the editors'.
		{Method: http.MethodGet, Path: "/own-hardware", Policy: auth.AnyUser, Handler: p.OwnList},
		{Method: http.MethodGet, Path: "/own-hardware/new", Policy: auth.AnyUser, Handler: p.OwnNew},
		{Method: http.MethodPost, Path: "/own-hardware", Policy: auth.AnyUser, Handler: p.OwnCreate},
		{Method: http.MethodGet, Path: "/own-hardware/:id", Policy: auth.AnyUser, Handler: p.OwnShow},
		{Method: http.MethodGet, Path: "/own-hardware/:id/edit", Policy: auth.AnyUser, Handler: p.OwnEditForm},
		{Method: http.MethodPost, Path: "/own-hardware/:id", Policy: auth.AnyUser, Handler: p.OwnUpdate},
		{Method: http.MethodPost, Path: "/own-hardware/:id/archive", Policy: auth.AnyUser, Handler: p.OwnArchive},
		{Method: http.MethodGet, Path: "/electricity", Policy: editor, Handler: p.ElectricityPage},
		{Method: http.MethodPost, Path: "/electricity", Policy: editor, Handler: p.CreateElectricityPrice},

		// Market: price history, the editors' dashboard, CSV import and export.
		{Method: http.MethodGet, Path: "/history", Policy: auth.AnyUser, Handler: p.PriceHistory},
		{Method: http.MethodGet, Path: "/dashboard", Policy: editor, Handler: p.Dashboard},
		{Method: http.MethodGet, Path: "/quotes/export.csv", Policy: auth.AnyUser, Handler: p.ExportQuotesCSV},
		{Method: http.MethodGet, Path: "/quotes/import", Policy: editor, Handler: p.ImportForm},
		{Method: http.MethodPost, Path: "/quotes/import", Policy: editor, Handler: p.ImportQuotesCSV, BodyLimit: importBodyLimit},
		// A SkyPilot price catalog imported as drafts, reviewed and
		// published in one step (docs/RULES.md §7.7).
		{Method: http.MethodGet, Path: "/quotes/import/skypilot", Policy: editor, Handler: p.CatalogImportForm},
		{Method: http.MethodPost, Path: "/quotes/import/skypilot", Policy: editor, Handler: p.CatalogImport, BodyLimit: catalogBodyLimit,
			Upload: catalogUpload},
		{Method: http.MethodGet, Path: "/quotes/import/skypilot/:id", Policy: editor, Handler: p.CatalogImportShow},
		{Method: http.MethodPost, Path: "/quotes/import/skypilot/:id/publish", Policy: editor, Handler: p.CatalogImportPublish},

		// Trials and platform terms.
		{Method: http.MethodGet, Path: "/trials", Policy: auth.AnyUser, Handler: p.TrialList},
		{Method: http.MethodGet, Path: "/trials/new", Policy: auth.AnyUser, Handler: p.TrialNew},
		{Method: http.MethodPost, Path: "/trials", Policy: auth.AnyUser, Handler: p.TrialCreate},
		{Method: http.MethodGet, Path: "/trials/:id", Policy: auth.AnyUser, Handler: p.TrialShow},
		{Method: http.MethodPost, Path: "/trials/:id/checks", Policy: auth.AnyUser, Handler: p.TrialRecordCheck},
		// The paste takes what the evidence API takes: text up to
		// verify.MaxInputBytes, refused by verify.Parse with a message.
		{Method: http.MethodPost, Path: "/trials/:id/nvidia-smi", Policy: auth.AnyUser, Handler: p.TrialNvidiaSMI, BodyLimit: verifyBodyLimit},
		{Method: http.MethodPost, Path: "/trials/:id/performance", Policy: auth.AnyUser, Handler: p.TrialPerformance},
		// Writes to a trial are its author's, editors' and admins' (the
		// handlers check, docs/RULES.md §16.3); everyone reads the whole
		// recorded output, which the trial page shows only the start of.
		{Method: http.MethodGet, Path: "/trials/:id/pastes/:paste", Policy: auth.AnyUser, Handler: p.TrialPasteOutput},
		{Method: http.MethodGet, Path: "/trials/:id/results/:result/output", Policy: auth.AnyUser, Handler: p.TrialResultOutput},
		{Method: http.MethodGet, Path: "/platforms/:id/terms/edit", Policy: editor, Handler: p.PlatformTermsEdit},
		{Method: http.MethodPost, Path: "/platforms/:id/terms", Policy: editor, Handler: p.PlatformTermsUpdate},
		// Platform facts (docs/RULES.md §18.3): read on the platform page, added by editors.
		// The FOCUS mappings of a platform's bills (docs/RULES.md §23.9).
		{Method: http.MethodGet, Path: "/platforms/:id/bill-mappings", Policy: editor, Handler: p.BillMappingsPage},
		{Method: http.MethodPost, Path: "/platforms/:id/bill-mappings", Policy: editor, Handler: p.BillMappingSave},
		{Method: http.MethodPost, Path: "/platforms/:id/bill-mappings/delete", Policy: editor, Handler: p.BillMappingDelete},
		{Method: http.MethodGet, Path: "/platforms/:id/facts", Policy: editor, Handler: p.FactFormPage},
		{Method: http.MethodPost, Path: "/platforms/:id/facts", Policy: editor, Handler: p.FactCreate},

		// Availability records of a platform × GPU model (docs/RULES.md §18.2).
		{Method: http.MethodGet, Path: "/availability", Policy: auth.AnyUser, Handler: p.AvailabilityPage},
		{Method: http.MethodPost, Path: "/availability", Policy: auth.AnyUser, Handler: p.AvailabilityCreate},

		// Compare quotes for a usage profile.
		{Method: http.MethodGet, Path: "/compare", Policy: auth.AnyUser, Handler: p.ComparePage},
		{Method: http.MethodGet, Path: "/compare/questions", Policy: auth.AnyUser, Handler: p.QuoteQuestions},
		// The compare page's sections loaded when opened (docs/RULES.md §20.4).
		{Method: http.MethodGet, Path: "/compare/lines", Policy: auth.AnyUser, Handler: p.CompareSection(web.SectionLines)},
		{Method: http.MethodGet, Path: "/compare/facts", Policy: auth.AnyUser, Handler: p.CompareSection(web.SectionFacts)},
		{Method: http.MethodGet, Path: "/compare/availability", Policy: auth.AnyUser, Handler: p.CompareSection(web.SectionAvailability)},
		{Method: http.MethodPost, Path: "/compare/profiles", Policy: auth.AnyUser, Handler: p.SaveProfile},
		{Method: http.MethodPost, Path: "/compare/profiles/:id/delete", Policy: auth.AnyUser, Handler: p.DeleteProfile},

		// Saved TCO reports.
		{Method: http.MethodGet, Path: "/reports", Policy: auth.AnyUser, Handler: p.ReportList},
		{Method: http.MethodGet, Path: "/reports/inbox", Policy: reviewer, Handler: p.ReportInbox},
		{Method: http.MethodGet, Path: "/reports/new", Policy: auth.AnyUser, Handler: p.ReportNewForm},
		{Method: http.MethodPost, Path: "/reports", Policy: auth.AnyUser, Handler: p.ReportCreate},
		{Method: http.MethodGet, Path: "/reports/:id", Policy: auth.AnyUser, Handler: p.ReportShow},
		{Method: http.MethodGet, Path: "/reports/:id/export.csv", Policy: auth.AnyUser, Handler: p.ReportExportCSV},
		{Method: http.MethodGet, Path: "/reports/:id/export.xlsx", Policy: auth.AnyUser, Handler: p.ReportExportXLSX},
		{Method: http.MethodPost, Path: "/reports/:id/submit", Policy: auth.AnyUser, Handler: p.ReportSubmit},
		{Method: http.MethodPost, Path: "/reports/:id/approve", Policy: reviewer, Handler: p.ReportApprove},
		{Method: http.MethodPost, Path: "/reports/:id/return", Policy: reviewer, Handler: p.ReportReturn},
		{Method: http.MethodPost, Path: "/reports/:id/revise", Policy: auth.AnyUser, Handler: p.ReportRevise},
		{Method: http.MethodPost, Path: "/reports/:id/recompute", Policy: auth.AnyUser, Handler: p.ReportRecompute},
		{Method: http.MethodPost, Path: "/reports/:id/retitle", Policy: auth.AnyUser, Handler: p.ReportRetitle},
		{Method: http.MethodPost, Path: "/reports/:id/delete", Policy: auth.AnyUser, Handler: p.ReportDelete},
		// Bills checked against the quote an approved report relied on
		// (docs/RULES.md §23.8): the handlers admit the report's author,
		// finance and admins, as the store does again.
		{Method: http.MethodGet, Path: "/reports/:id/bills/new", Policy: auth.AnyUser, Handler: p.BillNewForm},
		{Method: http.MethodPost, Path: "/reports/:id/bills", Policy: auth.AnyUser, Handler: p.BillCreate, BodyLimit: billBodyLimit,
			Upload: billUpload},
		{Method: http.MethodGet, Path: "/reports/:id/bills/:bill", Policy: auth.AnyUser, Handler: p.BillShow},
		{Method: http.MethodGet, Path: "/reports/:id/bills/:bill/letter", Policy: auth.AnyUser, Handler: p.BillLetter},
		{Method: http.MethodGet, Path: "/reports/:id/bills/:bill/export.csv", Policy: auth.AnyUser, Handler: p.BillExportCSV},
		{Method: http.MethodGet, Path: "/reports/:id/bills/:bill/export.xlsx", Policy: auth.AnyUser, Handler: p.BillExportXLSX},
		{Method: http.MethodGet, Path: "/reports/:id/bills/:bill/focus.csv", Policy: auth.AnyUser, Handler: p.BillExportFOCUS},

		// Administration.
		{Method: http.MethodGet, Path: "/admin/users", Policy: admin, Handler: p.AdminUsers},
		{Method: http.MethodPost, Path: "/admin/users", Policy: admin, Handler: p.AdminCreateUser},
		{Method: http.MethodPost, Path: "/admin/users/:id/role", Policy: admin, Handler: p.AdminSetRole},
		{Method: http.MethodPost, Path: "/admin/users/:id/disable", Policy: admin, Handler: p.AdminDisable},
		{Method: http.MethodPost, Path: "/admin/users/:id/enable", Policy: admin, Handler: p.AdminEnable},
		{Method: http.MethodGet, Path: "/admin/audit", Policy: admin, Handler: p.AdminAudit},
		{Method: http.MethodGet, Path: "/admin/mail", Policy: admin, Handler: p.MailQueuePage},
		// Webhooks and group chat bots (docs/RULES.md §24.7, §24.8): editors and admins.
		{Method: http.MethodGet, Path: "/admin/webhooks", Policy: editor, Handler: p.WebhooksPage},
		{Method: http.MethodPost, Path: "/admin/webhooks", Policy: editor, Handler: p.WebhookCreate},
		{Method: http.MethodGet, Path: "/admin/webhooks/:id", Policy: editor, Handler: p.WebhookShow},
		{Method: http.MethodPost, Path: "/admin/webhooks/:id", Policy: editor, Handler: p.WebhookUpdate},
		{Method: http.MethodPost, Path: "/admin/webhooks/:id/enable", Policy: editor, Handler: p.WebhookEnable},
		{Method: http.MethodPost, Path: "/admin/webhooks/:id/disable", Policy: editor, Handler: p.WebhookDisable},
		{Method: http.MethodPost, Path: "/admin/webhooks/:id/delete", Policy: editor, Handler: p.WebhookDelete},
		{Method: http.MethodPost, Path: "/admin/webhooks/:id/deliveries/:delivery/redeliver", Policy: editor, Handler: p.WebhookRedeliver},
	}
}
