package pages

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/web"
)

const (
	pricesPerPage = 25
)

var (
	// pricesCurrencySuggestions are offered in every currency input: the
	// currencies the guides quote in (docs/RULES.md §1.5).
	pricesCurrencySuggestions = []string{"CNY", "EUR", "USD"}
)

// pricesView loads both sections of the prices page for the current list
// filters, with empty add forms (the item preselected from ?item=, which
// is also how the unit select is reloaded when the item changes).
func (s *Handlers) pricesView(c echo.Context) (web.PricesView, error) {
	ctx := c.Request().Context()
	q := web.ReadPricesQuery(c.QueryParams())
	today := s.Today()
	staleBefore := tco.StaleBefore(today)

	v := web.PricesView{Today: today.Format(time.DateOnly), RefItem: q.RefItem, RefCurrency: q.RefCurrency,
		FXBase: q.FXBase, FXQuote: q.FXQuote,
		RefKeep: q.Keep("fx_base", "fx_quote", "fx_page"), FXKeep: q.Keep("ref_item", "ref_currency", "ref_page")}
	for _, it := range catalog.Items {
		v.Items = append(v.Items, web.PriceOption{Value: string(it.Key), LabelID: it.LabelID})
	}
	item := c.QueryParam("item")
	if _, ok := catalog.LookupItem(catalog.ItemKey(item)); !ok {
		item = string(catalog.Items[0].Key)
	}
	v.RefForm = web.RefPriceForm{Item: item, Units: web.PricesRefUnits(item), Errors: web.Errors{}}
	v.FXForm = web.FXRateForm{Errors: web.Errors{}}

	currencies := slices.Clone(pricesCurrencySuggestions)
	refRow := func(r market.ReferencePrice) web.RefPriceRow {
		unit := catalog.Unit(r.Unit).LabelID()
		if it, ok := catalog.LookupItem(catalog.ItemKey(r.Item)); ok {
			unit = it.UnitLabelID(catalog.Unit(r.Unit))
		}
		return web.RefPriceRow{ID: r.ID, Item: r.Item, ItemLabelID: "item." + r.Item,
			UnitLabelID: unit, Currency: r.Currency, UnitPrice: r.UnitPrice,
			AsOf: r.AsOf, Source: r.Source, Stale: r.AsOf.Before(staleBefore)}
	}
	fxRow := func(r market.FXRate) web.FXRateRow {
		return web.FXRateRow{ID: r.ID, Base: r.Base, Quote: r.Quote, Rate: r.Rate, AsOf: r.AsOf,
			Source: r.Source, Stale: r.AsOf.Before(staleBefore)}
	}

	current, err := s.Store.CurrentReferencePrices(ctx, "", today)
	if err != nil {
		return v, err
	}
	for _, r := range current {
		if n := len(v.RefCurrent); n == 0 || v.RefCurrent[n-1].Currency != r.Currency {
			v.RefCurrent = append(v.RefCurrent, web.RefPriceGroup{Currency: r.Currency})
			currencies = append(currencies, r.Currency)
		}
		g := &v.RefCurrent[len(v.RefCurrent)-1]
		g.Rows = append(g.Rows, refRow(r))
	}
	hist, total, err := s.Store.ReferencePrices(ctx, store.ReferencePriceFilter{Item: q.RefItem, Currency: q.RefCurrency,
		Offset: (q.RefPage - 1) * pricesPerPage, Limit: pricesPerPage})
	if err != nil {
		return v, err
	}
	for _, r := range hist {
		v.RefHistory = append(v.RefHistory, refRow(r))
	}
	v.RefPager = web.PricesPager{Param: "ref_page", Anchor: "ref-history",
		Pager: web.Pager{Page: q.RefPage, PerPage: pricesPerPage, Total: total, Base: "/prices?" + q.Values("ref_page").Encode()}}

	rates, err := s.Store.CurrentFXRates(ctx, today)
	if err != nil {
		return v, err
	}
	for _, r := range rates {
		v.FXCurrent = append(v.FXCurrent, fxRow(r))
		currencies = append(currencies, r.Base, r.Quote)
	}
	fxHist, fxTotal, err := s.Store.FXRates(ctx, store.FXRateFilter{Base: q.FXBase, Quote: q.FXQuote,
		Offset: (q.FXPage - 1) * pricesPerPage, Limit: pricesPerPage})
	if err != nil {
		return v, err
	}
	for _, r := range fxHist {
		v.FXHistory = append(v.FXHistory, fxRow(r))
	}
	v.FXPager = web.PricesPager{Param: "fx_page", Anchor: "fx-history",
		Pager: web.Pager{Page: q.FXPage, PerPage: pricesPerPage, Total: fxTotal, Base: "/prices?" + q.Values("fx_page").Encode()}}

	slices.Sort(currencies)
	v.Currencies = slices.Compact(currencies)
	return v, nil
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
