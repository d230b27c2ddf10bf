package web

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// PriceOption is one choice of a select on the prices page.
type PriceOption struct {
	Value   string
	LabelID string
}

// RefPriceRow is one reference price as the prices page shows it.
type RefPriceRow struct {
	ID          int64
	Item        string
	ItemLabelID string
	UnitLabelID string
	Currency    string
	UnitPrice   decimal.Decimal
	AsOf        time.Time
	Source      string
	// Stale marks a sample older than the quarter editors re-check prices in.
	Stale bool
}

// RefPriceGroup is the reference prices in force in one currency.
type RefPriceGroup struct {
	Currency string
	Rows     []RefPriceRow
}

// FXRateRow is one exchange rate as the prices page shows it: 1 Base = Rate Quote.
type FXRateRow struct {
	ID     int64
	Base   string
	Quote  string
	Rate   decimal.Decimal
	AsOf   time.Time
	Source string
	Stale  bool
}

// RefPriceForm is the state of the add-reference-price form.
type RefPriceForm struct {
	Item      string
	Currency  string
	Unit      string
	UnitPrice string
	AsOf      string
	Source    string
	// Units are the units the chosen item may be priced in.
	Units  []PriceOption
	Errors Errors
}

// FXRateForm is the state of the add-exchange-rate form.
type FXRateForm struct {
	Base   string
	Quote  string
	Rate   string
	AsOf   string
	Source string
	Errors Errors
}

// PricesPager is the pagination of one of several lists on a page: its page
// number travels in its own query parameter, and its links return to the
// list's anchor.
type PricesPager struct {
	Pager
	// Param is the query parameter of the page number.
	Param string
	// Anchor is the id of the list, without "#".
	Anchor string
}

// URL is the link to page n of the list.
func (p PricesPager) URL(n int) string {
	sep := "?"
	if strings.Contains(p.Base, "?") {
		sep = "&"
	}
	u := p.Base + sep + p.Param + "=" + strconv.Itoa(n)
	if p.Anchor != "" {
		u += "#" + p.Anchor
	}
	return u
}

// PricesParam is a query parameter a filter form carries along unchanged.
type PricesParam struct {
	Name  string
	Value string
}

// PricesView is the view model of the reference prices and exchange rates page.
type PricesView struct {
	Page Page
	// Today is the day (UTC, YYYY-MM-DD) the current lists are in force on.
	Today string
	// Items are the twelve hidden-cost items in table order.
	Items []PriceOption
	// Currencies are suggestions for the currency inputs.
	Currencies []string

	RefCurrent  []RefPriceGroup
	RefHistory  []RefPriceRow
	RefPager    PricesPager
	RefItem     string // history filter
	RefCurrency string // history filter
	// RefKeep is the state of the other list, kept by the reference filter.
	RefKeep []PricesParam
	RefForm RefPriceForm

	FXCurrent []FXRateRow
	FXHistory []FXRateRow
	FXPager   PricesPager
	FXBase    string // history filter
	FXQuote   string // history filter
	// FXKeep is the state of the other list, kept by the exchange-rate filter.
	FXKeep []PricesParam
	FXForm FXRateForm
}

// priceText shows a unit price with its currency and every decimal place it
// has (at least two): reference prices such as 0.000123 per GB are never
// rounded for display.
func priceText(ctx context.Context, d decimal.Decimal, currency string) string {
	places := int32(max(2, money.Places(d)))
	return money.FormatPlaces(d, currency, Lang(ctx), places)
}

// rateText shows an exchange rate with every decimal place it has.
func rateText(d decimal.Decimal) string { return money.Group(money.String(d)) }

// priceDay formats a date as YYYY-MM-DD.
func priceDay(t time.Time) string { return t.Format(time.DateOnly) }

// priceUnitLabels lists the labels of units, separated for the reader's language.
func priceUnitLabels(ctx context.Context, units []PriceOption) string {
	sep := ", "
	if Lang(ctx) == "zh-CN" {
		sep = "、"
	}
	parts := make([]string, len(units))
	for i, u := range units {
		parts[i] = T(ctx, u.LabelID)
	}
	return strings.Join(parts, sep)
}

// PricesQuery is the state of the page's two history lists, from the URL.
type PricesQuery struct {
	RefItem, RefCurrency string
	RefPage              int
	FXBase, FXQuote      string
	FXPage               int
}

// ReadPricesQuery reads the list filters; a value that names no item or
// currency is ignored rather than refused, like every list filter.
func ReadPricesQuery(query url.Values) PricesQuery {
	q := PricesQuery{
		RefItem:     query.Get("ref_item"),
		RefCurrency: PricesCurrency(query.Get("ref_currency")),
		FXBase:      PricesCurrency(query.Get("fx_base")),
		FXQuote:     PricesCurrency(query.Get("fx_quote")),
	}
	if _, ok := catalog.LookupItem(catalog.ItemKey(q.RefItem)); !ok {
		q.RefItem = ""
	}
	for _, p := range []*string{&q.RefCurrency, &q.FXBase, &q.FXQuote} {
		if !money.IsCurrency(*p) {
			*p = ""
		}
	}
	q.RefPage, _ = strconv.Atoi(query.Get("ref_page"))
	q.RefPage = max(q.RefPage, 1)
	q.FXPage, _ = strconv.Atoi(query.Get("fx_page"))
	q.FXPage = max(q.FXPage, 1)
	return q
}

// Values encodes the list state, leaving out the page parameter named skip
// and every empty value.
func (q PricesQuery) Values(skip string) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" && k != skip {
			v.Set(k, s)
		}
	}
	set("ref_item", q.RefItem)
	set("ref_currency", q.RefCurrency)
	set("fx_base", q.FXBase)
	set("fx_quote", q.FXQuote)
	if q.RefPage > 1 {
		set("ref_page", strconv.Itoa(q.RefPage))
	}
	if q.FXPage > 1 {
		set("fx_page", strconv.Itoa(q.FXPage))
	}
	return v
}

// Keep lists the given parameters of the list state as hidden fields.
func (q PricesQuery) Keep(names ...string) []PricesParam {
	v := q.Values("")
	var out []PricesParam
	for _, n := range names {
		if s := v.Get(n); s != "" {
			out = append(out, PricesParam{Name: n, Value: s})
		}
	}
	return out
}

// PricesCurrency trims a typed currency code and upper-cases it, so "eur"
// typed into a form means EUR; validity is checked by money.IsCurrency.
func PricesCurrency(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// PricesRefUnits are the units item may be priced in, as select options (the
// table's first item's when item is unknown).
func PricesRefUnits(item string) []PriceOption {
	it, ok := catalog.LookupItem(catalog.ItemKey(item))
	if !ok {
		it = catalog.Items[0]
	}
	out := make([]PriceOption, len(it.Units))
	for i, u := range it.Units {
		out[i] = PriceOption{Value: string(u), LabelID: it.UnitLabelID(u)}
	}
	return out
}

// currencySuggestions are offered in every currency input: the currencies
// the guides quote in (docs/RULES.md §1.5).
var currencySuggestions = []string{"CNY", "EUR", "USD"}

// PricesRecords is everything the prices page lists for the filters of
// Query: the reference prices and exchange rates in force on Today, and
// one page of each history with its total.
type PricesRecords struct {
	Query PricesQuery
	Today time.Time
	// Item is the item the add form preselects (?item=); one that names
	// no item is the table's first.
	Item                   string
	RefCurrent, RefHistory []market.ReferencePrice
	RefTotal               int
	FXCurrent, FXHistory   []market.FXRate
	FXTotal                int
	// PerPage is the length of a page of either history.
	PerPage int
}

// NewPricesView builds both sections of the prices page, with empty add
// forms: the prices in force grouped by currency, the histories with
// their pagers, and the currencies the inputs suggest.
func NewPricesView(in PricesRecords) PricesView {
	q := in.Query
	staleBefore := tco.StaleBefore(in.Today)
	v := PricesView{Today: in.Today.Format(time.DateOnly), RefItem: q.RefItem, RefCurrency: q.RefCurrency,
		FXBase: q.FXBase, FXQuote: q.FXQuote,
		RefKeep: q.Keep("fx_base", "fx_quote", "fx_page"), FXKeep: q.Keep("ref_item", "ref_currency", "ref_page")}
	for _, it := range catalog.Items {
		v.Items = append(v.Items, PriceOption{Value: string(it.Key), LabelID: it.LabelID})
	}
	item := in.Item
	if _, ok := catalog.LookupItem(catalog.ItemKey(item)); !ok {
		item = string(catalog.Items[0].Key)
	}
	v.RefForm = RefPriceForm{Item: item, Units: PricesRefUnits(item), Errors: Errors{}}
	v.FXForm = FXRateForm{Errors: Errors{}}

	currencies := slices.Clone(currencySuggestions)
	refRow := func(r market.ReferencePrice) RefPriceRow {
		unit := catalog.Unit(r.Unit).LabelID()
		if it, ok := catalog.LookupItem(catalog.ItemKey(r.Item)); ok {
			unit = it.UnitLabelID(catalog.Unit(r.Unit))
		}
		return RefPriceRow{ID: r.ID, Item: r.Item, ItemLabelID: "item." + r.Item,
			UnitLabelID: unit, Currency: r.Currency, UnitPrice: r.UnitPrice,
			AsOf: r.AsOf, Source: r.Source, Stale: r.AsOf.Before(staleBefore)}
	}
	fxRow := func(r market.FXRate) FXRateRow {
		return FXRateRow{ID: r.ID, Base: r.Base, Quote: r.Quote, Rate: r.Rate, AsOf: r.AsOf,
			Source: r.Source, Stale: r.AsOf.Before(staleBefore)}
	}
	for _, r := range in.RefCurrent {
		if n := len(v.RefCurrent); n == 0 || v.RefCurrent[n-1].Currency != r.Currency {
			v.RefCurrent = append(v.RefCurrent, RefPriceGroup{Currency: r.Currency})
			currencies = append(currencies, r.Currency)
		}
		g := &v.RefCurrent[len(v.RefCurrent)-1]
		g.Rows = append(g.Rows, refRow(r))
	}
	for _, r := range in.RefHistory {
		v.RefHistory = append(v.RefHistory, refRow(r))
	}
	v.RefPager = PricesPager{Param: "ref_page", Anchor: "ref-history",
		Pager: Pager{Page: q.RefPage, PerPage: in.PerPage, Total: in.RefTotal, Base: "/prices?" + q.Values("ref_page").Encode()}}
	for _, r := range in.FXCurrent {
		v.FXCurrent = append(v.FXCurrent, fxRow(r))
		currencies = append(currencies, r.Base, r.Quote)
	}
	for _, r := range in.FXHistory {
		v.FXHistory = append(v.FXHistory, fxRow(r))
	}
	v.FXPager = PricesPager{Param: "fx_page", Anchor: "fx-history",
		Pager: Pager{Page: q.FXPage, PerPage: in.PerPage, Total: in.FXTotal, Base: "/prices?" + q.Values("fx_page").Encode()}}

	slices.Sort(currencies)
	v.Currencies = slices.Compact(currencies)
	return v
}
