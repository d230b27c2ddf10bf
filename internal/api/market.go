package api

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/apierror"
	"gpuquote/internal/avail"
	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
)

// The data API's market reads (docs/RULES.md §19.3): platforms, GPU
// models, quotes with their versions, the reference prices and exchange
// rates in force on a day, and a platform × GPU model's availability
// records. Every answer goes through apiJSON (ETag, 304); lists are
// apiPage, paged by keyset cursors bound to the filters they were made
// with.

// apiMarketLimit is the largest page of the market lists; apiMarketPage
// the default (docs/RULES.md §19.1).
const (
	apiMarketLimit = 200
	apiMarketPage  = 50
)

// ---- answers ----

// apiPlatform is a platform as the API shows it: no lock version or
// authors.
type apiPlatform struct {
	ID                   int64     `json:"id"`
	NameZH               string    `json:"name_zh"`
	NameEN               string    `json:"name_en"`
	Aliases              []string  `json:"aliases"`
	Website              string    `json:"website"`
	Country              string    `json:"country"`
	Currency             string    `json:"currency"`
	OperatingSince       *int      `json:"operating_since"`
	IDCLicence           *bool     `json:"idc_licence"`
	ISPLicence           *bool     `json:"isp_licence"`
	ISO27001             *bool     `json:"iso27001"`
	MLPS3                *bool     `json:"mlps3"`
	ThirdPartyGuarantee  *bool     `json:"third_party_guarantee"`
	GuaranteeNote        string    `json:"guarantee_note"`
	SupportChannel       string    `json:"support_channel"`
	BillingGranularities []string  `json:"billing_granularities"`
	Notes                string    `json:"notes"`
	UpdatedAt            time.Time `json:"updated_at"`
}

func newAPIPlatform(p market.Platform) apiPlatform {
	return apiPlatform{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Aliases: marketNonNil(p.Aliases), Website: p.Website,
		Country: p.Country, Currency: p.Currency, OperatingSince: p.OperatingSince, IDCLicence: p.IDCLicence,
		ISPLicence: p.ISPLicence, ISO27001: p.ISO27001, MLPS3: p.MLPS3, ThirdPartyGuarantee: p.ThirdPartyGuarantee,
		GuaranteeNote: p.GuaranteeNote, SupportChannel: p.SupportChannel, BillingGranularities: marketNonNil(p.BillingGranularities),
		Notes: p.Notes, UpdatedAt: p.UpdatedAt.UTC()}
}

// apiGPUModel is a GPU model's spec sheet with its labelled figures.
type apiGPUModel struct {
	ID                 int64               `json:"id"`
	Vendor             string              `json:"vendor"`
	Name               string              `json:"name"`
	Aliases            []string            `json:"aliases"`
	VRAMGB             decimal.Decimal     `json:"vram_gb"`
	MemoryBandwidthGBs decimal.NullDecimal `json:"memory_bandwidth_gbs"`
	Interconnect       string              `json:"interconnect"`
	InterconnectGBs    decimal.NullDecimal `json:"interconnect_gbs"`
	TDPW               *int                `json:"tdp_w"`
	BoostClockMHz      *int                `json:"boost_clock_mhz"`
	LoadPowerMinW      *int                `json:"load_power_min_w"`
	LoadPowerMaxW      *int                `json:"load_power_max_w"`
	LoadClockMinMHz    *int                `json:"load_clock_min_mhz"`
	LoadClockMaxMHz    *int                `json:"load_clock_max_mhz"`
	Source             string              `json:"source"`
	AsOf               *string             `json:"as_of"`
	Notes              string              `json:"notes"`
	Perf               []market.GPUPerf    `json:"perf"`
	UpdatedAt          time.Time           `json:"updated_at"`
}

func newAPIGPUModel(g market.GPUModel) apiGPUModel {
	out := apiGPUModel{ID: g.ID, Vendor: g.Vendor, Name: g.Name, Aliases: marketNonNil(g.Aliases), VRAMGB: g.VRAMGB,
		MemoryBandwidthGBs: g.MemoryBandwidthGBs, Interconnect: g.Interconnect, InterconnectGBs: g.InterconnectGBs,
		TDPW: g.TDPW, BoostClockMHz: g.BoostClockMHz, LoadPowerMinW: g.LoadPowerMinW, LoadPowerMaxW: g.LoadPowerMaxW,
		LoadClockMinMHz: g.LoadClockMinMHz, LoadClockMaxMHz: g.LoadClockMaxMHz, Source: g.Source, Notes: g.Notes,
		Perf: marketNonNil(g.Perf), UpdatedAt: g.UpdatedAt.UTC()}
	if g.AsOf != nil {
		d := g.AsOf.Format(time.DateOnly)
		out.AsOf = &d
	}
	return out
}

// apiQuoteSummary is a quote version in a list: what the list page shows
// and screens by, the billing terms and where the sample came from.
type apiQuoteSummary struct {
	ID                 int64               `json:"id"`
	SeriesID           int64               `json:"series_id"`
	Version            int                 `json:"version"`
	State              string              `json:"state"`
	PlatformID         int64               `json:"platform_id"`
	PlatformNameZH     string              `json:"platform_name_zh"`
	PlatformNameEN     string              `json:"platform_name_en"`
	GPUModelID         int64               `json:"gpu_model_id"`
	GPUVendor          string              `json:"gpu_vendor"`
	GPUName            string              `json:"gpu_name"`
	Label              string              `json:"label"`
	Region             string              `json:"region"`
	GPUCount           int                 `json:"gpu_count"`
	VRAMGB             decimal.NullDecimal `json:"vram_gb"`
	Sharing            string              `json:"sharing"`
	Currency           string              `json:"currency"`
	Hourly             decimal.NullDecimal `json:"hourly"`
	Monthly            decimal.NullDecimal `json:"monthly"`
	Yearly             decimal.NullDecimal `json:"yearly"`
	SpotHourly         decimal.NullDecimal `json:"spot_hourly"`
	BillingGranularity string              `json:"billing_granularity"`
	CommitmentMonths   int                 `json:"commitment_months"`
	AsOf               string              `json:"as_of"`
	Source             string              `json:"source"`
	PublishedAt        *time.Time          `json:"published_at"`
	ArchivedAt         *time.Time          `json:"archived_at"`
}

func newAPIQuoteSummary(q quote.Quote) apiQuoteSummary {
	return apiQuoteSummary{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, State: q.State, PlatformID: q.PlatformID,
		PlatformNameZH: q.PlatformNameZH, PlatformNameEN: q.PlatformNameEN, GPUModelID: q.GPUModelID, GPUVendor: q.GPUVendor,
		GPUName: q.GPUName, Label: q.Label, Region: q.Region, GPUCount: q.GPUCount, VRAMGB: q.VRAMGB, Sharing: q.Sharing,
		Currency: q.Currency, Hourly: q.Hourly, Monthly: q.Monthly, Yearly: q.Yearly, SpotHourly: q.SpotHourly,
		BillingGranularity: q.BillingGranularity, CommitmentMonths: q.CommitmentMonths, AsOf: q.AsOf.Format(time.DateOnly),
		Source: q.Source, PublishedAt: marketUTC(q.PublishedAt), ArchivedAt: marketUTC(q.ArchivedAt)}
}

// apiQuoteLine is one of a quote's hidden-cost lines, in the shape a
// report's snapshot keeps it.
type apiQuoteLine = report.QuoteLine

// apiQuote is one quote version with every field and its lines in the
// hidden-cost table's order.
type apiQuote struct {
	apiQuoteSummary
	PredecessorID        *int64              `json:"predecessor_id"`
	CPUCores             *int                `json:"cpu_cores"`
	RAMGB                decimal.NullDecimal `json:"ram_gb"`
	IncludedSystemDiskGB decimal.Decimal     `json:"included_system_disk_gb"`
	IncludedDataDiskGB   decimal.Decimal     `json:"included_data_disk_gb"`
	IncludedMbps         decimal.Decimal     `json:"included_mbps"`
	EarlyTerminationPct  decimal.NullDecimal `json:"early_termination_pct"`
	Deposit              decimal.NullDecimal `json:"deposit"`
	DepositRefundable    *bool               `json:"deposit_refundable"`
	BalanceWithdrawable  *bool               `json:"balance_withdrawable"`
	PricesIncludeTax     bool                `json:"prices_include_tax"`
	TaxRate              decimal.Decimal     `json:"tax_rate"`
	InvoiceType          string              `json:"invoice_type"`
	SLAAvailabilityPct   decimal.NullDecimal `json:"sla_availability_pct"`
	SLACompensation      string              `json:"sla_compensation"`
	Notes                string              `json:"notes"`
	UpdatedAt            time.Time           `json:"updated_at"`
	Lines                []apiQuoteLine      `json:"lines"`
}

// newAPIQuote is the API's view of a whole quote version (with lines).
func newAPIQuote(q quote.Quote) apiQuote {
	out := apiQuote{apiQuoteSummary: newAPIQuoteSummary(q), CPUCores: q.CPUCores, RAMGB: q.RAMGB,
		IncludedSystemDiskGB: q.IncludedSystemDiskGB, IncludedDataDiskGB: q.IncludedDataDiskGB, IncludedMbps: q.IncludedMbps,
		EarlyTerminationPct: q.EarlyTerminationPct, Deposit: q.Deposit, DepositRefundable: q.DepositRefundable,
		BalanceWithdrawable: q.BalanceWithdrawable, PricesIncludeTax: q.PricesIncludeTax, TaxRate: q.TaxRate,
		InvoiceType: q.InvoiceType, SLAAvailabilityPct: q.SLAAvailabilityPct, SLACompensation: q.SLACompensation,
		Notes: q.Notes, UpdatedAt: q.UpdatedAt.UTC(), Lines: []apiQuoteLine{}}
	if q.PredecessorID != 0 {
		out.PredecessorID = &q.PredecessorID
	}
	lines := slices.Clone(q.Lines)
	slices.SortStableFunc(lines, func(a, b quote.Line) int {
		return catalog.ItemIndex(catalog.ItemKey(a.Item)) - catalog.ItemIndex(catalog.ItemKey(b.Item))
	})
	for _, l := range lines {
		out.Lines = append(out.Lines, report.NewQuoteLine(l))
	}
	return out
}

// apiReferencePrice is a reference price sample in force.
type apiReferencePrice struct {
	ID        int64           `json:"id"`
	Item      string          `json:"item"`
	Currency  string          `json:"currency"`
	Unit      string          `json:"unit"`
	UnitPrice decimal.Decimal `json:"unit_price"`
	AsOf      string          `json:"as_of"`
	Source    string          `json:"source"`
}

// newAPIReferencePrice is a stored reference price as the API lists it
// and answers its creation.
func newAPIReferencePrice(r market.ReferencePrice) apiReferencePrice {
	return apiReferencePrice{ID: r.ID, Item: r.Item, Currency: r.Currency, Unit: r.Unit,
		UnitPrice: r.UnitPrice, AsOf: r.AsOf.Format(time.DateOnly), Source: r.Source}
}

// apiFXRate is an exchange-rate sample in force: 1 base = rate quote.
type apiFXRate struct {
	ID            int64           `json:"id"`
	BaseCurrency  string          `json:"base_currency"`
	QuoteCurrency string          `json:"quote_currency"`
	Rate          decimal.Decimal `json:"rate"`
	AsOf          string          `json:"as_of"`
	Source        string          `json:"source"`
}

// newAPIFXRate is a stored exchange rate as the API lists it and answers
// its creation.
func newAPIFXRate(r market.FXRate) apiFXRate {
	return apiFXRate{ID: r.ID, BaseCurrency: r.Base, QuoteCurrency: r.Quote, Rate: r.Rate,
		AsOf: r.AsOf.Format(time.DateOnly), Source: r.Source}
}

// apiAvailabilityRecord is one attempt to get GPUs.
type apiAvailabilityRecord struct {
	ID          int64     `json:"id"`
	PlatformID  int64     `json:"platform_id"`
	GPUModelID  int64     `json:"gpu_model_id"`
	AttemptedAt time.Time `json:"attempted_at"`
	GPUCount    int       `json:"gpu_count"`
	Obtained    bool      `json:"obtained"`
	WaitMinutes int       `json:"wait_minutes"`
	Note        string    `json:"note"`
	QuoteID     *int64    `json:"quote_id"`
	TrialID     *int64    `json:"trial_id"`
	RecordedBy  string    `json:"recorded_by"`
	RecordedAt  time.Time `json:"recorded_at"`
}

// apiAvailabilityStats are one window's statistics, as the compare page
// shows them (avail.Stat).
type apiAvailabilityStats struct {
	Days              int                 `json:"days"`
	From              string              `json:"from"`
	To                string              `json:"to"`
	Attempts          int                 `json:"attempts"`
	Obtained          int                 `json:"obtained"`
	RatePct           decimal.NullDecimal `json:"rate_pct"`
	MedianWaitMinutes decimal.NullDecimal `json:"median_wait_minutes"`
}

// apiAvailabilityPage is a page of a pair's records with the pair's
// statistics on the day asked for.
type apiAvailabilityPage struct {
	PlatformID int64                   `json:"platform_id"`
	GPUModelID int64                   `json:"gpu_model_id"`
	Day        string                  `json:"day"`
	Stats      []apiAvailabilityStats  `json:"stats"`
	Items      []apiAvailabilityRecord `json:"items"`
	NextCursor string                  `json:"next_cursor"`
}

// ---- request helpers ----

// apiMarketFingerprint binds a cursor to its list and filters: the cursor
// carries it, and a cursor presented with other filters is refused
// (docs/RULES.md §19.3).
func apiMarketFingerprint(list string, filters url.Values) string {
	sum := sha256.Sum256([]byte(list + "\x00" + filters.Encode()))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// apiMarketCursor decodes ?cursor= into pos (when given) and checks it was
// made for fingerprint fp; ok is false after answering 400.
func (s *Handlers) apiMarketCursor(c echo.Context, pos any, fp func() string) (given, ok bool) {
	raw := c.QueryParam("cursor")
	if raw == "" {
		return false, true
	}
	if err := s.decodeCursor(raw, pos); err != nil {
		return true, false
	}
	if f, _ := pos.(interface{ fingerprint() string }); f == nil || f.fingerprint() != fp() {
		return true, false
	}
	return true, true
}

// apiMarketFilterError answers 400 naming a bad filter field.
func apiMarketFilterError(c echo.Context, field, msgID string) error {
	return server.APIErrors(c, http.StatusBadRequest, []apierror.Error{{Field: field, Code: msgID, Message: server.Translator(c).T(msgID)}})
}

// apiQueryID reads an optional id filter; ok is false when it is given but
// not a positive whole number.
func apiQueryID(c echo.Context, name string) (id int64, ok bool) {
	raw := strings.TrimSpace(c.QueryParam(name))
	if raw == "" {
		return 0, true
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	return id, err == nil && id > 0
}

var apiCurrencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// apiQueryCurrency reads an optional currency filter, upper-cased; ok is
// false when it is not three letters.
func apiQueryCurrency(c echo.Context, name string) (cur string, ok bool) {
	cur = strings.ToUpper(strings.TrimSpace(c.QueryParam(name)))
	return cur, cur == "" || apiCurrencyRE.MatchString(cur)
}

// apiQueryDay reads ?date= (default today); ok is false when it is not a
// day.
func (s *Handlers) apiQueryDay(c echo.Context) (time.Time, bool) {
	raw := strings.TrimSpace(c.QueryParam("date"))
	if raw == "" {
		return s.Today(), true
	}
	d, err := time.Parse(time.DateOnly, raw)
	return d, err == nil
}

// apiMarketPageOf answers one page of items, with next as the cursor of
// the next one when more follow.
func apiMarketPageOf[T any](c echo.Context, items []T, next string) error {
	if items == nil {
		items = []T{}
	}
	return apiJSON(c, http.StatusOK, apiPage[T]{Items: items, NextCursor: next})
}

// ---- platforms and GPU models ----

// apiIDCursor is a position in a list ordered by name: the last id shown.
type apiIDCursor struct {
	ID int64  `json:"i"`
	FP string `json:"f"`
}

func (p apiIDCursor) fingerprint() string { return p.FP }

// Platforms is GET /api/v1/platforms: the platform list's filters (q,
// qual, has) in its order (docs/RULES.md §19.3).
func (s *Handlers) Platforms(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	f := store.PlatformFilter{Query: strings.TrimSpace(c.QueryParam("q"))}
	if q := c.QueryParam("qual"); q != "" {
		if !slices.Contains(market.PlatformQualifications, q) {
			return apiMarketFilterError(c, "qual", "api.market.error.choice")
		}
		f.Qualification = q
	}
	switch h := c.QueryParam("has"); h {
	case "", "yes", "no", "unknown":
		f.Has = h
	default:
		return apiMarketFilterError(c, "has", "api.market.error.choice")
	}
	filters := url.Values{"q": {f.Query}, "qual": {f.Qualification}, "has": {f.Has}}
	fp := func() string { return apiMarketFingerprint("platforms", filters) }
	var pos apiIDCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok {
		return apiBadCursor(c)
	}
	rows, err := s.Store.PlatformsAfter(c.Request().Context(), f, pos.ID, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPIPlatform,
		func(p market.Platform) string { return s.encodeCursor(apiIDCursor{ID: p.ID, FP: fp()}) }))
}

// Platform is GET /api/v1/platforms/{id}.
func (s *Handlers) Platform(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	p, err := s.Store.PlatformByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIPlatform(p))
}

// GPUs is GET /api/v1/gpus: the GPU list's filters (q, interconnect) in
// its order.
func (s *Handlers) GPUs(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	f := store.GPUModelFilter{Query: strings.TrimSpace(c.QueryParam("q"))}
	if ic := c.QueryParam("interconnect"); ic != "" {
		if !slices.Contains(market.GPUInterconnects, ic) {
			return apiMarketFilterError(c, "interconnect", "api.market.error.choice")
		}
		f.Interconnect = ic
	}
	filters := url.Values{"q": {f.Query}, "interconnect": {f.Interconnect}}
	fp := func() string { return apiMarketFingerprint("gpus", filters) }
	var pos apiIDCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok {
		return apiBadCursor(c)
	}
	rows, err := s.Store.GPUModelsAfter(c.Request().Context(), f, pos.ID, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPIGPUModel,
		func(g market.GPUModel) string { return s.encodeCursor(apiIDCursor{ID: g.ID, FP: fp()}) }))
}

// GPU is GET /api/v1/gpus/{id}.
func (s *Handlers) GPU(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	g, err := s.Store.GPUModelByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIGPUModel(g))
}

// ---- quotes ----

// apiQuoteCursor is a position in the quote list's order (as_of DESC,
// id DESC): the last quote shown.
type apiQuoteCursor struct {
	AsOf string `json:"a"`
	ID   int64  `json:"i"`
	FP   string `json:"f"`
}

func (p apiQuoteCursor) fingerprint() string { return p.FP }

// apiQuoteStates are the values of the quote list's state filter
// (server.QuoteFilter).
var apiQuoteStates = []string{quote.Draft, quote.Published, quote.Archived, "all"}

// Quotes is GET /api/v1/quotes: the quote list page's filters
// (quoteFilter: q, platform, gpu, currency, stale, and state for editors)
// in its order, paged by keyset (docs/RULES.md §19.3).
func (s *Handlers) Quotes(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	for _, k := range []string{"platform", "gpu"} {
		if _, ok := apiQueryID(c, k); !ok {
			return apiMarketFilterError(c, k, "api.market.error.id")
		}
	}
	if _, ok := apiQueryCurrency(c, "currency"); !ok {
		return apiMarketFilterError(c, "currency", "api.market.error.currency")
	}
	// state and stale take the page's values only; anything else is the
	// filter's problem, as every other bad filter is (docs/RULES.md §19.3).
	// A reader who is no editor may name a state: it is ignored, as on
	// the page.
	for _, k := range []string{"state", "stale"} {
		allowed := apiQuoteStates
		if k == "stale" {
			allowed = []string{"0", "1"}
		}
		if v := strings.TrimSpace(c.QueryParam(k)); v != "" && !slices.Contains(allowed, v) {
			return apiMarketFilterError(c, k, "api.market.error.choice")
		}
	}
	f, filters := s.QuoteFilter(c)
	fp := func() string { return apiMarketFingerprint("quotes", filters) }
	var pos apiQuoteCursor
	given, ok := s.apiMarketCursor(c, &pos, fp)
	if !ok {
		return apiBadCursor(c)
	}
	var after store.QuoteKey
	if given {
		d, err := time.Parse(time.DateOnly, pos.AsOf)
		if err != nil || pos.ID <= 0 {
			return apiBadCursor(c)
		}
		after = store.QuoteKey{AsOf: d, ID: pos.ID}
	}
	rows, err := s.Store.QuotesAfter(c.Request().Context(), f, after, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPIQuoteSummary, func(q quote.Quote) string {
		return s.encodeCursor(apiQuoteCursor{AsOf: q.AsOf.Format(time.DateOnly), ID: q.ID, FP: fp()})
	}))
}

// Quote is GET /api/v1/quotes/{id}: one version with its lines, when
// the reader may read it (loadQuote: quote.MayRead), else 404.
func (s *Handlers) Quote(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIQuote(q))
}

// apiVersionCursor is a position in a series' versions: the last version
// number shown.
type apiVersionCursor struct {
	Version int    `json:"v"`
	FP      string `json:"f"`
}

func (p apiVersionCursor) fingerprint() string { return p.FP }

// QuoteVersions is GET /api/v1/quotes/{id}/versions: every version of
// the quote's series the reader may read (quote.MayRead), oldest first.
func (s *Handlers) QuoteVersions(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	fp := func() string {
		return apiMarketFingerprint("versions", url.Values{"series": {strconv.FormatInt(q.SeriesID, 10)}})
	}
	var pos apiVersionCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok {
		return apiBadCursor(c)
	}
	all, err := s.Store.QuoteSeriesVersions(c.Request().Context(), q.SeriesID)
	if err != nil {
		return err
	}
	uid, role := server.Viewer(c)
	items := []apiQuoteSummary{}
	next := ""
	for _, v := range all {
		if v.Version <= pos.Version || !quote.MayRead(v, uid, role) {
			continue
		}
		if len(items) == limit {
			next = s.encodeCursor(apiVersionCursor{Version: items[limit-1].Version, FP: fp()})
			break
		}
		items = append(items, newAPIQuoteSummary(v))
	}
	return apiMarketPageOf(c, items, next)
}

// ---- reference prices and exchange rates ----

// apiOffsetCursor is a position in a short list computed whole (the
// samples in force on a day): how many came before.
type apiOffsetCursor struct {
	N  int    `json:"n"`
	FP string `json:"f"`
}

func (p apiOffsetCursor) fingerprint() string { return p.FP }

// apiInForcePage answers the page of all (already filtered) from ?cursor=,
// bound to list and filters.
func apiInForcePage[T any](s *Handlers, c echo.Context, list string, filters url.Values, all []T) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	fp := func() string { return apiMarketFingerprint(list, filters) }
	var pos apiOffsetCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok || pos.N < 0 {
		return apiBadCursor(c)
	}
	from := min(pos.N, len(all))
	to := min(from+limit, len(all))
	next := ""
	if to < len(all) {
		next = s.encodeCursor(apiOffsetCursor{N: to, FP: fp()})
	}
	return apiMarketPageOf(c, all[from:to], next)
}

// ReferencePrices is GET /api/v1/reference-prices: the reference prices
// in force on ?date= (default today), optionally of one item and one
// currency, in the prices page's order. Every signed-in reader gets them:
// they price the unconfirmed lines of every comparison anyone can see
// (docs/RULES.md §19.3).
func (s *Handlers) ReferencePrices(c echo.Context) error {
	if _, ok := apiLimit(c, apiMarketPage, apiMarketLimit); !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	day, ok := s.apiQueryDay(c)
	if !ok {
		return apiMarketFilterError(c, "date", "api.market.error.date")
	}
	cur, ok := apiQueryCurrency(c, "currency")
	if !ok {
		return apiMarketFilterError(c, "currency", "api.market.error.currency")
	}
	item := strings.TrimSpace(c.QueryParam("item"))
	if _, known := catalog.LookupItem(catalog.ItemKey(item)); item != "" && !known {
		return apiMarketFilterError(c, "item", "api.market.error.item")
	}
	rows, err := s.Store.CurrentReferencePrices(c.Request().Context(), cur, day)
	if err != nil {
		return err
	}
	items := []apiReferencePrice{}
	for _, r := range rows {
		if item != "" && r.Item != item {
			continue
		}
		items = append(items, newAPIReferencePrice(r))
	}
	filters := url.Values{"date": {day.Format(time.DateOnly)}, "currency": {cur}, "item": {item}}
	return apiInForcePage(s, c, "reference-prices", filters, items)
}

// FXRates is GET /api/v1/fx-rates: the exchange rates in force on
// ?date= (default today), optionally of one base and one quote currency,
// by pair. Only stored directions are listed, never a derived inverse.
func (s *Handlers) FXRates(c echo.Context) error {
	if _, ok := apiLimit(c, apiMarketPage, apiMarketLimit); !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	day, ok := s.apiQueryDay(c)
	if !ok {
		return apiMarketFilterError(c, "date", "api.market.error.date")
	}
	base, ok := apiQueryCurrency(c, "base")
	if !ok {
		return apiMarketFilterError(c, "base", "api.market.error.currency")
	}
	quoteCur, ok := apiQueryCurrency(c, "quote")
	if !ok {
		return apiMarketFilterError(c, "quote", "api.market.error.currency")
	}
	rows, err := s.Store.CurrentFXRates(c.Request().Context(), day)
	if err != nil {
		return err
	}
	items := []apiFXRate{}
	for _, r := range rows {
		if (base != "" && r.Base != base) || (quoteCur != "" && r.Quote != quoteCur) {
			continue
		}
		items = append(items, newAPIFXRate(r))
	}
	filters := url.Values{"date": {day.Format(time.DateOnly)}, "base": {base}, "quote": {quoteCur}}
	return apiInForcePage(s, c, "fx-rates", filters, items)
}

// ---- availability ----

// apiAvailabilityCursor is a position in a pair's records (attempted_at
// DESC, id DESC).
type apiAvailabilityCursor struct {
	At string `json:"t"`
	ID int64  `json:"i"`
	FP string `json:"f"`
}

func (p apiAvailabilityCursor) fingerprint() string { return p.FP }

// AvailabilityRecords is GET /api/v1/availability?platform=&gpu=: one
// platform × GPU model's records, latest attempt first, with its
// statistics for the windows ending today (docs/RULES.md §18.2, §19.3).
func (s *Handlers) AvailabilityRecords(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	var pair market.PlatformGPU
	for _, k := range []string{"platform", "gpu"} {
		id, ok := apiQueryID(c, k)
		if !ok || id == 0 {
			return apiMarketFilterError(c, k, "api.market.error.id")
		}
		if k == "platform" {
			pair.PlatformID = id
		} else {
			pair.GPUModelID = id
		}
	}
	if _, _, _, err := s.AvailabilityPair(c, pair); err != nil {
		return err // an unknown platform or GPU model is 404
	}
	filters := url.Values{"platform": {strconv.FormatInt(pair.PlatformID, 10)}, "gpu": {strconv.FormatInt(pair.GPUModelID, 10)}}
	fp := func() string { return apiMarketFingerprint("availability", filters) }
	var pos apiAvailabilityCursor
	given, ok := s.apiMarketCursor(c, &pos, fp)
	if !ok {
		return apiBadCursor(c)
	}
	var after store.AvailabilityKey
	if given {
		at, err := time.Parse(time.RFC3339Nano, pos.At)
		if err != nil || pos.ID <= 0 {
			return apiBadCursor(c)
		}
		after = store.AvailabilityKey{At: at, ID: pos.ID}
	}
	ctx := c.Request().Context()
	rows, err := s.Store.AvailabilityRecordsAfter(ctx, pair, after, limit+1)
	if err != nil {
		return err
	}
	today := s.Today()
	stats, err := s.Store.AvailabilityStats(ctx, []market.PlatformGPU{pair}, today)
	if err != nil {
		return err
	}
	page := apiKeysetPage(rows, limit, newAPIAvailabilityRecord, func(r avail.Record) string {
		return s.encodeCursor(apiAvailabilityCursor{At: r.AttemptedAt.UTC().Format(time.RFC3339Nano), ID: r.ID, FP: fp()})
	})
	out := apiAvailabilityPage{PlatformID: pair.PlatformID, GPUModelID: pair.GPUModelID, Day: today.Format(time.DateOnly),
		Stats: []apiAvailabilityStats{}, Items: page.Items, NextCursor: page.NextCursor}
	for _, st := range stats[pair] {
		from, _ := avail.Window(st.Day, st.Days)
		out.Stats = append(out.Stats, apiAvailabilityStats{Days: st.Days, From: from.Format(time.DateOnly),
			To: st.Day.Format(time.DateOnly), Attempts: st.Attempts, Obtained: st.Obtained, RatePct: st.RatePct(),
			MedianWaitMinutes: st.MedianWait})
	}
	return apiJSON(c, http.StatusOK, out)
}

// newAPIAvailabilityRecord is a stored attempt as the API lists it.
func newAPIAvailabilityRecord(r avail.Record) apiAvailabilityRecord {
	rec := apiAvailabilityRecord{ID: r.ID, PlatformID: r.PlatformID, GPUModelID: r.GPUModelID, AttemptedAt: r.AttemptedAt.UTC(),
		GPUCount: r.GPUCount, Obtained: r.Obtained, WaitMinutes: r.WaitMinutes, Note: r.Note, RecordedBy: r.CreatedByName,
		RecordedAt: r.CreatedAt.UTC()}
	if r.QuoteID != 0 {
		rec.QuoteID = &r.QuoteID
	}
	if r.TrialID != 0 {
		rec.TrialID = &r.TrialID
	}
	return rec
}

// ---- small helpers ----

// marketNonNil is s, or an empty slice for nil, so a list is [] in JSON.
func marketNonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// marketUTC is t in UTC (nil stays nil).
func marketUTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
