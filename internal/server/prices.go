package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/store"
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

// pricesQuery is the state of the page's two history lists, from the URL.
type pricesQuery struct {
	refItem, refCurrency string
	refPage              int
	fxBase, fxQuote      string
	fxPage               int
}

// readPricesQuery reads the list filters; a value that names no item or
// currency is ignored rather than refused, like every list filter.
func readPricesQuery(c echo.Context) pricesQuery {
	q := pricesQuery{
		refItem:     c.QueryParam("ref_item"),
		refCurrency: pricesCurrency(c.QueryParam("ref_currency")),
		fxBase:      pricesCurrency(c.QueryParam("fx_base")),
		fxQuote:     pricesCurrency(c.QueryParam("fx_quote")),
	}
	if _, ok := catalog.LookupItem(catalog.ItemKey(q.refItem)); !ok {
		q.refItem = ""
	}
	for _, p := range []*string{&q.refCurrency, &q.fxBase, &q.fxQuote} {
		if !money.IsCurrency(*p) {
			*p = ""
		}
	}
	q.refPage, _ = strconv.Atoi(c.QueryParam("ref_page"))
	q.refPage = max(q.refPage, 1)
	q.fxPage, _ = strconv.Atoi(c.QueryParam("fx_page"))
	q.fxPage = max(q.fxPage, 1)
	return q
}

// values encodes the list state, leaving out the page parameter named skip
// and every empty value.
func (q pricesQuery) values(skip string) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" && k != skip {
			v.Set(k, s)
		}
	}
	set("ref_item", q.refItem)
	set("ref_currency", q.refCurrency)
	set("fx_base", q.fxBase)
	set("fx_quote", q.fxQuote)
	if q.refPage > 1 {
		set("ref_page", strconv.Itoa(q.refPage))
	}
	if q.fxPage > 1 {
		set("fx_page", strconv.Itoa(q.fxPage))
	}
	return v
}

// keep lists the given parameters of the list state as hidden fields.
func (q pricesQuery) keep(names ...string) []web.PricesParam {
	v := q.values("")
	var out []web.PricesParam
	for _, n := range names {
		if s := v.Get(n); s != "" {
			out = append(out, web.PricesParam{Name: n, Value: s})
		}
	}
	return out
}

// pricesCurrency trims a typed currency code and upper-cases it, so "eur"
// typed into a form means EUR; validity is checked by money.IsCurrency.
func pricesCurrency(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// pricesRefUnits are the units item may be priced in, as select options (the
// table's first item's when item is unknown).
func pricesRefUnits(item string) []web.PriceOption {
	it, ok := catalog.LookupItem(catalog.ItemKey(item))
	if !ok {
		it = catalog.Items[0]
	}
	out := make([]web.PriceOption, len(it.Units))
	for i, u := range it.Units {
		out[i] = web.PriceOption{Value: string(u), LabelID: it.UnitLabelID(u)}
	}
	return out
}

// pricesView loads both sections of the prices page for the current list
// filters, with empty add forms (the item preselected from ?item=, which
// is also how the unit select is reloaded when the item changes).
func (s *Server) pricesView(c echo.Context) (web.PricesView, error) {
	ctx := c.Request().Context()
	q := readPricesQuery(c)
	today := s.today()
	staleBefore := today.AddDate(0, 0, -staleAfterDays)

	v := web.PricesView{Today: today.Format(time.DateOnly), RefItem: q.refItem, RefCurrency: q.refCurrency,
		FXBase: q.fxBase, FXQuote: q.fxQuote,
		RefKeep: q.keep("fx_base", "fx_quote", "fx_page"), FXKeep: q.keep("ref_item", "ref_currency", "ref_page")}
	for _, it := range catalog.Items {
		v.Items = append(v.Items, web.PriceOption{Value: string(it.Key), LabelID: it.LabelID})
	}
	item := c.QueryParam("item")
	if _, ok := catalog.LookupItem(catalog.ItemKey(item)); !ok {
		item = string(catalog.Items[0].Key)
	}
	v.RefForm = web.RefPriceForm{Item: item, Units: pricesRefUnits(item), Errors: web.Errors{}}
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

	current, err := s.store.CurrentReferencePrices(ctx, "", today)
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
	hist, total, err := s.store.ReferencePrices(ctx, store.ReferencePriceFilter{Item: q.refItem, Currency: q.refCurrency,
		Offset: (q.refPage - 1) * pricesPerPage, Limit: pricesPerPage})
	if err != nil {
		return v, err
	}
	for _, r := range hist {
		v.RefHistory = append(v.RefHistory, refRow(r))
	}
	v.RefPager = web.PricesPager{Param: "ref_page", Anchor: "ref-history",
		Pager: web.Pager{Page: q.refPage, PerPage: pricesPerPage, Total: total, Base: "/prices?" + q.values("ref_page").Encode()}}

	rates, err := s.store.CurrentFXRates(ctx, today)
	if err != nil {
		return v, err
	}
	for _, r := range rates {
		v.FXCurrent = append(v.FXCurrent, fxRow(r))
		currencies = append(currencies, r.Base, r.Quote)
	}
	fxHist, fxTotal, err := s.store.FXRates(ctx, store.FXRateFilter{Base: q.fxBase, Quote: q.fxQuote,
		Offset: (q.fxPage - 1) * pricesPerPage, Limit: pricesPerPage})
	if err != nil {
		return v, err
	}
	for _, r := range fxHist {
		v.FXHistory = append(v.FXHistory, fxRow(r))
	}
	v.FXPager = web.PricesPager{Param: "fx_page", Anchor: "fx-history",
		Pager: web.Pager{Page: q.fxPage, PerPage: pricesPerPage, Total: fxTotal, Base: "/prices?" + q.values("fx_page").Encode()}}

	slices.Sort(currencies)
	v.Currencies = slices.Compact(currencies)
	return v, nil
}

// pricesPage is GET /prices: reference prices and exchange rates in force
// today, their history, and the forms that add new dated samples.
func (s *Server) pricesPage(c echo.Context) error {
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	v.Page = s.page(c, "prices.title")
	return s.render(c, http.StatusOK, v.Page, web.Prices(v))
}

// createReferencePrice is POST /prices/reference: every bad field is named
// beside its input at once (422, input kept, nothing saved); a stored price
// redirects back to the page.
func (s *Server) createReferencePrice(c echo.Context) error {
	values, err := formValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	p := market.ReadReferencePrice(r, s.latestDay())
	f := web.RefPriceForm{Item: r.Raw("item"), Currency: p.Currency, Unit: r.Raw("unit"), UnitPrice: r.Raw("unit_price"),
		AsOf: r.Raw("as_of"), Source: p.Source, Errors: r.Errs}
	if r.OK() {
		_, err := s.store.CreateReferencePrice(c.Request().Context(), s.actor(c), p)
		switch {
		case errors.Is(err, store.ErrReferencePriceExists):
			r.Fail("as_of", "prices.reference.exists")
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/prices", "ok", "prices.reference.created")
		}
	}
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	f.Units = pricesRefUnits(f.Item)
	v.RefForm = f
	v.Page = s.page(c, "prices.title")
	return s.render(c, http.StatusUnprocessableEntity, v.Page, web.Prices(v))
}

// createFXRate is POST /prices/fx: like createReferencePrice, for a dated
// exchange rate (1 base = rate quote).
func (s *Server) createFXRate(c echo.Context) error {
	values, err := formValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	fx := market.ReadFXRate(r, s.latestDay())
	f := web.FXRateForm{Base: fx.Base, Quote: fx.Quote, Rate: r.Raw("rate"), AsOf: r.Raw("as_of"), Source: fx.Source,
		Errors: r.Errs}
	if r.OK() {
		_, err := s.store.CreateFXRate(c.Request().Context(), s.actor(c), fx)
		switch {
		case errors.Is(err, store.ErrFXRateExists):
			r.Fail("as_of", "prices.fx.exists")
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/prices", "ok", "prices.fx.created")
		}
	}
	v, err := s.pricesView(c)
	if err != nil {
		return err
	}
	v.FXForm = f
	v.Page = s.page(c, "prices.title")
	return s.render(c, http.StatusUnprocessableEntity, v.Page, web.Prices(v))
}
