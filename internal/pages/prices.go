package pages

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const pricesPerPage = 25

// pricesView loads both sections of the prices page for the current list
// filters, with empty add forms (the item preselected from ?item=, which
// is also how the unit select is reloaded when the item changes).
func (s *Handlers) pricesView(c echo.Context) (web.PricesView, error) {
	ctx := c.Request().Context()
	in := web.PricesRecords{Query: web.ReadPricesQuery(c.QueryParams()), Today: s.Today(), Item: c.QueryParam("item"), PerPage: pricesPerPage}
	q := in.Query
	var err error
	if in.RefCurrent, err = s.Store.CurrentReferencePrices(ctx, "", in.Today); err != nil {
		return web.PricesView{}, err
	}
	if in.RefHistory, in.RefTotal, err = s.Store.ReferencePrices(ctx, store.ReferencePriceFilter{Item: q.RefItem, Currency: q.RefCurrency,
		Offset: (q.RefPage - 1) * pricesPerPage, Limit: pricesPerPage}); err != nil {
		return web.PricesView{}, err
	}
	if in.FXCurrent, err = s.Store.CurrentFXRates(ctx, in.Today); err != nil {
		return web.PricesView{}, err
	}
	if in.FXHistory, in.FXTotal, err = s.Store.FXRates(ctx, store.FXRateFilter{Base: q.FXBase, Quote: q.FXQuote,
		Offset: (q.FXPage - 1) * pricesPerPage, Limit: pricesPerPage}); err != nil {
		return web.PricesView{}, err
	}
	return web.NewPricesView(in), nil
}

// PricesPage is GET /prices: reference prices and exchange rates in force
// today, their history, and the forms that add new dated samples.
func (s *Handlers) PricesPage(c echo.Context) error {
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	v.Page = s.Page(c, "prices.title")
	return s.Render(c, http.StatusOK, v.Page, web.Prices(v))
}

// CreateReferencePrice is POST /prices/reference: every bad field is named
// beside its input at once (422, input kept, nothing saved); a stored price
// redirects back to the page.
func (s *Handlers) CreateReferencePrice(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	p := market.ReadReferencePrice(r, s.LatestDay())
	f := web.RefPriceForm{Item: r.Raw("item"), Currency: p.Currency, Unit: r.Raw("unit"), UnitPrice: r.Raw("unit_price"),
		AsOf: r.Raw("as_of"), Source: p.Source, Errors: r.Errs}
	if r.OK() {
		_, err := s.Store.CreateReferencePrice(c.Request().Context(), s.Actor(c), p)
		switch {
		case errors.Is(err, store.ErrReferencePriceExists):
			r.Fail("as_of", "prices.reference.exists")
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, "/prices", "ok", "prices.reference.created")
		}
	}
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	f.Units = web.PricesRefUnits(f.Item)
	v.RefForm = f
	v.Page = s.Page(c, "prices.title")
	return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Prices(v))
}

// CreateFXRate is POST /prices/fx: like createReferencePrice, for a dated
// exchange rate (1 base = rate quote).
func (s *Handlers) CreateFXRate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	fx := market.ReadFXRate(r, s.LatestDay())
	f := web.FXRateForm{Base: fx.Base, Quote: fx.Quote, Rate: r.Raw("rate"), AsOf: r.Raw("as_of"), Source: fx.Source,
		Errors: r.Errs}
	if r.OK() {
		_, err := s.Store.CreateFXRate(c.Request().Context(), s.Actor(c), fx)
		switch {
		case errors.Is(err, store.ErrFXRateExists):
			r.Fail("as_of", "prices.fx.exists")
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, "/prices", "ok", "prices.fx.created")
		}
	}
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	v.FXForm = f
	v.Page = s.Page(c, "prices.title")
	return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Prices(v))
}
