package tcoapi

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// FieldError is one bad field of a request; see tco.FieldError.
type FieldError = tco.FieldError

// DateLayout is the layout of dates on the wire (as_of, fx_date).
const DateLayout = "2006-01-02"

// Request is the decoded body of POST /api/v1/tco/evaluate:
//
//	{"report_currency": "EUR", "fx_rate": "1", "fx_date": "2026-03-01",
//	 "quote": {…}, "reference_prices": [{"item", "unit", "unit_price",
//	   "currency", "source", "quote_id"}],
//	 "profile": {…}}
//
// The quote's JSON fields are currency, gpu_model, gpu_count, vram_gb,
// sharing, hourly, monthly, yearly, spot_hourly, billing_granularity,
// included_mbps, included_system_disk_gb, included_data_disk_gb,
// commitment_months, early_termination_pct, deposit, deposit_refundable,
// balance_withdrawable, prices_include_tax, tax_rate, as_of and lines (each
// item, status, unit, unit_price, free_allowance, note). The profile's are
// hours_per_month, months, instances, starts_per_month, between_runs,
// resumable, spot_overhead, mbps, system_disk_gb, data_disk_gb,
// object_storage_gb, snapshot_gb, image_gb, egress_gb_per_month,
// migration_gb, public_ips, tokens_per_second_per_gpu, performance_ratio,
// task, params_billions and precision.
//
// Decimals travel as JSON strings, never as JSON numbers (a number is
// refused, named as such), read from their text, never through float64. Whole numbers (gpu_count, commitment_months, months,
// instances, starts_per_month, public_ips) are JSON numbers without a
// fraction. Unknown fields are rejected: a misspelt "hours_per_mont" that
// silently fell back to a default would price the wrong plan.
//
// A reference price's currency defaults to the quote's, its source to
// "editor"; "market" names the published quote it comes from in quote_id
// (docs/RULES.md §3.6, §12.1).
type Request struct {
	// ReportCurrency is report_currency; empty means the quote's currency.
	ReportCurrency string
	// FXRate is fx_rate, quote currency → report currency.
	FXRate decimal.NullDecimal
	// FXDate is fx_date, the date of FXRate; zero when not given.
	FXDate time.Time
	// Quote is quote.
	Quote tco.Quote
	// ReferencePrices is reference_prices as sent: each in its own currency
	// (empty: the quote's), not yet converted (see Evaluate).
	ReferencePrices []tco.ReferencePrice
	// Profile is profile.
	Profile tco.Profile
}

// Options returns the engine options of the request for evaluation date today.
func (r *Request) Options(today time.Time) tco.Options {
	return tco.Options{
		ReportCurrency:  r.ReportCurrency,
		FXRate:          r.FXRate,
		FXDate:          r.FXDate,
		ReferencePrices: r.ReferencePrices,
		Today:           today,
	}
}

// Decode parses a request body. It returns every decoding problem at once
// (syntax, types, unknown fields, missing required fields, malformed
// decimals and dates), each at its JSON path; a syntax error is one error
// at the empty path (the body). Range and domain rules are checked by
// tco.Validate afterwards.
func Decode(body []byte) (Request, []FieldError) {
	return decode(body, false)
}

// decode is Decode; fromForm says the body was built by FromForm from a
// page's form, so its problems with numbers are worded for the page.
func decode(body []byte, fromForm bool) (Request, []FieldError) {
	return decodeBody(body, fromForm, nil)
}

// decodeBody is decode; with own set, the body also carries the
// rent-or-buy API's "own" option (required), read into own.
func decodeBody(body []byte, fromForm bool, own *tco.Own) (Request, []FieldError) {
	var r Request
	hasProfile, hasOwn := false, false
	errs := readBody(body, fromForm, &r, func(w *walker, path, key string, v *node) bool {
		switch key {
		case "report_currency":
			r.ReportCurrency = w.str(path, v)
		case "fx_date":
			r.FXDate = w.date(path, v)
		case "profile":
			hasProfile = v.Kind != kindNull
			w.profile(path, v, &r.Profile)
		case "own":
			if own == nil {
				return false
			}
			hasOwn = v.Kind != kindNull
			w.own(path, v, own)
		default:
			return false
		}
		return true
	}, func(w *walker, hasQuote bool) {
		if own != nil {
			w.require("own", hasOwn)
		}
		w.require("quote", hasQuote)
		w.require("profile", hasProfile)
	})
	return r, errs
}

// readBody reads the body of one of the engine's JSON doors: one object
// whose members quote, fx_rate and reference_prices, which every door
// takes, are read into r, and the door's other members by member (false
// for a key the door does not have). Once the object is walked, required
// is told whether a quote was sent and names the door's missing members
// (walker.require), in the door's order. A body that is not one JSON
// object is one error, the rest is not called.
func readBody(body []byte, fromForm bool, r *Request, member func(w *walker, path, key string, v *node) bool,
	required func(w *walker, hasQuote bool)) []FieldError {
	root, errs := parseJSON(body)
	if root == nil {
		return errs
	}
	w := &walker{errs: errs, form: fromForm}
	if root.Kind != kindObject {
		w.add("", tco.CodeWrongType, "Expected", "object")
		return w.errs
	}
	hasQuote := false
	w.object("", root, func(path, key string, v *node) bool {
		switch key {
		case "fx_rate":
			r.FXRate = w.dec(path, v)
		case "quote":
			hasQuote = v.Kind != kindNull
			w.quote(path, v, &r.Quote)
		case "reference_prices":
			w.array(path, v, tco.MaxReferencePrices, func(p string, e *node) {
				var rp tco.ReferencePrice
				w.object(p, e, func(path, key string, v *node) bool {
					switch key {
					case "item":
						rp.Item = catalog.ItemKey(w.str(path, v))
					case "unit":
						rp.Unit = catalog.Unit(w.str(path, v))
					case "unit_price":
						rp.UnitPrice = w.dec(path, v).Decimal
					case "currency":
						rp.Currency = w.str(path, v)
					case "source":
						rp.Source = tco.ReferenceSource(w.str(path, v))
					case "quote_id":
						rp.QuoteID = w.id(path, v)
					default:
						return false
					}
					return true
				})
				if e.Kind == kindObject && !has(e, "unit_price") {
					w.add(p+".unit_price", tco.CodeRequired)
				}
				r.ReferencePrices = append(r.ReferencePrices, rp)
			})
		default:
			return member(w, path, key, v)
		}
		return true
	})
	required(w, hasQuote)
	return w.errs
}

func has(n *node, key string) bool {
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i].Kind != kindNull
		}
	}
	return false
}

type walker struct {
	errs []FieldError
	// form is set when the values were typed into a page's form: a value
	// that is not a number is then worded with the form messages, which say
	// how to write it (full-width digits, a decimal comma, thousands
	// separators, a fraction where a count is asked for).
	form bool
}

func (w *walker) add(field, code string, args ...string) {
	w.errs = append(w.errs, tco.NewFieldError(field, code, args...))
}

// addWorded adds a problem with its own message ID (a form message); the
// code stays the API's.
func (w *walker) addWorded(field, code, messageID string, args ...string) {
	e := tco.NewFieldError(field, code, args...)
	e.MessageID = messageID
	w.errs = append(w.errs, e)
}

// require names field as required when it was not sent (has false),
// unless it already has an error.
func (w *walker) require(field string, has bool) {
	if !has && !w.hasError(field) {
		w.add(field, tco.CodeRequired)
	}
}

func (w *walker) hasError(field string) bool {
	for _, e := range w.errs {
		if e.Field == field {
			return true
		}
	}
	return false
}

// object walks an object's members in document order; visit returns false
// for a key the API does not have.
func (w *walker) object(path string, n *node, visit func(path, key string, v *node) bool) {
	if n.Kind != kindObject {
		if n.Kind != kindNull {
			w.add(path, tco.CodeWrongType, "Expected", "object")
		}
		return
	}
	for i, key := range n.Keys {
		child := join(path, key)
		if !visit(child, key, n.Vals[i]) {
			w.add(child, tco.CodeUnknownField)
		}
	}
}

func (w *walker) array(path string, n *node, max int, each func(path string, v *node)) {
	switch {
	case n.Kind == kindNull:
		return
	case n.Kind != kindArray:
		w.add(path, tco.CodeWrongType, "Expected", "array")
		return
	case len(n.Vals) > max:
		w.add(path, tco.CodeTooMany, "Max", strconv.Itoa(max))
		return
	}
	for i, v := range n.Vals {
		each(index(path, i), v)
	}
}

func (w *walker) str(path string, n *node) string {
	switch n.Kind {
	case kindString:
		return n.Text
	case kindNull:
		return ""
	}
	w.add(path, tco.CodeWrongType, "Expected", "string")
	return ""
}

// dec reads a decimal: a JSON string holding a plain decimal; null is
// absent. A JSON number is refused, named as such: decimals are strings
// (docs/RULES.md §19.1).
func (w *walker) dec(path string, n *node) decimal.NullDecimal {
	switch n.Kind {
	case kindNull:
		return decimal.NullDecimal{}
	case kindNumber:
		w.add(path, tco.CodeDecimalAsNumber)
		return given
	case kindString:
		d, err := money.ParseDecimal(n.Text)
		if err != nil {
			if w.form {
				w.addWorded(path, tco.CodeInvalidDecimal, form.NumberProblem(n.Text, false))
			} else {
				w.add(path, tco.CodeInvalidDecimal)
			}
			return given
		}
		return decimal.NewNullDecimal(d)
	}
	w.add(path, tco.CodeWrongType, "Expected", "decimal")
	return given
}

// given stands in for a value that was present but bad: the field counts as
// given (so "no price at all" or "granularity required" are not reported
// on its account), and its own rule errors are dropped by mergeErrors
// because the field already has one. Nothing is evaluated with it.
var given = decimal.NullDecimal{Valid: true}

// decOrZero is dec for fields whose absence means 0.
func (w *walker) decOrZero(path string, n *node) decimal.Decimal {
	return w.dec(path, n).Decimal
}

// integer reads a whole number: a JSON number without fraction or
// exponent. min and max are the field's bounds (tco.Validate checks them);
// a form's value that cannot be read is worded with them.
func (w *walker) integer(path string, n *node, min, max int) (int, bool) {
	switch n.Kind {
	case kindNull:
		return 0, false
	case kindNumber:
		s := n.Text
		digits := strings.TrimPrefix(s, "-")
		if strings.ContainsAny(digits, ".eE") {
			w.add(path, tco.CodeNotInteger)
			return 0, false
		}
		if len(digits) > 9 {
			// Beyond every bound of the API; keep the value out of int range games.
			if w.form {
				w.formRange(path, min, max)
			} else {
				w.add(path, tco.CodeTooLarge, "Max", "999999999")
			}
			return 0, false
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			w.add(path, tco.CodeNotInteger)
			return 0, false
		}
		return v, true
	case kindString:
		if w.form {
			// What was typed into a count: a whole number too long to be
			// one the field allows, or not a whole number at all.
			if allDigits(strings.TrimPrefix(n.Text, "-")) {
				w.formRange(path, min, max)
			} else {
				w.addWorded(path, tco.CodeNotInteger, form.NumberProblem(n.Text, true))
			}
			return 0, false
		}
	}
	w.add(path, tco.CodeWrongType, "Expected", "integer")
	return 0, false
}

// formRange reports a form's whole number outside min…max the way the
// pages' own forms do.
func (w *walker) formRange(path string, min, max int) {
	w.addWorded(path, tco.CodeIntOutOfRange, form.MsgRange,
		"Min", money.Group(strconv.Itoa(min)), "Max", money.Group(strconv.Itoa(max)))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// id reads a record id (a market reference's quote_id): a whole number of
// up to 18 digits; null is absent (0). Its range is checked by tco.Validate.
func (w *walker) id(path string, n *node) int64 {
	switch n.Kind {
	case kindNull:
		return 0
	case kindNumber:
		digits := strings.TrimPrefix(n.Text, "-")
		if strings.ContainsAny(digits, ".eE") {
			w.add(path, tco.CodeNotInteger)
			return 0
		}
		v, err := strconv.ParseInt(n.Text, 10, 64)
		if err != nil || len(digits) > 18 {
			w.add(path, tco.CodeTooLarge, "Max", "999999999999999999")
			return 0
		}
		return v
	}
	w.add(path, tco.CodeWrongType, "Expected", "integer")
	return 0
}

func (w *walker) boolean(path string, n *node) *bool {
	switch n.Kind {
	case kindNull:
		return nil
	case kindBool:
		b := n.Bool
		return &b
	case kindString:
		if w.form {
			// A yes/no field (a checkbox, a select) sent something else.
			w.addWorded(path, tco.CodeWrongType, form.MsgChoice)
			return nil
		}
	}
	w.add(path, tco.CodeWrongType, "Expected", "boolean")
	return nil
}

func (w *walker) date(path string, n *node) time.Time {
	s := w.str(path, n)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		w.add(path, tco.CodeInvalidDate)
		return time.Time{}
	}
	return t
}

func (w *walker) quote(path string, n *node, q *tco.Quote) {
	hasCount, hasTax := false, false
	w.object(path, n, func(path, key string, v *node) bool {
		switch key {
		case "currency":
			q.Currency = w.str(path, v)
		case "gpu_model":
			q.GPUModel = w.str(path, v)
		case "gpu_count":
			q.GPUCount, hasCount = w.integer(path, v, 1, tco.MaxGPUCount)
			hasCount = hasCount || v.Kind != kindNull
		case "vram_gb":
			q.VRAMGB = w.dec(path, v)
		case "sharing":
			q.Sharing = catalog.Sharing(w.str(path, v))
		case "hourly":
			q.Hourly = w.dec(path, v)
		case "monthly":
			q.Monthly = w.dec(path, v)
		case "yearly":
			q.Yearly = w.dec(path, v)
		case "spot_hourly":
			q.SpotHourly = w.dec(path, v)
		case "billing_granularity":
			q.BillingGranularity = catalog.Granularity(w.str(path, v))
		case "included_mbps":
			q.IncludedMbps = w.decOrZero(path, v)
		case "included_system_disk_gb":
			q.IncludedSystemDiskGB = w.decOrZero(path, v)
		case "included_data_disk_gb":
			q.IncludedDataDiskGB = w.decOrZero(path, v)
		case "commitment_months":
			q.CommitmentMonths, _ = w.integer(path, v, 0, tco.MaxMonths)
		case "early_termination_pct":
			q.EarlyTerminationPct = w.dec(path, v)
		case "deposit":
			q.Deposit = w.dec(path, v)
		case "deposit_refundable":
			q.DepositRefundable = w.boolean(path, v)
		case "balance_withdrawable":
			q.BalanceWithdrawable = w.boolean(path, v)
		case "prices_include_tax":
			if b := w.boolean(path, v); b != nil {
				q.PricesIncludeTax = *b
			} else {
				// Missing or wrong type, reported here; not also
				// "tax_rate required" on its account.
				q.PricesIncludeTax = true
			}
			hasTax = v.Kind != kindNull
		case "tax_rate":
			q.TaxRate = w.dec(path, v)
		case "as_of":
			q.AsOf = w.date(path, v)
		case "lines":
			w.array(path, v, tco.MaxLines, func(p string, e *node) {
				var l tco.Line
				w.line(p, e, &l)
				q.Lines = append(q.Lines, l)
			})
		default:
			return false
		}
		return true
	})
	if n.Kind != kindObject {
		return
	}
	// gpu_count and prices_include_tax have no safe default: one GPU for an
	// 8-GPU node misstates the per-GPU rate 8×, and a wrong tax basis
	// misstates every amount by the tax rate.
	if !hasCount {
		w.add(join(path, "gpu_count"), tco.CodeRequired)
	}
	if !hasTax {
		w.add(join(path, "prices_include_tax"), tco.CodeRequired)
		q.PricesIncludeTax = true
	}
}

func (w *walker) line(path string, n *node, l *tco.Line) {
	w.object(path, n, func(path, key string, v *node) bool {
		switch key {
		case "item":
			l.Item = catalog.ItemKey(w.str(path, v))
		case "status":
			l.Status = catalog.Status(w.str(path, v))
		case "unit":
			l.Unit = catalog.Unit(w.str(path, v))
		case "unit_price":
			l.UnitPrice = w.dec(path, v)
		case "free_allowance":
			l.FreeAllowance = w.decOrZero(path, v)
		case "note":
			l.Note = w.str(path, v)
		default:
			return false
		}
		return true
	})
}

func (w *walker) profile(path string, n *node, p *tco.Profile) {
	var hasHours, hasMonths, hasInstances bool
	w.object(path, n, func(path, key string, v *node) bool {
		present := v.Kind != kindNull
		switch key {
		case "hours_per_month":
			p.HoursPerMonth = w.decOrZero(path, v)
			hasHours = present
		case "months":
			p.Months, _ = w.integer(path, v, 1, tco.MaxMonths)
			hasMonths = present
		case "instances":
			p.Instances, _ = w.integer(path, v, 1, tco.MaxInstances)
			hasInstances = present
		case "starts_per_month":
			s, ok := w.integer(path, v, 1, tco.MaxStartsPerMonth)
			if ok && s < 1 {
				// Given explicitly, S must be ≥ 1 (docs/RULES.md §2.1); only absence means 1.
				w.add(path, tco.CodeIntOutOfRange, "Min", "1", "Max", strconv.Itoa(tco.MaxStartsPerMonth))
				s = 1
			}
			p.StartsPerMonth = s
		case "between_runs":
			p.BetweenRuns = catalog.BetweenRuns(w.str(path, v))
		case "resumable":
			if b := w.boolean(path, v); b != nil {
				p.Resumable = *b
			}
		case "spot_overhead":
			p.SpotOverhead = w.dec(path, v)
		case "mbps":
			p.Mbps = w.decOrZero(path, v)
		case "system_disk_gb":
			p.SystemDiskGB = w.decOrZero(path, v)
		case "data_disk_gb":
			p.DataDiskGB = w.decOrZero(path, v)
		case "object_storage_gb":
			p.ObjectStorageGB = w.decOrZero(path, v)
		case "snapshot_gb":
			p.SnapshotGB = w.decOrZero(path, v)
		case "image_gb":
			p.ImageGB = w.decOrZero(path, v)
		case "egress_gb_per_month":
			p.EgressGBPerMonth = w.decOrZero(path, v)
		case "migration_gb":
			p.MigrationGB = w.decOrZero(path, v)
		case "public_ips":
			p.PublicIPs, _ = w.integer(path, v, 0, tco.MaxPublicIPs)
		case "tokens_per_second_per_gpu":
			p.TokensPerSecondPerGPU = w.dec(path, v)
		case "performance_ratio":
			p.PerformanceRatio = w.dec(path, v)
		case "task":
			p.Task = catalog.Task(w.str(path, v))
		case "params_billions":
			p.ParamsBillions = w.dec(path, v)
		case "precision":
			p.Precision = catalog.Precision(w.str(path, v))
		default:
			return false
		}
		return true
	})
	if n.Kind != kindObject {
		return
	}
	if !hasHours {
		w.add(join(path, "hours_per_month"), tco.CodeRequired)
	}
	if !hasMonths {
		w.add(join(path, "months"), tco.CodeRequired)
	}
	if !hasInstances {
		w.add(join(path, "instances"), tco.CodeRequired)
	}
}
