package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/user"
	"gpuquote/static"
	"gpuquote/web"
)

// Route is one entry of the route table: method, path, who may call it and
// the handler. Bare routes (health, metrics, assets) skip sessions and CSRF;
// Limited routes are public work anyone may ask for, rate-limited per
// client address. BodyLimit, when set, replaces the global request body
// limit for this route (file uploads).
type Route struct {
	Method    string
	Path      string
	Policy    auth.Policy
	Handler   echo.HandlerFunc
	Bare      bool
	Limited   bool
	BodyLimit int64
}

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

// apiEditor admits editors and admins, by session or by a token holding scope.
func apiEditor(scope string) auth.Policy { return apiRole(scope, auth.RoleEditor) }

// Routes is the whole HTTP surface of gpuquote in one table. Every route
// names its policy; the route policy test walks this table, so a route
// added without one fails.
func (s *Server) Routes() []Route {
	admin := auth.Allow(auth.RoleAdmin)
	editor := auth.Allow(auth.RoleEditor) // and admins
	apiRead := apiAnyUser(user.ScopeRead)
	return []Route{
		// Operations.
		{Method: http.MethodGet, Path: "/healthz", Policy: auth.Public, Handler: s.healthz, Bare: true},
		{Method: http.MethodGet, Path: "/readyz", Policy: auth.Public, Handler: s.readyz, Bare: true},
		// 404 unless GPUQUOTE_METRICS_TOKEN is set and presented; the metrics
		// listener (GPUQUOTE_METRICS_ADDR) is the usual way in.
		{Method: http.MethodGet, Path: "/metrics", Policy: auth.Public, Handler: s.metricsOnAppPort(), Bare: true},
		{Method: http.MethodGet, Path: static.Prefix + "*", Policy: auth.Public, Handler: echo.WrapHandler(static.Handler()), Bare: true},
		// The load test's two ceilings (404 unless GPUQUOTE_BENCH_ROUTES is
		// on): they pass through the same middleware as every page.
		{Method: http.MethodGet, Path: "/bench/plaintext", Policy: auth.Public, Handler: s.benchPlaintextPage},
		{Method: http.MethodGet, Path: "/bench/fortunes", Policy: auth.Public, Handler: s.benchFortunesPage},

		// Everyone.
		{Method: http.MethodGet, Path: "/", Policy: auth.Public, Handler: s.home},
		{Method: http.MethodPost, Path: "/lang", Policy: auth.Public, Handler: s.setLang},
		{Method: http.MethodGet, Path: "/login", Policy: auth.Public, Handler: s.loginForm},
		{Method: http.MethodPost, Path: "/login", Policy: auth.Public, Handler: s.login},
		{Method: http.MethodGet, Path: "/calculator", Policy: auth.Public, Handler: s.calculatorPage},
		{Method: http.MethodPost, Path: "/calculator", Policy: auth.Public, Handler: s.calculate, Limited: true},
		{Method: http.MethodPost, Path: "/api/v1/tco/evaluate", Policy: auth.Policy{Public: true, NoCSRF: true}, Handler: s.evaluateAPI, Limited: true},
		{Method: http.MethodPost, Path: "/api/v1/tco/rent-vs-buy", Policy: auth.Policy{Public: true, NoCSRF: true}, Handler: s.rentVsBuyAPI, Limited: true},

		// The data API (docs/RULES.md §19, docs/API.md): a token acts as its
		// user within its scopes; a browser session may call it too (writes
		// with the session's CSRF token). Described at /api/v1/openapi.json.
		{Method: http.MethodGet, Path: "/api/v1/openapi.json", Policy: auth.Public, Handler: s.apiOpenAPI},
		{Method: http.MethodGet, Path: "/api/docs", Policy: auth.Public, Handler: s.apiDocsPage},
		{Method: http.MethodGet, Path: "/api/v1/platforms", Policy: apiRead, Handler: s.apiPlatforms},
		{Method: http.MethodGet, Path: "/api/v1/platforms/:id", Policy: apiRead, Handler: s.apiPlatform},
		{Method: http.MethodGet, Path: "/api/v1/gpus", Policy: apiRead, Handler: s.apiGPUs},
		{Method: http.MethodGet, Path: "/api/v1/gpus/:id", Policy: apiRead, Handler: s.apiGPU},
		{Method: http.MethodGet, Path: "/api/v1/quotes", Policy: apiRead, Handler: s.apiQuotes},
		{Method: http.MethodGet, Path: "/api/v1/quotes/:id", Policy: apiRead, Handler: s.apiQuote},
		{Method: http.MethodGet, Path: "/api/v1/quotes/:id/versions", Policy: apiRead, Handler: s.apiQuoteVersions},
		{Method: http.MethodGet, Path: "/api/v1/reference-prices", Policy: apiRead, Handler: s.apiReferencePrices},
		{Method: http.MethodGet, Path: "/api/v1/fx-rates", Policy: apiRead, Handler: s.apiFXRates},
		{Method: http.MethodGet, Path: "/api/v1/availability", Policy: apiRead, Handler: s.apiAvailabilityRecords},
		{Method: http.MethodGet, Path: "/api/v1/reports", Policy: apiRead, Handler: s.apiReports},
		{Method: http.MethodGet, Path: "/api/v1/reports/:id", Policy: apiRead, Handler: s.apiReport},
		// A comparison stores nothing: reading is all it takes.
		{Method: http.MethodPost, Path: "/api/v1/compare", Policy: apiRead, Handler: s.apiCompare, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/quotes", Policy: apiEditor(user.ScopeQuotesWrite), Handler: s.apiQuoteCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/quotes/:id/versions", Policy: apiEditor(user.ScopeQuotesWrite), Handler: s.apiQuoteNewVersion, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/proposals", Policy: apiAnyUser(user.ScopeQuotesWrite), Handler: s.apiProposalCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reference-prices", Policy: apiEditor(user.ScopeQuotesWrite), Handler: s.apiReferencePriceCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/fx-rates", Policy: apiEditor(user.ScopeQuotesWrite), Handler: s.apiFXRateCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports", Policy: apiAnyUser(user.ScopeReportsWrite), Handler: s.apiReportCreate, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/submit", Policy: apiAnyUser(user.ScopeReportsWrite), Handler: s.apiReportSubmit, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/approve", Policy: apiRole(user.ScopeReportsWrite, auth.RoleFinance), Handler: s.apiReportApprove, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/reports/:id/return", Policy: apiRole(user.ScopeReportsWrite, auth.RoleFinance), Handler: s.apiReportReturn, BodyLimit: apiBodyLimit},
		{Method: http.MethodPost, Path: "/api/v1/trials/:id/checks", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: s.apiTrialCheck, BodyLimit: apiBodyLimit},
		{Method: http.MethodGet, Path: "/api/v1/audit", Policy: apiRole(user.ScopeAdmin, auth.RoleAdmin), Handler: s.apiAudit},
		// Trial evidence API.
		{Method: http.MethodPost, Path: "/api/v1/verify/nvidia-smi", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: s.verifyNvidiaSMI, BodyLimit: verifyBodyLimit},
		// Availability records (docs/RULES.md §18.2): any signed-in user
		// records an attempt; nobody changes or withdraws one.
		{Method: http.MethodPost, Path: "/api/v1/availability", Policy: apiAnyUser(user.ScopeTrialsWrite), Handler: s.availabilityAPI, BodyLimit: availBodyLimit},

		// Signed-in users.
		{Method: http.MethodPost, Path: "/logout", Policy: auth.AnyUser, Handler: s.logout},
		{Method: http.MethodGet, Path: "/account", Policy: auth.AnyUser, Handler: s.account},
		{Method: http.MethodPost, Path: "/account/password", Policy: auth.AnyUser, Handler: s.changePassword},
		{Method: http.MethodPost, Path: "/account/tokens", Policy: auth.AnyUser, Handler: s.createAPIToken},
		{Method: http.MethodPost, Path: "/account/tokens/:id/revoke", Policy: auth.AnyUser, Handler: s.revokeAPIToken},
		{Method: http.MethodPost, Path: "/account/sessions/:id/end", Policy: auth.AnyUser, Handler: s.endSession},
		// Notifications (docs/RULES.md §18.4): each reader their own.
		{Method: http.MethodGet, Path: "/notifications", Policy: auth.AnyUser, Handler: s.notificationList},
		{Method: http.MethodPost, Path: "/notifications/read-all", Policy: auth.AnyUser, Handler: s.notificationsReadAll},
		{Method: http.MethodPost, Path: "/notifications/:id/open", Policy: auth.AnyUser, Handler: s.notificationOpen},

		// Market: platforms and GPU models (everyone signed in reads, editors write).
		{Method: http.MethodGet, Path: "/platforms", Policy: auth.AnyUser, Handler: s.platformList},
		{Method: http.MethodGet, Path: "/platforms/new", Policy: editor, Handler: s.platformFormPage},
		{Method: http.MethodPost, Path: "/platforms", Policy: editor, Handler: s.platformCreate},
		{Method: http.MethodGet, Path: "/platforms/:id", Policy: auth.AnyUser, Handler: s.platformShow},
		{Method: http.MethodGet, Path: "/platforms/:id/edit", Policy: editor, Handler: s.platformFormPage},
		{Method: http.MethodPost, Path: "/platforms/:id", Policy: editor, Handler: s.platformUpdate},
		{Method: http.MethodGet, Path: "/gpus", Policy: auth.AnyUser, Handler: s.gpuList},
		{Method: http.MethodGet, Path: "/gpus/new", Policy: editor, Handler: s.gpuFormPage},
		{Method: http.MethodPost, Path: "/gpus", Policy: editor, Handler: s.gpuCreate},
		{Method: http.MethodGet, Path: "/gpus/:id", Policy: auth.AnyUser, Handler: s.gpuShow},
		{Method: http.MethodGet, Path: "/gpus/:id/edit", Policy: editor, Handler: s.gpuFormPage},
		{Method: http.MethodPost, Path: "/gpus/:id", Policy: editor, Handler: s.gpuUpdate},

		// Market: quotes (everyone signed in reads published ones, editors write).
		{Method: http.MethodGet, Path: "/quotes", Policy: auth.AnyUser, Handler: s.quoteList},
		// Anyone signed in proposes a quote (docs/RULES.md §18.1): /quotes/new
		// is the editors' draft form or everyone else's proposal form; the
		// handlers decide per proposal (404 unless the author, an editor or
		// an admin may read it).
		{Method: http.MethodGet, Path: "/quotes/new", Policy: auth.AnyUser, Handler: s.quoteNew},
		{Method: http.MethodPost, Path: "/quotes/proposals", Policy: auth.AnyUser, Handler: s.proposalCreate, BodyLimit: proposalBodyLimit},
		{Method: http.MethodGet, Path: "/quotes/proposals", Policy: auth.AnyUser, Handler: s.proposalMine},
		{Method: http.MethodGet, Path: "/quotes/:id/proposal/edit", Policy: auth.AnyUser, Handler: s.proposalEditForm},
		{Method: http.MethodPost, Path: "/quotes/:id/proposal", Policy: auth.AnyUser, Handler: s.proposalUpdate, BodyLimit: proposalBodyLimit},
		{Method: http.MethodGet, Path: "/quotes/:id/attachments/:att", Policy: auth.AnyUser, Handler: s.quoteAttachment},
		{Method: http.MethodGet, Path: "/quotes/review", Policy: editor, Handler: s.proposalQueue},
		{Method: http.MethodGet, Path: "/quotes/:id/review", Policy: editor, Handler: s.proposalReview},
		{Method: http.MethodPost, Path: "/quotes/:id/review/publish", Policy: editor, Handler: s.proposalPublish},
		{Method: http.MethodPost, Path: "/quotes/:id/review/return", Policy: editor, Handler: s.proposalReturn},
		{Method: http.MethodPost, Path: "/quotes", Policy: editor, Handler: s.quoteCreate},
		{Method: http.MethodGet, Path: "/quotes/:id", Policy: auth.AnyUser, Handler: s.quoteShow},
		{Method: http.MethodGet, Path: "/quotes/:id/edit", Policy: editor, Handler: s.quoteEditForm},
		{Method: http.MethodPost, Path: "/quotes/:id", Policy: editor, Handler: s.quoteUpdate},
		{Method: http.MethodPost, Path: "/quotes/:id/publish", Policy: editor, Handler: s.quotePublish},
		{Method: http.MethodPost, Path: "/quotes/:id/versions", Policy: editor, Handler: s.quoteNewVersion},
		{Method: http.MethodPost, Path: "/quotes/:id/archive", Policy: editor, Handler: s.quoteArchive},
		{Method: http.MethodPost, Path: "/quotes/:id/delete", Policy: editor, Handler: s.quoteDeleteDraft},

		// Market: reference prices and exchange rates (editors).
		{Method: http.MethodGet, Path: "/prices", Policy: editor, Handler: s.pricesPage},
		{Method: http.MethodPost, Path: "/prices/reference", Policy: editor, Handler: s.createReferencePrice},
		{Method: http.MethodPost, Path: "/prices/fx", Policy: editor, Handler: s.createFXRate},

		// Own hardware (docs/RULES.md §17.4): everyone signed in keeps their
		// own options and reads shared ones; the handlers decide per option
		// (404 when it may not be seen, 403 when it may not be changed).
		// Electricity prices are the editors'.
		{Method: http.MethodGet, Path: "/own-hardware", Policy: auth.AnyUser, Handler: s.ownList},
		{Method: http.MethodGet, Path: "/own-hardware/new", Policy: auth.AnyUser, Handler: s.ownNew},
		{Method: http.MethodPost, Path: "/own-hardware", Policy: auth.AnyUser, Handler: s.ownCreate},
		{Method: http.MethodGet, Path: "/own-hardware/:id", Policy: auth.AnyUser, Handler: s.ownShow},
		{Method: http.MethodGet, Path: "/own-hardware/:id/edit", Policy: auth.AnyUser, Handler: s.ownEditForm},
		{Method: http.MethodPost, Path: "/own-hardware/:id", Policy: auth.AnyUser, Handler: s.ownUpdate},
		{Method: http.MethodPost, Path: "/own-hardware/:id/archive", Policy: auth.AnyUser, Handler: s.ownArchive},
		{Method: http.MethodGet, Path: "/electricity", Policy: editor, Handler: s.electricityPage},
		{Method: http.MethodPost, Path: "/electricity", Policy: editor, Handler: s.createElectricityPrice},

		// Market: price history, the editors' dashboard, CSV import and export.
		{Method: http.MethodGet, Path: "/history", Policy: auth.AnyUser, Handler: s.priceHistory},
		{Method: http.MethodGet, Path: "/dashboard", Policy: editor, Handler: s.dashboard},
		{Method: http.MethodGet, Path: "/quotes/export.csv", Policy: auth.AnyUser, Handler: s.exportQuotesCSV},
		{Method: http.MethodGet, Path: "/quotes/import", Policy: editor, Handler: s.importForm},
		{Method: http.MethodPost, Path: "/quotes/import", Policy: editor, Handler: s.importQuotesCSV, BodyLimit: importBodyLimit},

		// Trials and platform terms.
		{Method: http.MethodGet, Path: "/trials", Policy: auth.AnyUser, Handler: s.trialList},
		{Method: http.MethodGet, Path: "/trials/new", Policy: auth.AnyUser, Handler: s.trialNew},
		{Method: http.MethodPost, Path: "/trials", Policy: auth.AnyUser, Handler: s.trialCreate},
		{Method: http.MethodGet, Path: "/trials/:id", Policy: auth.AnyUser, Handler: s.trialShow},
		{Method: http.MethodPost, Path: "/trials/:id/checks", Policy: auth.AnyUser, Handler: s.trialRecordCheck},
		// The paste takes what the evidence API takes: text up to
		// verify.MaxInputBytes, refused by verify.Parse with a message.
		{Method: http.MethodPost, Path: "/trials/:id/nvidia-smi", Policy: auth.AnyUser, Handler: s.trialNvidiaSMI, BodyLimit: verifyBodyLimit},
		{Method: http.MethodPost, Path: "/trials/:id/performance", Policy: auth.AnyUser, Handler: s.trialPerformance},
		// Writes to a trial are its author's, editors' and admins' (the
		// handlers check, docs/RULES.md §16.3); everyone reads the whole
		// recorded output, which the trial page shows only the start of.
		{Method: http.MethodGet, Path: "/trials/:id/pastes/:paste", Policy: auth.AnyUser, Handler: s.trialPasteOutput},
		{Method: http.MethodGet, Path: "/trials/:id/results/:result/output", Policy: auth.AnyUser, Handler: s.trialResultOutput},
		{Method: http.MethodGet, Path: "/platforms/:id/terms/edit", Policy: editor, Handler: s.platformTermsEdit},
		{Method: http.MethodPost, Path: "/platforms/:id/terms", Policy: editor, Handler: s.platformTermsUpdate},
		// Platform facts (docs/RULES.md §18.3): read on the platform page, added by editors.
		{Method: http.MethodGet, Path: "/platforms/:id/facts", Policy: editor, Handler: s.factFormPage},
		{Method: http.MethodPost, Path: "/platforms/:id/facts", Policy: editor, Handler: s.factCreate},

		// Availability records of a platform × GPU model (docs/RULES.md §18.2).
		{Method: http.MethodGet, Path: "/availability", Policy: auth.AnyUser, Handler: s.availabilityPage},
		{Method: http.MethodPost, Path: "/availability", Policy: auth.AnyUser, Handler: s.availabilityCreate},

		// Compare quotes for a usage profile.
		{Method: http.MethodGet, Path: "/compare", Policy: auth.AnyUser, Handler: s.comparePage},
		{Method: http.MethodGet, Path: "/compare/questions", Policy: auth.AnyUser, Handler: s.quoteQuestions},
		// The compare page's sections loaded when opened (docs/RULES.md §20.4).
		{Method: http.MethodGet, Path: "/compare/lines", Policy: auth.AnyUser, Handler: s.compareSection(web.SectionLines)},
		{Method: http.MethodGet, Path: "/compare/facts", Policy: auth.AnyUser, Handler: s.compareSection(web.SectionFacts)},
		{Method: http.MethodGet, Path: "/compare/availability", Policy: auth.AnyUser, Handler: s.compareSection(web.SectionAvailability)},
		{Method: http.MethodPost, Path: "/compare/profiles", Policy: auth.AnyUser, Handler: s.saveProfile},
		{Method: http.MethodPost, Path: "/compare/profiles/:id/delete", Policy: auth.AnyUser, Handler: s.deleteProfile},

		// Saved TCO reports.
		{Method: http.MethodGet, Path: "/reports", Policy: auth.AnyUser, Handler: s.reportList},
		{Method: http.MethodGet, Path: "/reports/inbox", Policy: auth.Allow(auth.RoleFinance), Handler: s.reportInbox},
		{Method: http.MethodGet, Path: "/reports/new", Policy: auth.AnyUser, Handler: s.reportNewForm},
		{Method: http.MethodPost, Path: "/reports", Policy: auth.AnyUser, Handler: s.reportCreate},
		{Method: http.MethodGet, Path: "/reports/:id", Policy: auth.AnyUser, Handler: s.reportShow},
		{Method: http.MethodGet, Path: "/reports/:id/export.csv", Policy: auth.AnyUser, Handler: s.reportExportCSV},
		{Method: http.MethodGet, Path: "/reports/:id/export.xlsx", Policy: auth.AnyUser, Handler: s.reportExportXLSX},
		{Method: http.MethodPost, Path: "/reports/:id/submit", Policy: auth.AnyUser, Handler: s.reportSubmit},
		{Method: http.MethodPost, Path: "/reports/:id/approve", Policy: auth.Allow(auth.RoleFinance), Handler: s.reportApprove},
		{Method: http.MethodPost, Path: "/reports/:id/return", Policy: auth.Allow(auth.RoleFinance), Handler: s.reportReturn},
		{Method: http.MethodPost, Path: "/reports/:id/revise", Policy: auth.AnyUser, Handler: s.reportRevise},
		{Method: http.MethodPost, Path: "/reports/:id/recompute", Policy: auth.AnyUser, Handler: s.reportRecompute},
		{Method: http.MethodPost, Path: "/reports/:id/retitle", Policy: auth.AnyUser, Handler: s.reportRetitle},
		{Method: http.MethodPost, Path: "/reports/:id/delete", Policy: auth.AnyUser, Handler: s.reportDelete},

		// Administration.
		{Method: http.MethodGet, Path: "/admin/users", Policy: admin, Handler: s.adminUsers},
		{Method: http.MethodPost, Path: "/admin/users", Policy: admin, Handler: s.adminCreateUser},
		{Method: http.MethodPost, Path: "/admin/users/:id/role", Policy: admin, Handler: s.adminSetRole},
		{Method: http.MethodPost, Path: "/admin/users/:id/disable", Policy: admin, Handler: s.adminDisable},
		{Method: http.MethodPost, Path: "/admin/users/:id/enable", Policy: admin, Handler: s.adminEnable},
		{Method: http.MethodGet, Path: "/admin/audit", Policy: admin, Handler: s.adminAudit},
		{Method: http.MethodGet, Path: "/admin/mail", Policy: admin, Handler: s.mailQueuePage},
		{Method: http.MethodGet, Path: "/debug/pprof/*", Policy: admin, Handler: s.pprof},
	}
}
