package pages

import (
	"net/http"

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

// renderCalculator evaluates form and shows the calculator with the
// result, or with every problem beside its input.
func (s *Handlers) renderCalculator(c echo.Context, form map[string][]string) error {
	in := web.CalculatorRecords{Form: form, Request: tcoapi.FromForm(form), Buy: tcoapi.BuyMode(form)}
	var err error
	if in.Buy {
		// The rent-or-buy mode prices the own option beside the quote,
		// through the rent-or-buy API's decoding and validation.
		in.RentBuy, in.Errs, err = in.Request.RentVsBuy(s.FXLookup(c.Request().Context()), s.Today())
		in.Result = in.RentBuy.Rent
	} else {
		in.Result, in.Errs, err = in.Request.Evaluate(s.FXLookup(c.Request().Context()), s.Today())
	}
	if err != nil {
		return err
	}
	v := web.NewCalculatorView(server.Translator(c), in)
	v.Page = s.Page(c, "calc.title")
	status := http.StatusOK
	if len(in.Errs) > 0 && c.Request().Header.Get("HX-Request") != "true" {
		// htmx swaps only 2xx answers by default; the result panel
		// carries the errors.
		status = http.StatusUnprocessableEntity
	}
	return s.Render(c, status, v.Page, web.Calculator(v))
}
