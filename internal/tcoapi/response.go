package tcoapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/apierror"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Response is the 200 body of POST /api/v1/tco/evaluate. Every decimal is a
// JSON string: money with 2 decimals, hours with 2, per-hour rates, cost per
// million tokens, hidden_share and hidden_share_pessimistic with 4. A
// figure that does not exist is null. fx_date and vram_floor_gb appear only
// when known; pessimistic_unpriced is always an array.
type Response struct {
	// ReportCurrency is the currency of every amount (report_currency).
	ReportCurrency string `json:"report_currency"`
	// FXRate is the rate used, quote → report currency (fx_rate).
	FXRate string `json:"fx_rate"`
	// FXDate is the rate's date, when known (fx_date).
	FXDate string `json:"fx_date,omitempty"`
	// ChosenMode is the allowed mode with the lowest TCO (chosen_mode).
	ChosenMode string `json:"chosen_mode"`
	// BreakEvenHours is monthly ÷ hourly, 2 dp (break_even_hours).
	BreakEvenHours *string `json:"break_even_hours"`
	// BreakEvenMonths is yearly ÷ monthly, 2 dp (break_even_months).
	BreakEvenMonths *string `json:"break_even_months"`
	// Modes lists every mode the quote prices (modes).
	Modes []Mode `json:"modes"`
	// ComputeTotal is the chosen mode's compute amount (compute_total).
	ComputeTotal string `json:"compute_total"`
	// HiddenTotal is the monthly hidden lines over the horizon (hidden_total).
	HiddenTotal string `json:"hidden_total"`
	// OneOffTotal is the one-off lines (one_off_total).
	OneOffTotal string `json:"one_off_total"`
	// TCO is the confirmed total cost of ownership (tco).
	TCO string `json:"tco"`
	// TCOPessimistic adds unconfirmed lines at reference prices (tco_pessimistic).
	TCOPessimistic string `json:"tco_pessimistic"`
	// PessimisticUnpriced are the items TCOPessimistic leaves out, in table
	// order: unconfirmed, used (quantity above 0; the bundled add-on
	// always) and without a reference price of either kind; never null
	// (pessimistic_unpriced).
	PessimisticUnpriced []string `json:"pessimistic_unpriced"`
	// HiddenShare is (hidden + one-off) ÷ tco, 4 dp (hidden_share).
	HiddenShare *string `json:"hidden_share"`
	// HiddenSharePessimistic is (tco_pessimistic − compute_total) ÷
	// tco_pessimistic, 4 dp (hidden_share_pessimistic).
	HiddenSharePessimistic *string `json:"hidden_share_pessimistic"`
	// EffectivePerGPUHour is tco ÷ GPU-hours used, 4 dp (effective_per_gpu_hour).
	EffectivePerGPUHour string `json:"effective_per_gpu_hour"`
	// PerReferenceGPUHour is effective ÷ min(ratio, 1), 4 dp (per_reference_gpu_hour).
	PerReferenceGPUHour *string `json:"per_reference_gpu_hour"`
	// CostPerMillionTokens is 4 dp (cost_per_million_tokens).
	CostPerMillionTokens *string `json:"cost_per_million_tokens"`
	// Lines are the twelve hidden-cost lines in table order (lines).
	Lines []Line `json:"lines"`
	// Flags are the risk flags raised, never null (flags).
	Flags []string `json:"flags"`
	// VRAMFloorGB is the floor the quote was checked against, 2 dp (vram_floor_gb).
	VRAMFloorGB *string `json:"vram_floor_gb,omitempty"`
}

// Mode is one entry of Response.Modes; billable_hours_per_month is present
// for hourly and spot only.
type Mode struct {
	// Mode is hourly, monthly, yearly or spot (mode).
	Mode string `json:"mode"`
	// Status is allowed or not_allowed (status).
	Status string `json:"status"`
	// BillableHoursPerMonth is B, 2 dp (billable_hours_per_month).
	BillableHoursPerMonth *string `json:"billable_hours_per_month,omitempty"`
	// ComputeTotal is the mode's compute amount (compute_total).
	ComputeTotal string `json:"compute_total"`
	// TCO is the mode's total (tco).
	TCO string `json:"tco"`
}

// Line is one entry of Response.Lines. quantity is exact (hours of
// stopped_retention: 2 decimals); unit_price is the vendor's price as
// given, null when none. reference_unit_price, reference_amount,
// reference_source and reference_quote_id are present on unconfirmed lines
// only: the reference price used for the pessimistic TCO, that line's
// amount at it, whose price it is ("editor" or "market") and the published
// quote a market reference comes from; each null when it does not apply.
type Line struct {
	// Item is the hidden-cost item (item).
	Item string
	// Status is the line's status (status).
	Status string
	// Quantity is per instance per month, after the allowance (quantity).
	Quantity string
	// Unit is the pricing unit (unit).
	Unit string
	// UnitPrice is the vendor's price, or nil (unit_price).
	UnitPrice *string
	// Amount is the confirmed amount over the horizon, 2 dp (amount).
	Amount string
	// ReferenceUnitPrice is the reference price used (reference_unit_price).
	ReferenceUnitPrice *string
	// ReferenceAmount is the amount at the reference price (reference_amount).
	ReferenceAmount *string
	// ReferenceSource is "editor" or "market" (reference_source).
	ReferenceSource *string
	// ReferenceQuoteID is the market reference's quote (reference_quote_id).
	ReferenceQuoteID *int64
}

type lineJSON struct {
	Item      string  `json:"item"`
	Status    string  `json:"status"`
	Quantity  string  `json:"quantity"`
	Unit      string  `json:"unit"`
	UnitPrice *string `json:"unit_price"`
	Amount    string  `json:"amount"`
}

type unconfirmedLineJSON struct {
	lineJSON
	ReferenceUnitPrice *string `json:"reference_unit_price"`
	ReferenceAmount    *string `json:"reference_amount"`
	ReferenceSource    *string `json:"reference_source"`
	ReferenceQuoteID   *int64  `json:"reference_quote_id"`
}

// MarshalJSON writes the line with the reference fields only when it is
// unconfirmed.
func (l Line) MarshalJSON() ([]byte, error) {
	base := lineJSON{l.Item, l.Status, l.Quantity, l.Unit, l.UnitPrice, l.Amount}
	if l.Status != string(catalog.StatusUnconfirmed) {
		return json.Marshal(base)
	}
	return json.Marshal(unconfirmedLineJSON{base, l.ReferenceUnitPrice, l.ReferenceAmount, l.ReferenceSource, l.ReferenceQuoteID})
}

// UnmarshalJSON reads a line written by MarshalJSON.
func (l *Line) UnmarshalJSON(b []byte) error {
	var u unconfirmedLineJSON
	if err := json.Unmarshal(b, &u); err != nil {
		return err
	}
	*l = Line{Item: u.Item, Status: u.Status, Quantity: u.Quantity, Unit: u.Unit, UnitPrice: u.UnitPrice,
		Amount: u.Amount, ReferenceUnitPrice: u.ReferenceUnitPrice, ReferenceAmount: u.ReferenceAmount,
		ReferenceSource: u.ReferenceSource, ReferenceQuoteID: u.ReferenceQuoteID}
	return nil
}

func fixed(d decimal.Decimal, places int32) string { return money.Fixed(d, places) }

func nullFixed(d decimal.NullDecimal, places int32) *string {
	if !d.Valid {
		return nil
	}
	s := money.Fixed(d.Decimal, places)
	return &s
}

func nullExact(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := money.String(d.Decimal)
	return &s
}

// NewResponse renders an engine result in the wire format.
func NewResponse(r tco.Result) Response {
	out := Response{
		ReportCurrency:         r.ReportCurrency,
		FXRate:                 money.String(r.FXRate),
		ChosenMode:             string(r.ChosenMode),
		BreakEvenHours:         nullFixed(r.BreakEvenHours, 2),
		BreakEvenMonths:        nullFixed(r.BreakEvenMonths, 2),
		Modes:                  make([]Mode, len(r.Modes)),
		ComputeTotal:           fixed(r.ComputeTotal, 2),
		HiddenTotal:            fixed(r.HiddenTotal, 2),
		OneOffTotal:            fixed(r.OneOffTotal, 2),
		TCO:                    fixed(r.TCO, 2),
		TCOPessimistic:         fixed(r.TCOPessimistic, 2),
		PessimisticUnpriced:    make([]string, len(r.PessimisticUnpriced)),
		HiddenShare:            nullFixed(r.HiddenShare, 4),
		HiddenSharePessimistic: nullFixed(r.HiddenSharePessimistic, 4),
		EffectivePerGPUHour:    fixed(r.EffectivePerGPUHour, 4),
		PerReferenceGPUHour:    nullFixed(r.PerReferenceGPUHour, 4),
		CostPerMillionTokens:   nullFixed(r.CostPerMillionTokens, 4),
		Lines:                  make([]Line, len(r.Lines)),
		Flags:                  make([]string, len(r.Flags)),
		VRAMFloorGB:            nullFixed(r.VRAMFloorGB, 2),
	}
	if !r.FXDate.IsZero() {
		out.FXDate = r.FXDate.Format(DateLayout)
	}
	for i, m := range r.Modes {
		out.Modes[i] = Mode{
			Mode:                  string(m.Mode),
			Status:                string(m.Status),
			BillableHoursPerMonth: nullFixed(m.BillableHoursPerMonth, 2),
			ComputeTotal:          fixed(m.ComputeTotal, 2),
			TCO:                   fixed(m.TCO, 2),
		}
	}
	for i, l := range r.Lines {
		q := money.String(l.Quantity)
		if l.Item == catalog.ItemStoppedRetention {
			q = fixed(l.Quantity, 2) // hours: 2 decimals (docs/RULES.md §1.4)
		}
		out.Lines[i] = Line{
			Item:               string(l.Item),
			Status:             string(l.Status),
			Quantity:           q,
			Unit:               string(l.Unit),
			UnitPrice:          nullExact(l.UnitPrice),
			Amount:             fixed(l.Amount, 2),
			ReferenceUnitPrice: nullExact(l.ReferenceUnitPrice),
			ReferenceAmount:    nullFixed(l.ReferenceAmount, 2),
		}
		if l.ReferenceUnitPrice.Valid {
			src := string(l.ReferenceSource)
			if src == "" {
				src = string(tco.SourceEditor)
			}
			out.Lines[i].ReferenceSource = &src
			if l.ReferenceSource == tco.SourceMarket && l.ReferenceQuoteID != 0 {
				id := l.ReferenceQuoteID
				out.Lines[i].ReferenceQuoteID = &id
			}
		}
	}
	for i, k := range r.PessimisticUnpriced {
		out.PessimisticUnpriced[i] = string(k)
	}
	for i, f := range r.Flags {
		out.Flags[i] = string(f)
	}
	return out
}

// FXRate is a dated exchange rate the server holds.
type FXRate = tco.FX

// FXLookup returns the server's dated rate converting from → to that was
// valid on day, ok false when it has none. The HTTP layer closes over its
// request context and store.
type FXLookup func(from, to string, day time.Time) (rate FXRate, ok bool, err error)

// Evaluate decodes a request body, validates it, fills in the exchange rate
// from lookup when fx_rate is omitted and the currencies differ, converts
// reference prices sent in another currency than the quote's at the rate
// lookup holds from theirs into the quote's (a reference without one does
// not exist for the quote, docs/RULES.md §3.6), and prices it with
// tco.Evaluate for evaluation date today. Bad input returns every field
// error at once (HTTP 422); err is only a failure of lookup (HTTP 500).
func Evaluate(body []byte, lookup FXLookup, today time.Time) (Response, []FieldError, error) {
	return evaluate(body, false, lookup, today)
}

// Evaluate is tcoapi.Evaluate of the request built from the form, with its
// problems with numbers worded for the page (docs/RULES.md §12.4).
func (fr FormRequest) Evaluate(lookup FXLookup, today time.Time) (Response, []FieldError, error) {
	return evaluate(fr.Body, true, lookup, today)
}

func evaluate(body []byte, fromForm bool, lookup FXLookup, today time.Time) (Response, []FieldError, error) {
	req, decErrs := decode(body, fromForm)
	opts, err := req.heldRate(lookup, today)
	if err != nil {
		return Response{}, nil, err
	}
	errs := mergeErrors(decErrs, validate(req, opts, decErrs))
	if fromForm {
		errs = formWording(errs)
	}
	if len(errs) > 0 {
		return Response{}, errs, nil
	}
	refs, err := convertReferences(req.ReferencePrices, req.Quote.Currency, lookup, today)
	if err != nil {
		return Response{}, nil, err
	}
	opts.ReferencePrices = refs
	res, err := tco.Evaluate(req.Quote, req.Profile, opts)
	if err != nil {
		// Unreachable: the same input just validated, and conversion only
		// multiplies valid prices by valid rates.
		return Response{}, nil, err
	}
	return NewResponse(res), nil, nil
}

// heldRate is the request's engine options for evaluation date today,
// with the server's dated rate from lookup when fx_rate is omitted and the
// currencies differ (docs/RULES.md §5.2).
func (r *Request) heldRate(lookup FXLookup, today time.Time) (tco.Options, error) {
	opts := r.Options(today)
	if !opts.FXRate.Valid && lookup != nil && r.Quote.Currency != "" &&
		r.ReportCurrency != "" && r.ReportCurrency != r.Quote.Currency &&
		money.IsCurrency(r.Quote.Currency) && money.IsCurrency(r.ReportCurrency) {
		fx, ok, err := lookup(r.Quote.Currency, r.ReportCurrency, today)
		if err != nil {
			return opts, err
		}
		if ok {
			opts.FXRate = decimal.NewNullDecimal(fx.Rate)
			opts.FXDate = fx.Date
		}
	}
	return opts, nil
}

// validate checks a request as sent: the engine's rules (tco.Validate),
// then the request's own rules for reference prices, which the engine
// cannot apply once references are converted (docs/RULES.md §3.6, §12.1):
// a unit price has at most tco.MaxPlaces places and is at most
// tco.MaxAmount, and there is one reference per item, unit, currency and
// source. A field is named once, for its first problem, and a reference
// with a problem of its own (decErrs or the engine's) is not also called a
// duplicate.
func validate(req Request, opts tco.Options, decErrs []FieldError) []FieldError {
	return checkReferences(tco.Validate(req.Quote, req.Profile, opts), req.ReferencePrices, req.Quote.Currency, decErrs)
}

// checkReferences appends to errs, the engine's errors, the request's own
// rules for the reference prices refs of a quote in quoteCurrency, as
// validate describes them.
func checkReferences(errs []FieldError, refs []tco.ReferencePrice, quoteCurrency string, decErrs []FieldError) []FieldError {
	if len(refs) > tco.MaxReferencePrices {
		return errs
	}
	bad := make(map[string]bool, len(errs)+len(decErrs))
	for _, e := range decErrs {
		bad[e.Field] = true
	}
	for _, e := range errs {
		bad[e.Field] = true
	}
	hasProblem := func(path string) bool {
		for f := range bad {
			if within(f, path) {
				return true
			}
		}
		return false
	}
	type key struct {
		item     catalog.ItemKey
		unit     catalog.Unit
		currency string
		source   tco.ReferenceSource
	}
	seen := make(map[key]bool, len(refs))
	for i, r := range refs {
		path := index("reference_prices", i)
		if f := path + ".unit_price"; !bad[f] {
			switch {
			case r.UnitPrice.GreaterThan(tco.MaxAmount):
				errs = append(errs, tco.NewFieldError(f, tco.CodeTooLarge, "Max", money.String(tco.MaxAmount)))
			case money.Places(r.UnitPrice) > tco.MaxPlaces:
				errs = append(errs, tco.NewFieldError(f, tco.CodeTooManyDecimals, "Max", strconv.Itoa(tco.MaxPlaces)))
			}
			if len(errs) > 0 && errs[len(errs)-1].Field == f {
				bad[f] = true
			}
		}
		idx := catalog.ItemIndex(r.Item)
		if idx < 0 || !r.Unit.Valid() || !catalog.Items[idx].Allows(r.Unit) || hasProblem(path) {
			continue
		}
		k := key{r.Item, r.Unit, r.Currency, r.Source}
		if k.currency == "" {
			k.currency = quoteCurrency
		}
		if k.source == "" {
			k.source = tco.SourceEditor
		}
		if seen[k] {
			errs = append(errs, tco.NewFieldError(path, tco.CodeDuplicateReference, "Item", string(r.Item), "Unit", string(r.Unit)))
		}
		seen[k] = true
	}
	return errs
}

// convertReferences are refs as the engine reads them for a quote in
// quoteCurrency (tco.ConvertReferences): each currency other than the
// quote's is looked up once, at the dated rate in force today; without a
// lookup or a rate its references are left out.
func convertReferences(refs []tco.ReferencePrice, quoteCurrency string, lookup FXLookup, today time.Time) ([]tco.ReferencePrice, error) {
	rates := map[string]decimal.NullDecimal{}
	for _, r := range refs {
		if r.Currency == "" || r.Currency == quoteCurrency || lookup == nil {
			continue
		}
		if _, done := rates[r.Currency]; done {
			continue
		}
		fx, ok, err := lookup(r.Currency, quoteCurrency, today)
		if err != nil {
			return nil, err
		}
		rates[r.Currency] = decimal.NullDecimal{Decimal: fx.Rate, Valid: ok}
	}
	return tco.ConvertReferences(refs, quoteCurrency, func(from, to string) (decimal.Decimal, bool) {
		k := rates[from]
		return k.Decimal, k.Valid
	}), nil
}

// MaxErrors bounds the field errors of one response.
const MaxErrors = 100

// mergeErrors appends the validation errors to the decoding errors, leaving
// out a validation error about a field that already has a decoding error or
// lies inside one ("quote" is missing, so every quote.* rule fails too), so
// each bad field is named once, for its cause.
func mergeErrors(dec, val []FieldError) []FieldError {
	out := dec
	for _, v := range val {
		covered := false
		for _, d := range dec {
			if covered = within(v.Field, d.Field); covered {
				break
			}
		}
		if !covered {
			out = append(out, v)
		}
	}
	if len(out) > MaxErrors {
		out = out[:MaxErrors]
	}
	return out
}

// within reports whether path is ancestor or equal: "quote" holds
// "quote.lines[0].item"; "" (the body) holds everything.
func within(path, ancestor string) bool {
	if path == ancestor || ancestor == "" {
		return true
	}
	if !strings.HasPrefix(path, ancestor) {
		return false
	}
	c := path[len(ancestor)]
	return c == '.' || c == '['
}

// Translator returns the message for a message ID with template data, in
// the request's locale (the HTTP layer passes its translator).
type Translator func(messageID string, data map[string]any) string

// Messages renders field errors with t as the entries of the 422 body,
// in the API's one error shape.
func Messages(errs []FieldError, t Translator) []apierror.Error {
	out := make([]apierror.Error, len(errs))
	for i, e := range errs {
		out[i] = apierror.Error{Field: e.Field, Code: e.Code, Message: t(e.MessageID, e.Args)}
	}
	return out
}
