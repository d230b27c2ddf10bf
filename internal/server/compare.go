package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/svgchart"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
	"gpuquote/web"
)

// maxCandidates is how many candidates the list shows; filters narrow it.
const maxCandidates = 50

// comparePresets are the guides' three paths as starting profiles.
var comparePresets = []struct {
	key, labelID, hintID string
	values               map[string]string
}{
	{"try", "compare.preset.try", "compare.preset.try.hint", map[string]string{
		"profile.hours_per_month": "50", "profile.months": "1", "profile.instances": "1",
		"profile.starts_per_month": "10", "profile.between_runs": "release"}},
	{"steady", "compare.preset.steady", "compare.preset.steady.hint", map[string]string{
		"profile.hours_per_month": "600", "profile.months": "12", "profile.instances": "1",
		"profile.starts_per_month": "1", "profile.between_runs": "keep_stopped"}},
	{"training", "compare.preset.training", "compare.preset.training.hint", map[string]string{
		"profile.hours_per_month": "730", "profile.months": "3", "profile.instances": "2",
		"profile.starts_per_month": "1", "profile.between_runs": "release", "profile.resumable": "true",
		"profile.task": "full_training", "profile.params_billions": "7", "profile.precision": "bf16"}},
}

// compareDefaults is the profile of a first visit.
var compareDefaults = map[string]string{"profile.hours_per_month": "200", "profile.months": "1", "profile.instances": "1"}

// compareQualifications are the platform qualifications a comparison may require.
var compareQualifications = []web.Option{
	{Value: "idc_licence", LabelID: "compare.qual.idc_licence"},
	{Value: "isp_licence", LabelID: "compare.qual.isp_licence"},
	{Value: "iso27001", LabelID: "compare.qual.iso27001"},
	{Value: "mlps3", LabelID: "compare.qual.mlps3"},
	{Value: "third_party_guarantee", LabelID: "compare.qual.third_party_guarantee"},
}

// isProfileField reports whether a query key belongs to the usage profile.
func isProfileField(k string) bool { return strings.HasPrefix(k, "profile.") || k == "report_currency" }

// compareValues is the page's state from the query: a preset or a saved
// profile fills the profile, which explicit fields override otherwise.
func (s *Server) compareValues(c echo.Context) (url.Values, string, error) {
	q := c.QueryParams()
	values := url.Values{}
	for k, vs := range q {
		values[k] = append([]string(nil), vs...)
	}
	hasProfile := false
	for k := range q {
		if strings.HasPrefix(k, "profile.") {
			hasProfile = true
		}
	}
	fill := func(m map[string]string) {
		for k := range values {
			if isProfileField(k) && k != "report_currency" {
				delete(values, k)
			}
		}
		for k, v := range m {
			values.Set(k, v)
		}
	}
	preset := q.Get("preset")
	switch {
	case preset != "":
		for _, p := range comparePresets {
			if p.key == preset {
				fill(p.values)
			}
		}
	case q.Get("profile_id") != "":
		id, _ := strconv.ParseInt(q.Get("profile_id"), 10, 64)
		p, err := s.store.UsageProfileByID(c.Request().Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, "", echo.ErrNotFound
		} else if err != nil {
			return nil, "", err
		}
		fill(p.Params)
	case !hasProfile:
		fill(compareDefaults)
	}
	values.Del("preset")
	values.Del("profile_id")
	return values, preset, nil
}

func (s *Server) comparePage(c echo.Context) error {
	values, preset, err := s.compareValues(c)
	if err != nil {
		return err
	}
	tr := translator(c)
	today := s.today()

	// Candidates: published quotes the filters find, each screened against
	// the profile (greyed with the reason, never dropped).
	f := store.QuoteFilter{Limit: maxCandidates, NoCount: true, Currency: strings.ToUpper(strings.TrimSpace(values.Get("currency")))}
	f.GPUModelID, _ = strconv.ParseInt(values.Get("gpu"), 10, 64)
	if sh := values.Get("sharing"); catalog.Sharing(sh).Valid() {
		f.Sharing = sh
	}
	if days, err := strconv.Atoi(values.Get("fresh")); err == nil && days > 0 {
		f.AsOfFrom = today.AddDate(0, 0, -days)
	}
	f.Qualifications = values["qual"]
	var (
		cands    []quote.Quote
		total    int
		profiles []store.UsageProfile
	)
	cmp, err := compare.Load(c.Request().Context(), s.store, values, today,
		func(ctx context.Context) (err error) { cands, total, err = s.store.Quotes(ctx, f); return },
		func(ctx context.Context) (err error) { profiles, err = s.store.UsageProfiles(ctx); return })
	if err != nil {
		return err
	}

	msgs := map[string]string{}
	for _, e := range cmp.ProfileErrors {
		if _, dup := msgs[e.Field]; !dup {
			msgs[e.Field] = tr.TMap(e.MessageID, e.Args)
		}
	}
	v := web.CompareView{ProfileSections: web.ProfileSections(values, msgs), Qualifications: compareQualifications}
	v.ReportCurrency = web.Field{Name: "report_currency", Kind: "text", LabelID: "calc.report_currency", Value: cmp.In.ReportCurrency}
	v.Errors = web.ErrorList(v.ProfileSections, nil)
	for _, p := range comparePresets {
		v.Presets = append(v.Presets, web.ComparePreset{Key: p.key, LabelID: p.labelID, HintID: p.hintID,
			URL: "/compare?preset=" + p.key, Active: p.key == preset})
	}
	if cmp.Floor.Valid {
		v.VRAMFloor = money.Fixed(cmp.Floor.Decimal, 2)
	}
	v.SelectedCount, v.TooMany = len(cmp.SelectedIDs), cmp.TooMany
	for _, g := range cmp.GPUs {
		v.GPUs = append(v.GPUs, web.Option{Value: strconv.FormatInt(g.ID, 10), Label: g.Vendor + " " + g.Name})
	}
	v.CandidatesMore = total > len(cands)

	stale := today.AddDate(0, 0, -staleAfterDays)
	for _, q := range cands {
		cand := compare.Candidate{Quote: q, GPU: cmp.GPUByID[q.GPUModelID]}
		var reasons []compare.Reason
		if len(cmp.ProfileErrors) == 0 {
			reasons = compare.Screen(cand, cmp.In, cmp.Floor)
		}
		if values.Get("fit") == "1" && hasReason(reasons, compare.ReasonVRAMFloor) {
			continue // the reader asked to leave out cards below the floor
		}
		v.Candidates = append(v.Candidates, web.CompareCandidate{ID: q.ID, Name: web.QuoteName(translator(c), q),
			Hourly: s.formatMoney(c, q.Hourly, q.Currency), Monthly: s.formatMoney(c, q.Monthly, q.Currency),
			AsOf: web.FormatDate(q.AsOf), Stale: q.AsOf.Before(stale), Selected: cmp.Seen[q.ID], Reasons: reasonTexts(c, reasons)})
	}

	if len(cmp.Rows) > 0 {
		s.compareTable(c, &v, cmp.Rows, cmp.In, values, cmp.SortKey, cmp.Desc)
	}

	cur := auth.CurrentUser(c)
	for _, p := range profiles {
		v.Profiles = append(v.Profiles, web.SavedProfile{ID: p.ID, Name: p.Name, Owner: p.OwnerEmail,
			LoadURL: "/compare?profile_id=" + strconv.FormatInt(p.ID, 10), CanDelete: cur != nil && (cur.UserID == p.OwnerID || cur.Role == auth.RoleAdmin)})
	}
	v.Filter = values
	shared := url.Values{}
	for k, vs := range values {
		if len(vs) > 0 && vs[0] != "" {
			shared[k] = vs
		}
	}
	v.ShareURL = "/compare?" + shared.Encode()
	v.Page = s.page(c, "compare.title")
	c.Response().Header().Set("Vary", "HX-Request")
	return s.render(c, http.StatusOK, v.Page, web.Compare(v))
}

func hasReason(rs []compare.Reason, id string) bool {
	for _, r := range rs {
		if r.MessageID == id {
			return true
		}
	}
	return false
}

func reasonTexts(c echo.Context, rs []compare.Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, translator(c).TMap(r.MessageID, r.Args))
	}
	return out
}

func validSort(k string) bool {
	for _, x := range compare.SortKeys {
		if k == x {
			return true
		}
	}
	return false
}

// compareTable formats the priced rows, the sortable headers and the
// exchange rates used.
func (s *Server) compareTable(c echo.Context, v *web.CompareView, rows []compare.Row, in compare.Input, values url.Values, sortKey string, desc bool) {
	tr := translator(c)
	cur := in.ReportCurrency
	m := func(d decimal.Decimal) string { return s.formatMoney(c, decimal.NewNullDecimal(d), cur) }
	rate := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return ""
		}
		return money.FormatPlaces(d.Decimal, cur, string(tr.Lang), 4)
	}
	v.ReportCur = cur
	for _, it := range catalog.Items {
		v.ItemLabelIDs = append(v.ItemLabelIDs, it.LabelID)
	}
	usedRates := map[string]tco.FX{}
	for _, r := range rows {
		q := r.Quote
		row := web.CompareRow{ID: q.ID, Name: web.QuoteName(translator(c), q), URL: "/quotes/" + strconv.FormatInt(q.ID, 10),
			QuestionsURL: questionsURL(values, q.ID),
			Archived:     q.State == quote.Archived, Eligible: r.Eligible(), Priced: r.Priced, Reasons: reasonTexts(c, r.Reasons),
			CheapestConfirmed: r.CheapestConfirmed, CheapestPessimistic: r.CheapestPessimistic}
		if r.Priced {
			res := r.Result
			if q.Currency != cur {
				usedRates[q.Currency] = tco.FX{Rate: res.FXRate, Date: res.FXDate}
			}
			row.ChosenModeID = res.ChosenMode.LabelID()
			for _, md := range res.Modes {
				row.Modes = append(row.Modes, web.CompareMode{Mode: string(md.Mode), LabelID: md.Mode.LabelID(), Total: m(md.TCO),
					Allowed: md.Status == catalog.ModeAllowed, Chosen: md.Mode == res.ChosenMode})
			}
			if res.BreakEvenHours.Valid {
				row.BreakEven = tr.T("compare.hours", "Hours", money.Fixed(res.BreakEvenHours.Decimal, 2))
			}
			row.Compute, row.Hidden, row.OneOff = m(res.ComputeTotal), m(res.HiddenTotal), m(res.OneOffTotal)
			row.TCO, row.TCOPessimistic = m(res.TCO), m(res.TCOPessimistic)
			if res.HiddenShare.Valid {
				row.HiddenShare = tr.T("calc.result.percent", "Value", money.Fixed(res.HiddenShare.Decimal.Mul(decimal.NewFromInt(100)), 2))
			}
			row.Effective = rate(decimal.NewNullDecimal(res.EffectivePerGPUHour))
			row.PerReference = rate(res.PerReferenceGPUHour)
			row.PerMillionTokens = rate(res.CostPerMillionTokens)
			for _, f := range res.Flags {
				row.FlagIDs = append(row.FlagIDs, f.LabelID())
			}
			for _, l := range res.Lines {
				cl := web.CompareLine{Item: string(l.Item), Status: string(l.Status)}
				if l.Status == catalog.StatusCharged {
					cl.Amount = m(l.Amount)
				} else {
					cl.StatusID = l.Status.LabelID()
					if l.ReferenceAmount.Valid {
						cl.Reference = m(l.ReferenceAmount.Decimal)
					}
				}
				row.Lines = append(row.Lines, cl)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	var froms []string
	for from := range usedRates {
		froms = append(froms, from)
	}
	sort.Strings(froms)
	for _, from := range froms {
		fx := usedRates[from]
		date := tr.T("compare.fx.undated")
		if !fx.Date.IsZero() {
			date = web.FormatDate(fx.Date)
		}
		v.FXNotes = append(v.FXNotes, tr.T("compare.fx", "From", from, "To", cur, "Rate", money.String(fx.Rate), "Date", date))
	}
	s.compareCharts(c, v, rows, in)
	for _, k := range []struct{ key, labelID string }{
		{compare.SortTCO, "calc.result.tco"}, {compare.SortPessimistic, "calc.result.tco_pessimistic"},
		{compare.SortEffective, "calc.result.effective"}, {compare.SortHidden, "calc.result.hidden_share"},
		{compare.SortBreakEven, "calc.result.break_even_hours"},
	} {
		q := url.Values{}
		for key, vs := range values {
			q[key] = vs
		}
		q.Set("sort", k.key)
		dir := "asc"
		if k.key == sortKey && !desc {
			dir = "desc"
		}
		q.Set("dir", dir)
		v.Sorts = append(v.Sorts, web.CompareSort{Key: k.key, LabelID: k.labelID, URL: "/compare?" + q.Encode(),
			Active: k.key == sortKey, Desc: k.key == sortKey && desc})
	}
}

// saveProfile stores the current profile under a name (the same name
// replaces the reader's earlier one) and reloads the comparison with it.
func (s *Server) saveProfile(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	name := strings.TrimSpace(form.Get("name"))
	if n := utf8.RuneCountInString(name); n < 1 || n > 100 {
		return s.redirectWithFlash(c, "/compare", "error", "compare.profiles.name_invalid")
	}
	if _, errs := tcoapi.ProfileFromForm(form); len(errs) > 0 {
		return s.redirectWithFlash(c, "/compare", "error", "compare.profiles.invalid")
	}
	params := map[string]string{}
	for k := range form {
		if isProfileField(k) && strings.TrimSpace(form.Get(k)) != "" {
			params[k] = strings.TrimSpace(form.Get(k))
		}
	}
	p, err := s.store.SaveUsageProfile(c.Request().Context(), s.actor(c), name, params)
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/compare?profile_id="+strconv.FormatInt(p.ID, 10), "ok", "compare.profiles.saved", "Name", p.Name)
}

// deleteProfile removes a saved profile: its owner or an admin only.
func (s *Server) deleteProfile(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return echo.ErrNotFound
	}
	p, err := s.store.UsageProfileByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	cur := auth.CurrentUser(c)
	if cur.UserID != p.OwnerID && cur.Role != auth.RoleAdmin {
		return echo.NewHTTPError(http.StatusForbidden)
	}
	if err := s.store.DeleteUsageProfile(c.Request().Context(), s.actor(c), id); err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/compare", "ok", "compare.profiles.deleted", "Name", p.Name)
}

// compareCharts draws the cost curves and the cost make-up of the rows the
// engine priced (ruled-out ones too, since they are shown greyed).
func (s *Server) compareCharts(c echo.Context, v *web.CompareView, rows []compare.Row, in compare.Input) {
	tr := translator(c)
	cur := in.ReportCurrency
	m := func(d decimal.Decimal) string { return s.formatMoney(c, decimal.NewNullDecimal(d), cur) }
	curves := svgchart.CurveChart{ID: "cmp-curves", Title: tr.T("compare.chart.curves.title", "Currency", cur),
		Desc: tr.T("compare.charts.curves"), XLabel: tr.T("compare.chart.hours"), YLabel: tr.T("compare.chart.per_month", "Currency", cur),
		LegendHourly: tr.T("mode.hourly"), LegendMonthly: tr.T("mode.monthly"), LegendSpot: tr.T("mode.spot"),
		LegendBreakEven: tr.T("calc.result.break_even_hours")}
	bars := svgchart.BarChart{ID: "cmp-bars", Title: tr.T("compare.chart.bars.title", "Currency", cur), Desc: tr.T("compare.charts.bars"),
		XLabel: tr.T("calc.result.tco") + " (" + cur + ")", LegendCompute: tr.T("calc.result.compute"),
		LegendHidden: tr.T("calc.result.hidden"), LegendOneOff: tr.T("calc.result.one_off")}
	for _, r := range rows {
		if !r.Priced {
			continue
		}
		name := web.QuoteName(translator(c), r.Quote)
		hourly, monthly, spot := compare.UnitPrices(r, in.Profile)
		cq := svgchart.CurveQuote{Name: name, Hourly: hourly, Monthly: monthly, Spot: spot, BreakEvenHours: r.Result.BreakEvenHours}
		if r.Result.BreakEvenHours.Valid {
			cq.BreakEvenLabel = tr.T("compare.hours", "Hours", money.Fixed(r.Result.BreakEvenHours.Decimal, 2))
		}
		if len(curves.Quotes) < svgchart.MaxCurveQuotes {
			curves.Quotes = append(curves.Quotes, cq)
		}
		res := r.Result
		bars.Bars = append(bars.Bars, svgchart.Bar{Name: name, Compute: res.ComputeTotal, Hidden: res.HiddenTotal, OneOff: res.OneOffTotal,
			ComputeText: m(res.ComputeTotal), HiddenText: m(res.HiddenTotal), OneOffText: m(res.OneOffTotal), TotalText: m(res.TCO)})
	}
	v.CurvesSVG, v.BarsSVG = svgchart.CostCurves(curves), svgchart.StackedBars(bars)
}
