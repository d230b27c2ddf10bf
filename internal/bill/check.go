package bill

import (
	"errors"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

// ErrQuoteNotInReport says a bill names a quote version the report did
// not compare.
var ErrQuoteNotInReport = errors.New("bill: the quote is not one of the report's")

// QuoteOf is the quote version a bill is checked against as the report
// froze it, as the check engine reads it (docs/RULES.md §23.3: an
// "included" answer not in writing goes in as unconfirmed), with the
// report's reference prices in the quote's currency.
func QuoteOf(snap report.Snapshot, quoteID int64) (report.Row, tco.Quote, []tco.ReferencePrice, error) {
	row, ok := snap.RowOf(quoteID)
	if !ok {
		return report.Row{}, tco.Quote{}, nil, ErrQuoteNotInReport
	}
	g := row.GPU
	q := row.Quote.AsQuote(g).Engine(market.GPUModel{ID: g.ID, Vendor: g.Vendor, Name: g.Name, VRAMGB: g.VRAMGB, Interconnect: g.Interconnect})
	var refs []tco.ReferencePrice
	for _, rp := range snap.ReferencePrices {
		refs = append(refs, tco.ReferencePrice{Item: catalog.ItemKey(rp.Item), Unit: catalog.Unit(rp.Unit), UnitPrice: rp.UnitPrice,
			Currency: rp.Currency, Source: tco.ReferenceSource(rp.Source), QuoteID: rp.QuoteID})
	}
	rates := map[[2]string]decimal.Decimal{}
	for _, r := range snap.ReferenceRates {
		rates[[2]string{r.Base, r.Quote}] = r.Rate
	}
	refs = tco.ConvertReferences(refs, q.Currency, func(from, to string) (decimal.Decimal, bool) {
		r, ok := rates[[2]string{from, to}]
		return r, ok
	})
	return row, q, refs, nil
}

// Check checks a stored (or about to be stored) bill against its quote in
// the report's snapshot.
func Check(snap report.Snapshot, quoteID int64, b billcheck.Bill, fx decimal.Decimal) (billcheck.Result, report.Row, error) {
	row, q, refs, err := QuoteOf(snap, quoteID)
	if err != nil {
		return billcheck.Result{}, report.Row{}, err
	}
	res, err := billcheck.Check(q, b, billcheck.Options{FXRate: fx, ReferencePrices: refs})
	return res, row, err
}

// Validate names every problem of a bill against its quote (the paths of
// billcheck.Validate).
func Validate(snap report.Snapshot, quoteID int64, b billcheck.Bill, fx decimal.Decimal) ([]tco.FieldError, error) {
	_, q, refs, err := QuoteOf(snap, quoteID)
	if err != nil {
		return nil, err
	}
	return billcheck.Validate(q, b, billcheck.Options{FXRate: fx, ReferencePrices: refs}), nil
}

// MonthlyBudget is the report's confirmed and pessimistic TCO of a quote
// over its horizon spread over its months (docs/RULES.md §23.5), in the
// report's currency; false when the report priced no figures for it.
func MonthlyBudget(snap report.Snapshot, row report.Row) (confirmed, pessimistic decimal.Decimal, ok bool) {
	if row.Result == nil {
		return decimal.Decimal{}, decimal.Decimal{}, false
	}
	m := snap.Profile.Months
	return billcheck.MonthlyBudget(row.Result.TCO, m), billcheck.MonthlyBudget(row.Result.TCOPessimistic, m), true
}
