package tcoapi

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// The bill check API (docs/RULES.md §23): POST /api/v1/bills/check takes a
// quote exactly as the evaluation API does and a vendor's bill for one
// calendar month, and answers the bill priced again, line by line, by the
// quote's rules:
//
//	{"quote": {…}, "fx_rate": "…", "reference_prices": [{…}],
//	 "bill": {"month": "2026-11", "currency": "EUR", "prices_include_tax": true,
//	   "instances": 1, "lines": [{"item": "compute_hourly", "quantity": "200",
//	     "amount": "94.20", "description": "…"}]}}
//
// It goes through the evaluation's decoder (the same walker reads the
// quote and the reference prices), error paths and messages. Required:
// quote, bill, bill.month, bill.currency, bill.prices_include_tax,
// bill.lines and each line's item, quantity and amount; bill.instances is
// 1 when absent. fx_rate converts the quote's currency into the bill's:
// when it is omitted and the currencies differ, the server's rate in force
// on the month's last day is used; reference prices are in the quote's
// currency unless they name another, converted at the rate in force on
// that day too.

// BillRequest is the decoded body of POST /api/v1/bills/check.
type BillRequest struct {
	// Quote is quote.
	Quote tco.Quote
	// Bill is bill.
	Bill billcheck.Bill
	// FXRate is fx_rate, quote currency → bill currency, as sent.
	FXRate decimal.NullDecimal
	// ReferencePrices is reference_prices as sent, not yet converted.
	ReferencePrices []tco.ReferencePrice
}

// BillResponse is the 200 body of POST /api/v1/bills/check. Money is in
// the bill's currency with at least 2 decimals, more where the exact
// amount has more (a billed amount may carry up to 6); quantities, the
// allowance and the rate are exact. A figure that does not exist is null.
type BillResponse struct {
	// Month is the bill's month, YYYY-MM (month).
	Month string `json:"month"`
	// Days is the month's number of days D (days).
	Days int `json:"days"`
	// Currency is the bill's (currency).
	Currency string `json:"currency"`
	// FXRate is the rate used, quote → bill currency (fx_rate).
	FXRate string `json:"fx_rate"`
	// Lines are the checked lines in the bill's order (lines).
	Lines []BillLine `json:"lines"`
	// BilledTotal is every line's billed amount (billed_total).
	BilledTotal string `json:"billed_total"`
	// ExpectedTotal is every expected amount (expected_total).
	ExpectedTotal string `json:"expected_total"`
	// OverchargeTotal is the variances of the overcharged lines and the
	// lines charged though included (overcharge_total).
	OverchargeTotal string `json:"overcharge_total"`
	// UnderchargeTotal is the variances of the undercharged lines, ≤ 0
	// (undercharge_total).
	UnderchargeTotal string `json:"undercharge_total"`
	// UnquotedTotal is what was billed for lines the quote does not price
	// (unquoted_total).
	UnquotedTotal string `json:"unquoted_total"`
}

// BillLine is one entry of BillResponse.Lines.
type BillLine struct {
	// Item is the bill item (item).
	Item string `json:"item"`
	// Quantity is the billed quantity (quantity).
	Quantity string `json:"quantity"`
	// Billed is the billed amount (billed).
	Billed string `json:"billed"`
	// Expected is what the quote's rules charge, or null (expected).
	Expected *string `json:"expected"`
	// Allowance is the free allowance the line used, or null (allowance).
	Allowance *string `json:"allowance"`
	// Variance is billed − expected, or null (variance).
	Variance *string `json:"variance"`
	// Verdict names the line (verdict).
	Verdict string `json:"verdict"`
	// ReferenceExpected is what a reference price would charge for an
	// unconfirmed line, or null (reference_expected).
	ReferenceExpected *string `json:"reference_expected"`
	// Description is the vendor's text, or null (description).
	Description *string `json:"description"`
}

// moneyText writes an amount with at least two decimal places and more
// only where the exact amount has more: 94.2 → "94.20", 0.123456 →
// "0.123456".
func moneyText(d decimal.Decimal) string {
	if money.Places(d) > 2 {
		return money.String(d)
	}
	return money.Fixed(d, 2)
}

func nullMoney(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := moneyText(d.Decimal)
	return &s
}

// NewBillResponse renders a checked bill in the wire format.
func NewBillResponse(r billcheck.Result) BillResponse {
	out := BillResponse{
		Month:            billcheck.MonthText(r.Month),
		Days:             r.Days,
		Currency:         r.Currency,
		FXRate:           money.String(r.FXRate),
		Lines:            make([]BillLine, len(r.Lines)),
		BilledTotal:      moneyText(r.BilledTotal),
		ExpectedTotal:    moneyText(r.ExpectedTotal),
		OverchargeTotal:  moneyText(r.OverchargeTotal),
		UnderchargeTotal: moneyText(r.UnderchargeTotal),
		UnquotedTotal:    moneyText(r.UnquotedTotal),
	}
	for i, l := range r.Lines {
		out.Lines[i] = BillLine{
			Item:              string(l.Item),
			Quantity:          money.String(l.Quantity),
			Billed:            moneyText(l.Billed),
			Expected:          nullMoney(l.Expected),
			Allowance:         nullExact(l.Allowance),
			Variance:          nullMoney(l.Variance),
			Verdict:           string(l.Verdict),
			ReferenceExpected: nullMoney(l.ReferenceExpected),
		}
		if l.Description != "" {
			d := l.Description
			out.Lines[i].Description = &d
		}
	}
	return out
}

// DecodeBill parses a bill check body, every decoding problem at once as
// Decode does; the bill's and the quote's rules are checked by
// billcheck.Validate afterwards.
func DecodeBill(body []byte) (BillRequest, []FieldError) {
	var r Request
	// The defaults, which also stand for a bill absent or not an object,
	// so that its absence is not also "quote.tax_rate required" (a bill
	// without tax) on its account.
	bill := billcheck.Bill{Instances: 1, PricesIncludeTax: true}
	hasBill := false
	errs := readBody(body, false, &r, func(w *walker, path, key string, v *node) bool {
		if key != "bill" {
			return false
		}
		hasBill = v.Kind != kindNull
		w.bill(path, v, &bill)
		return true
	}, func(w *walker, hasQuote bool) {
		w.require("quote", hasQuote)
		w.require("bill", hasBill)
	})
	return BillRequest{Quote: r.Quote, Bill: bill, FXRate: r.FXRate, ReferencePrices: r.ReferencePrices}, errs
}

// bill reads the bill into b, which holds the defaults: instances 1 when
// absent.
func (w *walker) bill(path string, n *node, b *billcheck.Bill) {
	var hasMonth, hasCurrency, hasTax, hasLines bool
	w.object(path, n, func(path, key string, v *node) bool {
		present := v.Kind != kindNull
		switch key {
		case "month":
			hasMonth = present
			s := w.str(path, v)
			if v.Kind == kindString {
				if m, ok := billcheck.ParseMonth(s); ok {
					b.Month = m
				} else {
					w.add(path, tco.CodeInvalidMonth)
				}
			}
		case "currency":
			b.Currency = w.str(path, v)
			hasCurrency = present
		case "prices_include_tax":
			if t := w.boolean(path, v); t != nil {
				b.PricesIncludeTax = *t
			} else {
				// Missing or wrong type, reported here; not also
				// "quote.tax_rate required" on its account.
				b.PricesIncludeTax = true
			}
			hasTax = present
		case "instances":
			if i, ok := w.integer(path, v, 1, tco.MaxInstances); ok {
				b.Instances = i
			}
		case "lines":
			hasLines = present
			w.array(path, v, billcheck.MaxLines, func(p string, e *node) {
				var l billcheck.Line
				w.billLine(p, e, &l)
				b.Lines = append(b.Lines, l)
			})
		default:
			return false
		}
		return true
	})
	if n.Kind != kindObject {
		return
	}
	// No safe defaults: a wrong month misstates every allowance by the day,
	// a wrong currency or tax basis every amount.
	w.require(join(path, "month"), hasMonth)
	w.require(join(path, "currency"), hasCurrency)
	w.require(join(path, "prices_include_tax"), hasTax)
	w.require(join(path, "lines"), hasLines)
}

// billLine reads one line of a bill.
func (w *walker) billLine(path string, n *node, l *billcheck.Line) {
	var hasItem, hasQuantity, hasAmount bool
	w.object(path, n, func(path, key string, v *node) bool {
		present := v.Kind != kindNull
		switch key {
		case "item":
			l.Item = billcheck.Item(w.str(path, v))
			hasItem = present
		case "quantity":
			l.Quantity = w.decOrZero(path, v)
			hasQuantity = present
		case "amount":
			l.Amount = w.decOrZero(path, v)
			hasAmount = present
		case "description":
			l.Description = w.str(path, v)
		default:
			return false
		}
		return true
	})
	if n.Kind != kindObject {
		return
	}
	// A missing amount is not a free line, nor a missing quantity none used.
	w.require(join(path, "item"), hasItem)
	w.require(join(path, "quantity"), hasQuantity)
	w.require(join(path, "amount"), hasAmount)
}

// BillCheck decodes a bill check body, validates it (every bad field at
// once, as Evaluate does), fills in the held exchange rate in force on the
// bill month's last day when fx_rate is omitted and the currencies differ,
// converts reference prices sent in another currency than the quote's at
// the rate in force that day, and checks the bill with billcheck.Check.
// It stores nothing; today is not used (the month names the day). err is
// only a failure of lookup (HTTP 500).
func BillCheck(body []byte, lookup FXLookup, _ time.Time) (BillResponse, []FieldError, error) {
	req, decErrs := DecodeBill(body)
	rate, err := req.heldRate(lookup)
	if err != nil {
		return BillResponse{}, nil, err
	}
	errs := mergeErrors(decErrs, validateBill(req, rate, decErrs))
	if len(errs) > 0 {
		return BillResponse{}, errs, nil
	}
	day := billcheck.MonthEnd(req.Bill.Month)
	refs, err := convertReferences(req.ReferencePrices, req.Quote.Currency, lookup, day)
	if err != nil {
		return BillResponse{}, nil, err
	}
	res, err := billcheck.Check(req.Quote, req.Bill, billcheck.Options{FXRate: rate.Decimal, ReferencePrices: refs})
	if err != nil {
		// Unreachable: the same input just validated, and conversion only
		// multiplies valid prices by valid rates.
		return BillResponse{}, nil, err
	}
	return NewBillResponse(res), nil, nil
}

// heldRate is the rate that converts the quote's currency into the bill's:
// fx_rate as sent, else, when the currencies differ, the server's dated
// rate from lookup in force on the last day of the bill's month; not valid
// when there is none.
func (r *BillRequest) heldRate(lookup FXLookup) (decimal.NullDecimal, error) {
	q, b := r.Quote.Currency, r.Bill.Currency
	if r.FXRate.Valid || lookup == nil || r.Bill.Month.IsZero() || q == b ||
		!money.IsCurrency(q) || !money.IsCurrency(b) {
		return r.FXRate, nil
	}
	fx, ok, err := lookup(q, b, billcheck.MonthEnd(r.Bill.Month))
	if err != nil || !ok {
		return decimal.NullDecimal{}, err
	}
	return decimal.NewNullDecimal(fx.Rate), nil
}

// validateBill checks a bill check request as sent with rate, the rate to
// use: a sent fx_rate is positive, and 1 when the quote and the bill share
// their currency (as the evaluation's is); then the check's rules
// (billcheck.Validate) and the request's own rules for reference prices. A
// field is named once, for its first problem. Without a month the held
// rate cannot be looked up, so its absence is not named.
func validateBill(req BillRequest, rate decimal.NullDecimal, decErrs []FieldError) []FieldError {
	var errs []FieldError
	if fx := req.FXRate; fx.Valid && !hasField(decErrs, "fx_rate") {
		switch {
		case fx.Decimal.Sign() <= 0:
			errs = append(errs, tco.NewFieldError("fx_rate", tco.CodeMustBePositive))
		case req.Quote.Currency != "" && req.Quote.Currency == req.Bill.Currency && !fx.Decimal.Equal(decimal.New(1, 0)):
			// Worded for a bill: the currencies compared are the quote's
			// and the bill's.
			errs = append(errs, FieldError{Field: "fx_rate", Code: tco.CodeFXRateNotOne, MessageID: "err.bill.fx_rate_not_one"})
		}
	}
	for _, e := range billcheck.Validate(req.Quote, req.Bill, billcheck.Options{FXRate: rate.Decimal, ReferencePrices: req.ReferencePrices}) {
		if e.Code == tco.CodeFXRateRequired && req.Bill.Month.IsZero() || hasField(errs, e.Field) {
			continue
		}
		errs = append(errs, e)
	}
	return checkReferences(errs, req.ReferencePrices, req.Quote.Currency, decErrs)
}
