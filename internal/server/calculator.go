package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
	"gpuquote/web"
)

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

// evaluateAPI is POST /api/v1/tco/evaluate (docs/RULES.md §12):
// 200 with the result, or 422 naming every bad field, messages in the
// request's language. It stores nothing.
func (s *Server) evaluateAPI(c echo.Context) error { return engineAPI(s, c, tcoapi.Evaluate) }

// engineAPI answers a request of the engine's JSON API with run: 200 with
// its result, or 422 naming every bad field, messages in the request's
// language; never cached, nothing stored.
func engineAPI[R any](s *Server, c echo.Context, run func([]byte, tcoapi.FXLookup, time.Time) (R, []tcoapi.FieldError, error)) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	res, errs, err := run(body, s.fxLookup(c.Request().Context()), s.today())
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
	if c.QueryParam(tcoapi.ModeField) == tcoapi.ModeBuy {
		// The rent-or-buy mode's example (docs/RULES.md §17.3).
		return s.renderCalculator(c, web.CalculatorBuyDefaults())
	}
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
	buy := tcoapi.BuyMode(form)
	var res tcoapi.Response
	var both tcoapi.RentBuyResponse
	var errs []tcoapi.FieldError
	var err error
	if buy {
		// The rent-or-buy mode prices the own option beside the quote,
		// through the rent-or-buy API's decoding and validation.
		both, errs, err = fr.RentVsBuy(s.fxLookup(c.Request().Context()), s.today())
		res = both.Rent
	} else {
		res, errs, err = fr.Evaluate(s.fxLookup(c.Request().Context()), s.today())
	}
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
	all := sections
	v := web.CalculatorView{Page: s.page(c, "calc.title"), Sections: sections, Lines: lines, Buy: buy}
	if buy {
		v.Own = web.OwnSections(form, msgs)
		all = append(append([]web.Section(nil), sections[:1]...), append(v.Own, sections[1:]...)...)
	}
	v.Errors = web.CalcErrorList(all, lines, msgs)
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
		if c.Request().Header.Get("HX-Request") == "true" {
			// htmx swaps only 2xx answers by default; the result panel
			// carries the errors.
			status = http.StatusOK
		}
	} else {
		v.Result = web.NewCalcResult(res, tr)
		if buy {
			f := url.Values(form)
			months, _ := strconv.Atoi(strings.TrimSpace(f.Get("profile.months")))
			v.RentBuy = web.NewRentBuyResult(both, strings.TrimSpace(f.Get("profile.hours_per_month")), months, tr)
		}
	}
	return s.render(c, status, v.Page, web.Calculator(v))
}
