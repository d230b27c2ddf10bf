package tcoapi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Response is the 200 body of POST /api/v1/tco/evaluate. Every decimal is a
// JSON string: money with 2 decimals, hours with 2, per-hour rates, cost per
// million tokens and hidden_share with 4. A figure that does not exist is
// null. fx_date and vram_floor_gb appear only when known.
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
	// HiddenShare is (hidden + one-off) ÷ tco, 4 dp (hidden_share).
	HiddenShare *string `json:"hidden_share"`
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
// given, null when none. reference_unit_price and reference_amount are
// present on unconfirmed lines only: the reference price used for the
// pessimistic TCO and that line's amount at it, or null when no reference
// applies.
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
}

// MarshalJSON writes the line with the reference fields only when it is
// unconfirmed.
func (l Line) MarshalJSON() ([]byte, error) {
	base := lineJSON{l.Item, l.Status, l.Quantity, l.Unit, l.UnitPrice, l.Amount}
	if l.Status != string(catalog.StatusUnconfirmed) {
		return json.Marshal(base)
	}
	return json.Marshal(unconfirmedLineJSON{base, l.ReferenceUnitPrice, l.ReferenceAmount})
}

// UnmarshalJSON reads a line written by MarshalJSON.
func (l *Line) UnmarshalJSON(b []byte) error {
	var u unconfirmedLineJSON
	if err := json.Unmarshal(b, &u); err != nil {
		return err
	}
	*l = Line{u.Item, u.Status, u.Quantity, u.Unit, u.UnitPrice, u.Amount, u.ReferenceUnitPrice, u.ReferenceAmount}
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
		ReportCurrency:       r.ReportCurrency,
		FXRate:               money.String(r.FXRate),
		ChosenMode:           string(r.ChosenMode),
		BreakEvenHours:       nullFixed(r.BreakEvenHours, 2),
		BreakEvenMonths:      nullFixed(r.BreakEvenMonths, 2),
		Modes:                make([]Mode, len(r.Modes)),
		ComputeTotal:         fixed(r.ComputeTotal, 2),
		HiddenTotal:          fixed(r.HiddenTotal, 2),
		OneOffTotal:          fixed(r.OneOffTotal, 2),
		TCO:                  fixed(r.TCO, 2),
		TCOPessimistic:       fixed(r.TCOPessimistic, 2),
		HiddenShare:          nullFixed(r.HiddenShare, 4),
		EffectivePerGPUHour:  fixed(r.EffectivePerGPUHour, 4),
		PerReferenceGPUHour:  nullFixed(r.PerReferenceGPUHour, 4),
		CostPerMillionTokens: nullFixed(r.CostPerMillionTokens, 4),
		Lines:                make([]Line, len(r.Lines)),
		Flags:                make([]string, len(r.Flags)),
		VRAMFloorGB:          nullFixed(r.VRAMFloorGB, 2),
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
// from lookup when fx_rate is omitted and the currencies differ, and prices
// it with tco.Evaluate for evaluation date today. Bad input returns every
// field error at once (HTTP 422); err is only a failure of lookup (HTTP 500).
func Evaluate(body []byte, lookup FXLookup, today time.Time) (Response, []FieldError, error) {
	req, decErrs := Decode(body)
	opts := req.Options(today)
	if !opts.FXRate.Valid && lookup != nil && req.Quote.Currency != "" &&
		req.ReportCurrency != "" && req.ReportCurrency != req.Quote.Currency &&
		money.IsCurrency(req.Quote.Currency) && money.IsCurrency(req.ReportCurrency) {
		fx, ok, err := lookup(req.Quote.Currency, req.ReportCurrency, today)
		if err != nil {
			return Response{}, nil, err
		}
		if ok {
			opts.FXRate = decimal.NewNullDecimal(fx.Rate)
			opts.FXDate = fx.Date
		}
	}
	errs := mergeErrors(decErrs, tco.Validate(req.Quote, req.Profile, opts))
	if len(errs) > 0 {
		return Response{}, errs, nil
	}
	res, err := tco.Evaluate(req.Quote, req.Profile, opts)
	if err != nil {
		// Unreachable: the same input just validated.
		return Response{}, nil, err
	}
	return NewResponse(res), nil, nil
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

// APIError is one entry of the 422 body.
type APIError struct {
	// Field is the JSON path of the bad value; "" is the whole body.
	Field string `json:"field"`
	// Code is the stable machine code.
	Code string `json:"code"`
	// Message is the localised explanation.
	Message string `json:"message"`
}

// ErrorResponse is the 422 body: {"errors": [{"field", "code", "message"}]}.
type ErrorResponse struct {
	// Errors names every bad field.
	Errors []APIError `json:"errors"`
}

// Messages renders field errors with t for the 422 body.
func Messages(errs []FieldError, t Translator) ErrorResponse {
	out := ErrorResponse{Errors: make([]APIError, len(errs))}
	for i, e := range errs {
		out.Errors[i] = APIError{Field: e.Field, Code: e.Code, Message: t(e.MessageID, e.Args)}
	}
	return out
}
