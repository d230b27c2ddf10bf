package api

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/own"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/web"
)

// The lists of what other operations take by id (docs/RULES.md §19.5):
// own-hardware options (the comparison's own_hardware takes their version
// ids) and trials (their checks are recorded by trial id).

// apiOwnOption is an own-hardware option as the API lists it: the option
// and its current version, whose id a comparison names.
type apiOwnOption struct {
	ID            int64           `json:"id"`
	VersionID     int64           `json:"version_id"`
	Version       int             `json:"version"`
	Name          string          `json:"name"`
	GPUModelID    int64           `json:"gpu_model_id"`
	GPUName       string          `json:"gpu_name"`
	GPUCount      int             `json:"gpu_count"`
	Currency      string          `json:"currency"`
	PurchasePrice decimal.Decimal `json:"purchase_price"`
	LifeMonths    int             `json:"life_months"`
	Shared        bool            `json:"shared"`
	Archived      bool            `json:"archived"`
	Author        apiPerson       `json:"author"`
	ChangedAt     time.Time       `json:"changed_at"`
	URL           string          `json:"url"`
}

func newAPIOwnOption(o own.Option) apiOwnOption {
	v := o.Current
	return apiOwnOption{ID: o.ID, VersionID: v.ID, Version: v.Version, Name: v.Name, GPUModelID: v.GPUModelID, GPUName: v.GPU(),
		GPUCount: v.GPUCount, Currency: v.Currency, PurchasePrice: v.PurchasePrice, LifeMonths: v.LifeMonths, Shared: o.Shared,
		Archived: o.Archived(), Author: apiPerson{ID: o.CreatedBy, Name: o.CreatedByName}, ChangedAt: v.CreatedAt.UTC(),
		URL: "/own-hardware/" + strconv.FormatInt(o.ID, 10)}
}

// apiQueryBool reads an optional true/false filter; ok is false for
// anything else.
func apiQueryBool(c echo.Context, name string) (v, ok bool) {
	switch c.QueryParam(name) {
	case "", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
}

// OwnHardware is GET /api/v1/own-hardware: the own-hardware options the
// caller may read (docs/RULES.md §17.4), as the own-hardware list filters
// them (scope mine or shared, gpu, archived), newest option first, a
// keyset page at a time.
func (s *Handlers) OwnHardware(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	uid, role := server.Viewer(c)
	f := store.OwnOptionFilter{ViewerID: uid, ViewerRole: role, Scope: c.QueryParam("scope")}
	if f.Scope != store.OwnScopeAll && f.Scope != store.OwnScopeMine && f.Scope != store.OwnScopeShared {
		return apiMarketFilterError(c, "scope", "api.market.error.choice")
	}
	gpu, ok := apiQueryID(c, "gpu")
	if !ok {
		return apiMarketFilterError(c, "gpu", "api.market.error.id")
	}
	f.GPUModelID = gpu
	if f.Archived, ok = apiQueryBool(c, "archived"); !ok {
		return apiMarketFilterError(c, "archived", "api.market.error.choice")
	}
	filters := url.Values{"scope": {f.Scope}, "gpu": {strconv.FormatInt(gpu, 10)}, "archived": {strconv.FormatBool(f.Archived)}}
	fp := func() string { return apiMarketFingerprint("own-hardware", filters) }
	var pos apiIDCursor
	if _, ok := s.apiMarketCursor(c, &pos, fp); !ok || pos.ID < 0 {
		return apiBadCursor(c)
	}
	rows, err := s.Store.OwnOptionsBefore(c.Request().Context(), f, pos.ID, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPIOwnOption,
		func(o own.Option) string { return s.encodeCursor(apiIDCursor{ID: o.ID, FP: fp()}) }))
}

// apiTrial is a trial as the API lists it.
type apiTrial struct {
	ID             int64     `json:"id"`
	QuoteID        int64     `json:"quote_id"`
	PlatformID     int64     `json:"platform_id"`
	PlatformNameZH string    `json:"platform_name_zh"`
	PlatformNameEN string    `json:"platform_name_en"`
	GPUModelID     int64     `json:"gpu_model_id"`
	GPUName        string    `json:"gpu_name"`
	StartedOn      string    `json:"started_on"`
	Verdict        string    `json:"verdict"`
	ChecksDecided  int       `json:"checks_decided"`
	Author         apiPerson `json:"author"`
	CreatedAt      time.Time `json:"created_at"`
	URL            string    `json:"url"`
}

func newAPITrial(t trial.Trial) apiTrial {
	return apiTrial{ID: t.ID, QuoteID: t.QuoteID, PlatformID: t.PlatformID, PlatformNameZH: t.PlatformNameZH,
		PlatformNameEN: t.PlatformNameEN, GPUModelID: t.GPUModelID, GPUName: t.GPUVendor + " " + t.GPUName,
		StartedOn: t.StartedOn.Format(time.DateOnly), Verdict: string(t.Verdict), ChecksDecided: t.Done,
		Author: apiPerson{ID: t.CreatedBy, Name: t.CreatedByName}, CreatedAt: t.CreatedAt.UTC(), URL: web.TrialURL(t.ID)}
}

// apiTrialCursor is a position in the trial list's order (started_on
// DESC, id DESC): the last trial shown.
type apiTrialCursor struct {
	StartedOn string `json:"d"`
	ID        int64  `json:"i"`
	FP        string `json:"f"`
}

func (p apiTrialCursor) fingerprint() string { return p.FP }

// Trials is GET /api/v1/trials: every trial (everyone signed in reads
// them, docs/RULES.md §16.3), with the trial list's filters (platform,
// gpu, quote, verdict), newest start first, a keyset page at a time.
func (s *Handlers) Trials(c echo.Context) error {
	limit, ok := apiLimit(c, apiMarketPage, apiMarketLimit)
	if !ok {
		return apiBadLimit(c, apiMarketLimit)
	}
	var f store.TrialFilter
	filters := url.Values{}
	for _, id := range []struct {
		name string
		dst  *int64
	}{{"platform", &f.PlatformID}, {"gpu", &f.GPUModelID}, {"quote", &f.QuoteID}} {
		v, ok := apiQueryID(c, id.name)
		if !ok {
			return apiMarketFilterError(c, id.name, "api.market.error.id")
		}
		*id.dst = v
		filters.Set(id.name, strconv.FormatInt(v, 10))
	}
	if v := c.QueryParam("verdict"); v != "" {
		if !trial.Verdict(v).Valid() {
			return apiMarketFilterError(c, "verdict", "api.market.error.choice")
		}
		f.Verdict = trial.Verdict(v)
	}
	filters.Set("verdict", string(f.Verdict))
	fp := func() string { return apiMarketFingerprint("trials", filters) }
	var pos apiTrialCursor
	given, ok := s.apiMarketCursor(c, &pos, fp)
	if !ok {
		return apiBadCursor(c)
	}
	var after store.TrialKey
	if given {
		d, err := time.Parse(time.DateOnly, pos.StartedOn)
		if err != nil || pos.ID <= 0 {
			return apiBadCursor(c)
		}
		after = store.TrialKey{StartedOn: d, ID: pos.ID}
	}
	rows, err := s.Store.TrialsAfter(c.Request().Context(), f, after, limit+1)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, apiKeysetPage(rows, limit, newAPITrial, func(t trial.Trial) string {
		return s.encodeCursor(apiTrialCursor{StartedOn: t.StartedOn.Format(time.DateOnly), ID: t.ID, FP: fp()})
	}))
}
