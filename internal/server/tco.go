package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
	"gpuquote/web"
)

// today is the evaluation date: the UTC calendar day of the server clock.
func (s *Server) today() time.Time {
	y, m, d := s.now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// latestDay is the newest calendar day anywhere on Earth (UTC+14): a
// dated sample may carry it, so an editor east of UTC is never refused
// today's date in the hours before the UTC day turns. Lists, staleness and
// evaluations still use the UTC day (today).
func (s *Server) latestDay() time.Time {
	y, m, d := s.now().UTC().Add(14 * time.Hour).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// fxLookup gives the evaluation the newest dated rate the server holds.
func (s *Server) fxLookup(ctx context.Context) tcoapi.FXLookup {
	return func(from, to string, day time.Time) (tcoapi.FXRate, bool, error) {
		r, err := s.store.FXRateOn(ctx, from, to, day)
		if errors.Is(err, store.ErrNotFound) {
			return tcoapi.FXRate{}, false, nil
		}
		if err != nil {
			return tcoapi.FXRate{}, false, err
		}
		return tco.FX{Rate: r.Rate, Date: r.AsOf}, true, nil
	}
}

// evaluateAPI is POST /api/v1/tco/evaluate (TCO.md "The evaluation API"):
// 200 with the result, or 422 naming every bad field, messages in the
// request's language. It stores nothing.
func (s *Server) evaluateAPI(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	res, errs, err := tcoapi.Evaluate(body, s.fxLookup(c.Request().Context()), s.today())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if len(errs) > 0 {
		return c.JSON(http.StatusUnprocessableEntity, tcoapi.Messages(errs, translator(c).TMap))
	}
	return c.JSON(http.StatusOK, res)
}

// calculatorPage shows the calculator with the example quote evaluated.
func (s *Server) calculatorPage(c echo.Context) error {
	return s.renderCalculator(c, web.CalculatorDefaults())
}

// calculate evaluates the posted form through the same decoding and
// validation as the API; a bad field comes back next to its input.
func (s *Server) calculate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	return s.renderCalculator(c, form)
}

func (s *Server) renderCalculator(c echo.Context, form map[string][]string) error {
	fr := tcoapi.FromForm(form)
	res, errs, err := tcoapi.Evaluate(fr.Body, s.fxLookup(c.Request().Context()), s.today())
	if err != nil {
		return err
	}
	tr := translator(c)
	msgs := map[string]string{}
	for _, e := range errs {
		name := fr.Field(e.Field)
		if _, dup := msgs[name]; !dup {
			msgs[name] = tr.TMap(e.MessageID, e.Args)
		}
	}
	sections, lines := web.CalculatorForm(form, msgs)
	v := web.CalculatorView{Page: s.page(c, "calc.title"), Sections: sections, Lines: lines,
		Errors: web.CalcErrorList(sections, lines, msgs)}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
		if c.Request().Header.Get("HX-Request") == "true" {
			// htmx swaps only 2xx answers by default; the result panel
			// carries the errors.
			status = http.StatusOK
		}
	} else {
		v.Result = calcResult(res, tr)
	}
	return s.render(c, status, v.Page, web.Calculator(v))
}

// calcResult formats an evaluation for the page: amounts with the report
// currency in the reader's locale, hours and rates as computed.
func calcResult(r tcoapi.Response, tr *i18n.Translator) *web.CalcResult {
	cur, loc := r.ReportCurrency, string(tr.Lang)
	amount := func(s string) string {
		d, err := money.ParseDecimal(s)
		if err != nil {
			return s
		}
		return money.Format(d, cur, loc)
	}
	rate := func(p *string) string {
		if p == nil {
			return ""
		}
		d, err := money.ParseDecimal(*p)
		if err != nil {
			return *p
		}
		return money.FormatPlaces(d, cur, loc, 4)
	}
	plain := func(p *string) string {
		if p == nil {
			return ""
		}
		return money.Group(*p)
	}
	out := &web.CalcResult{
		ReportCurrency: cur, FXRate: r.FXRate, FXDate: r.FXDate,
		ChosenModeID: catalog.Mode(r.ChosenMode).LabelID(),
		TCO:          amount(r.TCO), TCOPessimistic: amount(r.TCOPessimistic),
		Compute: amount(r.ComputeTotal), Hidden: amount(r.HiddenTotal), OneOff: amount(r.OneOffTotal),
		EffectivePerGPUH: rate(&r.EffectivePerGPUHour), PerReferenceGPUH: rate(r.PerReferenceGPUHour),
		PerMillionTokens: rate(r.CostPerMillionTokens),
		BreakEvenHours:   plain(r.BreakEvenHours), BreakEvenMonths: plain(r.BreakEvenMonths),
		VRAMFloorGB: plain(r.VRAMFloorGB),
	}
	if r.HiddenShare != nil {
		if d, err := money.ParseDecimal(*r.HiddenShare); err == nil {
			out.HiddenShare = tr.T("calc.result.percent", "Value", money.Fixed(d.Mul(decimal.NewFromInt(100)), 2))
		}
	}
	for _, m := range r.Modes {
		row := web.CalcModeRow{Mode: m.Mode, LabelID: catalog.Mode(m.Mode).LabelID(),
			StatusID: catalog.ModeStatus(m.Status).LabelID(), Allowed: m.Status == string(catalog.ModeAllowed),
			Chosen: m.Mode == r.ChosenMode, Compute: amount(m.ComputeTotal), TCO: amount(m.TCO),
			BillableHours: plain(m.BillableHoursPerMonth)}
		out.Modes = append(out.Modes, row)
	}
	for _, l := range r.Lines {
		it, _ := catalog.LookupItem(catalog.ItemKey(l.Item))
		row := web.CalcLineResult{Item: l.Item, LabelID: it.LabelID, StatusID: catalog.Status(l.Status).LabelID(),
			Unconfirmed: l.Status == string(catalog.StatusUnconfirmed), Quantity: money.Group(l.Quantity),
			UnitID: catalog.Unit(l.Unit).LabelID(), Amount: amount(l.Amount)}
		if l.ReferenceAmount != nil {
			row.Reference = amount(*l.ReferenceAmount)
		}
		out.Lines = append(out.Lines, row)
	}
	for _, f := range r.Flags {
		out.FlagIDs = append(out.FlagIDs, catalog.Flag(f).LabelID())
	}
	return out
}
