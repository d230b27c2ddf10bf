package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/server"
	"gpuquote/internal/tcoapi"
	"gpuquote/web"
)

// CalculatorPage shows the calculator with the example quote evaluated.
func (s *Handlers) CalculatorPage(c echo.Context) error {
	if c.QueryParam(tcoapi.ModeField) == tcoapi.ModeBuy {
		// The rent-or-buy mode's example (docs/RULES.md §17.3).
		return s.renderCalculator(c, web.CalculatorBuyDefaults())
	}
	return s.renderCalculator(c, web.CalculatorDefaults())
}

// Calculate evaluates the posted form through the same decoding and
// validation as the API; a bad field comes back next to its input.
func (s *Handlers) Calculate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	return s.renderCalculator(c, form)
}

func (s *Handlers) renderCalculator(c echo.Context, form map[string][]string) error {
	fr := tcoapi.FromForm(form)
	buy := tcoapi.BuyMode(form)
	var res tcoapi.Response
	var both tcoapi.RentBuyResponse
	var errs []tcoapi.FieldError
	var err error
	if buy {
		// The rent-or-buy mode prices the own option beside the quote,
		// through the rent-or-buy API's decoding and validation.
		both, errs, err = fr.RentVsBuy(s.FXLookup(c.Request().Context()), s.Today())
		res = both.Rent
	} else {
		res, errs, err = fr.Evaluate(s.FXLookup(c.Request().Context()), s.Today())
	}
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	msgs := map[string]string{}
	for _, e := range errs {
		name := fr.Field(e.Field)
		if _, dup := msgs[name]; !dup {
			msgs[name] = tr.TMap(e.MessageID, e.Args)
		}
	}
	sections, lines := web.CalculatorForm(form, msgs)
	all := sections
	v := web.CalculatorView{Page: s.Page(c, "calc.title"), Sections: sections, Lines: lines, Buy: buy}
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
	return s.Render(c, status, v.Page, web.Calculator(v))
}
