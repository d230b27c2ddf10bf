package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/gzsplice"
	"gpuquote/internal/i18n"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tcoapi"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// maxCandidates is how many candidates the list shows; filters narrow it.
const maxCandidates = 50

// compareValues is the page's state from the query (compare.PageState),
// with the saved profile it names, if any.
// maxFreshDays is the longest freshness filter the compare page applies.
const maxFreshDays = 36500

func (s *Handlers) compareValues(c echo.Context) (url.Values, string, error) {
	q := c.QueryParams()
	var saved map[string]string
	if raw := q.Get("profile_id"); raw != "" && q.Get("preset") == "" {
		id, _ := strconv.ParseInt(raw, 10, 64)
		p, err := s.Store.UsageProfileByID(c.Request().Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, "", echo.ErrNotFound
		} else if err != nil {
			return nil, "", err
		}
		saved = p.Params
	}
	values, preset := compare.PageState(q, saved)
	return values, preset, nil
}

// pricedState is a comparison priced from a page state as the compare
// page shows it; the page and its sections (docs/RULES.md §20.4) price it
// alike.
type pricedState struct {
	cmp *compare.Comparison
	// asked reads the page state as a form: it holds the report currency's
	// problem, if any (then nothing is shown priced).
	asked *form.Reader
	// currency is the report currency asked for when it is one ("" else).
	currency string
}

// pricingOnly is the store as a compare.Reader that reads what pricing
// needs and no more: it hides the facts and availability readers, which
// only the facts and availability sections show (docs/RULES.md §20.4).
type pricingOnly struct{ compare.Reader }

// priceComparison prices the comparison of the page state values on
// today for the request's reader, through the kept comparisons (docs/RULES.md §20.1):
// the report currency asked for, else the one the reader last asked for
// (§8.2), and the own-hardware options the reader may read (§8.6). extra
// reads run beside the comparison's own. The platforms' facts and the
// availability of the quotes are read only withFacts (their sections).
func (s *Handlers) priceComparison(c echo.Context, values url.Values, today time.Time, withFacts bool, extra ...func(context.Context) error) (pricedState, error) {
	p := pricedState{asked: form.Values(values)}
	var remembered string
	if cur := p.asked.Currency("report_currency", false); cur != "" && p.asked.OK() {
		p.currency = cur
	} else if ck, err := c.Cookie(reportCurrencyCookie); err == nil {
		remembered = ck.Value
	}
	uid, role := server.Viewer(c)
	var r compare.Reader = pricingOnly{s.Store}
	if withFacts {
		r = s.Store
	}
	cmp, err := s.Priced.LoadFor(c.Request().Context(), r, values, today, compare.Viewer{UserID: uid, Role: role}, remembered, extra...)
	p.cmp = cmp
	return p, err
}

// shows says whether the comparison's figures are shown: a report currency
// asked for that is none shows the problem instead.
func (p pricedState) shows() bool { return p.asked.OK() }

func (s *Handlers) ComparePage(c echo.Context) error {
	values, preset, err := s.compareValues(c)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	today := s.Today()

	// Candidates: published quotes the filters find, each screened against
	// the profile (greyed with the reason, never dropped).
	f := store.QuoteFilter{Limit: maxCandidates, NoCount: true, Currency: strings.ToUpper(strings.TrimSpace(values.Get("currency")))}
	f.GPUModelID, _ = strconv.ParseInt(values.Get("gpu"), 10, 64)
	if sh := values.Get("sharing"); catalog.Sharing(sh).Valid() {
		f.Sharing = sh
	}
	// A freshness beyond a century filters nothing; left unbounded, the
	// day it names would lie outside what PostgreSQL's dates hold.
	if days, err := strconv.Atoi(values.Get("fresh")); err == nil && days > 0 && days <= maxFreshDays {
		f.AsOfFrom = today.AddDate(0, 0, -days)
	}
	f.Qualifications = values["qual"]
	f.Env, f.EnvDay = values["env"], today             // docs/RULES.md §18.3
	f.Availability = availabilityFilter(values, today) // docs/RULES.md §18.2
	var (
		cands    []quote.Quote
		mine     []quote.Quote
		total    int
		profiles []store.UsageProfile
		owns     []own.Option
	)
	// Own-hardware options are listed to tick only where the reader may
	// read them (docs/RULES.md §8.6).
	uid, role := server.Viewer(c)
	p, err := s.priceComparison(c, values, today, false,
		func(ctx context.Context) (err error) { cands, total, err = s.Store.Quotes(ctx, f); return },
		func(ctx context.Context) (err error) { profiles, err = s.Store.UsageProfiles(ctx); return },
		// The reader's own proposals not yet reviewed are theirs to tick
		// (docs/RULES.md §18.1).
		func(ctx context.Context) (err error) {
			mine, err = s.Store.OpenProposalsBy(ctx, uid, maxCandidates)
			return
		},
		func(ctx context.Context) (err error) {
			owns, _, err = s.Store.OwnOptions(ctx, store.OwnOptionFilter{ViewerID: uid, ViewerRole: role, Limit: maxCandidates})
			return
		})
	if err != nil {
		return err
	}
	// The report currency asked for is remembered as the reader's choice
	// (docs/RULES.md §8.2); a section only reads it.
	if p.currency != "" {
		s.rememberReportCurrency(c, p.currency)
	}
	cur := auth.CurrentUser(c)
	in := web.CompareRecords{Values: values, Preset: preset, Cmp: p.cmp, Asked: p.asked.Errs,
		Candidates: slices.Concat(proposalCandidates(mine, f), cands), More: total > len(cands), Owns: owns,
		Today: today, BaseURL: s.Config.BaseURL()}
	for _, pr := range profiles {
		in.Profiles = append(in.Profiles, web.SavedProfile{ID: pr.ID, Name: pr.Name, Owner: pr.OwnerEmail,
			CanDelete: cur != nil && user.OwnerOrAdmin(pr.OwnerID, cur.UserID, string(cur.Role))})
	}
	// The results kept with the priced comparison for this page state and
	// language, if any (docs/RULES.md §20.5).
	var inputs string
	keepsResults := len(p.cmp.Rows) > 0 && p.shows() && p.cmp.Drawings != nil
	if keepsResults {
		inputs = web.CompareResultsInputs(tr, values, p.cmp)
		in.Results = p.cmp.Drawings.Results(string(tr.Lang), inputs)
	}
	v := web.NewCompareView(tr, in)
	if v.Results == nil && (len(p.cmp.Rows) > 0 || len(p.cmp.Own) > 0) && p.shows() {
		s.compareCharts(tr, &v, p.cmp)
		if keepsResults {
			s.ResultsDrawn()
			var b strings.Builder
			b.Grow(resultsSize)
			if err := web.CompareResultsBody(v).Render(c.Request().Context(), &b); err != nil {
				return err
			}
			v.Results = gzsplice.NewBlock(b.String(), gzsplice.Level)
			p.cmp.Drawings.KeepResults(string(tr.Lang), inputs, v.Results)
		}
	}
	v.Page = s.Page(c, "compare.title")
	c.Response().Header().Set("Vary", "HX-Request")
	return s.RenderKept(c, http.StatusOK, v.Page, web.Compare(v))
}

// resultsSize is room for the results of twenty quotes drawn at once
// (about 90 kB), so drawing them seldom copies what was drawn.
const resultsSize = 128 << 10

// compareCharts gives the page its charts: those kept with the priced
// comparison for the reader's language and the names shown, else drawn
// now (and kept, when the comparison is; docs/RULES.md §20.4).
func (s *Handlers) compareCharts(tr *i18n.Translator, v *web.CompareView, cmp *compare.Comparison) {
	v.CurvesSVG, v.BarsSVG, _ = cmp.Drawings.Charts(string(tr.Lang), web.ChartNames(tr, cmp.Rows, cmp.Own), func() (string, string) {
		s.ChartsDrawn()
		return web.Charts(tr, cmp.Rows, cmp.In, cmp.Own...)
	})
}

// CompareSection serves one section of the compare page on its own
// (docs/RULES.md §20.4): the comparison of the page state in the query,
// priced as the page prices it, shown as that section alone, or the
// section's empty state when nothing is priced. htmx takes the fragment;
// a browser without it gets a page with a link back to the comparison.
func (s *Handlers) CompareSection(key string) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, _, err := s.compareValues(c)
		if err != nil {
			return err
		}
		p, err := s.priceComparison(c, values, s.Today(), key != web.SectionLines)
		if err != nil {
			return err
		}
		v := web.NewCompareSectionView(c.Request().Context(), server.Translator(c), key, values, p.cmp, p.shows())
		v.Page = s.Page(c, v.TitleID)
		c.Response().Header().Set("Vary", "HX-Request")
		return s.Render(c, http.StatusOK, v.Page, web.CompareSectionPage(v))
	}
}

// reportCurrencyCookie remembers the report currency the reader last
// asked for (docs/RULES.md §8.2).
const reportCurrencyCookie = "gq_report_currency"

// rememberReportCurrency keeps the report currency asked for a year, like
// the language.
func (s *Handlers) rememberReportCurrency(c echo.Context, cur string) {
	if ck, err := c.Cookie(reportCurrencyCookie); err == nil && ck.Value == cur {
		return
	}
	c.SetCookie(&http.Cookie{Name: reportCurrencyCookie, Value: cur, Path: "/",
		Expires: time.Now().Add(365 * 24 * time.Hour), MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: s.Config.TLS, SameSite: http.SameSiteLaxMode})
}

// SaveProfile stores the current profile under a name (the same name
// replaces the reader's earlier one) and returns to the comparison: the
// form carries the page state (the profile, the selected quotes, the
// filters, the order and the report currency asked for), so what was on
// screen still is.
func (s *Handlers) SaveProfile(c echo.Context) error {
	posted, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	back := web.CompareURL(compare.State(posted))
	name := strings.TrimSpace(posted.Get("name"))
	if n := utf8.RuneCountInString(name); n < 1 || n > 100 {
		return s.RedirectWithFlash(c, back, "error", "compare.profiles.name_invalid")
	}
	if !form.OneLine(name) {
		return s.RedirectWithFlash(c, back, "error", "compare.profiles.name_one_line")
	}
	if _, errs := tcoapi.ProfileFromForm(posted); len(errs) > 0 {
		return s.RedirectWithFlash(c, back, "error", "compare.profiles.invalid")
	}
	params := map[string]string{}
	for k := range posted {
		if compare.IsProfileField(k) && strings.TrimSpace(posted.Get(k)) != "" {
			params[k] = strings.TrimSpace(posted.Get(k))
		}
	}
	p, err := s.Store.SaveUsageProfile(c.Request().Context(), s.Actor(c), name, params)
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, back, "ok", "compare.profiles.saved", "Name", p.Name)
}

// DeleteProfile removes a saved profile (its owner or an admin only) and
// returns to the comparison its form names ("next", a compare page).
func (s *Handlers) DeleteProfile(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	p, err := s.Store.UsageProfileByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	cur := auth.CurrentUser(c)
	if !user.OwnerOrAdmin(p.OwnerID, cur.UserID, string(cur.Role)) {
		return echo.NewHTTPError(http.StatusForbidden)
	}
	if err := s.Store.DeleteUsageProfile(c.Request().Context(), s.Actor(c), id); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, compareReturn(c.FormValue("next")), "ok", "compare.profiles.deleted", "Name", p.Name)
}

// compareReturn is the compare page a form names to return to, with only
// its page state; anything else is the bare compare page.
func compareReturn(next string) string {
	u, err := url.Parse(server.LocalPath(next, "/compare"))
	if err != nil || u.Path != "/compare" {
		return "/compare"
	}
	return web.CompareURL(compare.State(u.Query()))
}

// proposalCandidates are the reader's open proposals that the candidate
// list's own filters (GPU model, currency, sharing, freshness) keep; the
// filters on platforms' records (qualifications, facts, availability)
// speak of the market and leave a reader's own proposals in.
func proposalCandidates(mine []quote.Quote, f store.QuoteFilter) []quote.Quote {
	var out []quote.Quote
	for _, q := range mine {
		if (f.GPUModelID != 0 && q.GPUModelID != f.GPUModelID) || (f.Currency != "" && q.Currency != f.Currency) ||
			(f.Sharing != "" && q.Sharing != f.Sharing) || (!f.AsOfFrom.IsZero() && q.AsOf.Before(f.AsOfFrom)) {
			continue
		}
		out = append(out, q)
	}
	return out
}
