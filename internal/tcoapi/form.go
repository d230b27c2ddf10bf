package tcoapi

import (
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// The calculator page's form fields are named by the JSON paths of the
// evaluation API ("quote.hourly", "quote.lines[3].unit_price",
// "profile.months"), so the page goes through exactly the same decoding,
// validation and error paths as the API: FromForm turns the posted form
// into the request body. Only the wording differs: a problem with a number
// typed into a page is told in the project's form messages (package form),
// which say how to write it, where a script sending JSON reads the API's.

// kind of a form field's JSON value.
type fieldKind uint8

const (
	fString fieldKind = iota
	fDecimal
	fInteger
	fBool
)

var (
	topFields = map[string]fieldKind{"report_currency": fString, "fx_rate": fDecimal, "fx_date": fString}

	quoteFields = map[string]fieldKind{
		"currency": fString, "gpu_model": fString, "gpu_count": fInteger, "vram_gb": fDecimal,
		"sharing": fString, "hourly": fDecimal, "monthly": fDecimal, "yearly": fDecimal,
		"spot_hourly": fDecimal, "billing_granularity": fString, "included_mbps": fDecimal,
		"included_system_disk_gb": fDecimal, "included_data_disk_gb": fDecimal,
		"commitment_months": fInteger, "early_termination_pct": fDecimal, "deposit": fDecimal,
		"deposit_refundable": fBool, "balance_withdrawable": fBool, "prices_include_tax": fBool,
		"tax_rate": fDecimal, "as_of": fString,
	}

	lineFields = map[string]fieldKind{"status": fString, "unit": fString, "unit_price": fDecimal,
		"free_allowance": fDecimal, "note": fString}

	profileFields = map[string]fieldKind{
		"hours_per_month": fDecimal, "months": fInteger, "instances": fInteger,
		"starts_per_month": fInteger, "between_runs": fString, "resumable": fBool,
		"spot_overhead": fDecimal, "mbps": fDecimal, "system_disk_gb": fDecimal,
		"data_disk_gb": fDecimal, "object_storage_gb": fDecimal, "snapshot_gb": fDecimal,
		"image_gb": fDecimal, "egress_gb_per_month": fDecimal, "migration_gb": fDecimal,
		"public_ips": fInteger, "tokens_per_second_per_gpu": fDecimal,
		"performance_ratio": fDecimal, "task": fString, "params_billions": fDecimal, "precision": fString,
	}
)

// ownFields are the own-hardware option's fields of the calculator's
// rent-or-buy mode (docs/RULES.md §17.3), posted as "own.*".
var ownFields = map[string]fieldKind{
	"currency": fString, "gpu_model": fString, "gpu_count": fInteger, "purchase_price": fDecimal,
	"residual_pct": fDecimal, "life_months": fInteger, "power_load_w": fDecimal, "power_idle_w": fDecimal,
	"pue": fDecimal, "kwh_price": fDecimal, "always_on": fBool, "hosting_monthly": fDecimal,
	"ops_monthly": fDecimal, "maintenance_pct_per_year": fDecimal, "setup_one_off": fDecimal,
	"capital_rate_per_year": fDecimal, "prices_include_tax": fBool, "tax_rate": fDecimal,
}

// ModeField is the calculator form's field that picks its mode; ModeBuy
// is the rent-or-buy mode, which adds the own option (docs/RULES.md §17.3).
const (
	ModeField = "mode"
	ModeBuy   = "buy"
)

// BuyMode reports whether the calculator form is in its rent-or-buy mode.
func BuyMode(form url.Values) bool { return strings.TrimSpace(form.Get(ModeField)) == ModeBuy }

var wholeNumber = regexp.MustCompile(`^-?[0-9]{1,12}$`)

// jsonValue encodes one non-empty form value. A whole number goes out as a
// JSON number; anything else typed into a number field goes out as a string
// so the decoder names the field ("must be a whole number") instead of the
// body failing to parse. Decimals always travel as strings.
func jsonValue(k fieldKind, v string) (any, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, false
	}
	switch k {
	case fInteger:
		if wholeNumber.MatchString(v) {
			return json.RawMessage(v), true
		}
		return v, true
	case fBool:
		switch v {
		case "true", "on", "1":
			return true, true
		case "false", "0":
			return false, true
		}
		return v, true
	}
	return v, true
}

func setFields(dst map[string]any, form url.Values, prefix string, fields map[string]fieldKind) {
	for name, k := range fields {
		if x, ok := jsonValue(k, form.Get(prefix+name)); ok {
			dst[name] = x
		}
	}
}

// FormRequest is the evaluation request built from the calculator form.
type FormRequest struct {
	// Body is the JSON request, as a caller of the API would send it;
	// FormRequest.Evaluate prices it with the form's wording.
	Body []byte
	// lineRows[k] and refRows[k] are the form rows behind quote.lines[k]
	// and reference_prices[k].
	lineRows, refRows []int
}

// FromForm builds the evaluation request from the calculator form (in the
// rent-or-buy mode, the rent-or-buy request: the same with "own"). The
// twelve line rows are posted in catalog order as quote.lines[i].*, each
// with an optional reference price quote.lines[i].reference_price that
// becomes a reference_prices entry in the line's unit (or the item's
// default unit). A row without a status is left out: a missing line is an
// unconfirmed line (docs/RULES.md §3.1). Empty fields are left out, as in a
// hand-written request.
func FromForm(form url.Values) FormRequest {
	var fr FormRequest
	body := map[string]any{}
	setFields(body, form, "", topFields)
	quote := map[string]any{}
	setFields(quote, form, "quote.", quoteFields)
	var lines, refs []any
	for i, it := range catalog.Items {
		p := rowPrefix(i)
		line := map[string]any{"item": string(it.Key)}
		setFields(line, form, p, lineFields)
		if _, answered := line["status"]; answered {
			lines = append(lines, line)
			fr.lineRows = append(fr.lineRows, i)
		}
		if rp := strings.TrimSpace(form.Get(p + "reference_price")); rp != "" {
			unit := strings.TrimSpace(form.Get(p + "unit"))
			if unit == "" {
				unit = string(it.DefaultUnit)
			}
			refs = append(refs, map[string]any{"item": string(it.Key), "unit": unit, "unit_price": rp})
			fr.refRows = append(fr.refRows, i)
		}
	}
	if len(lines) > 0 {
		quote["lines"] = lines
	}
	body["quote"] = quote
	if len(refs) > 0 {
		body["reference_prices"] = refs
	}
	profile := map[string]any{}
	setFields(profile, form, "profile.", profileFields)
	body["profile"] = profile
	if BuyMode(form) {
		// The own option is priced in the quote's currency unless the
		// form says otherwise.
		own := map[string]any{}
		setFields(own, form, "own.", ownFields)
		if _, ok := own["currency"]; !ok {
			if c, ok := quote["currency"]; ok {
				own["currency"] = c
			}
		}
		body["own"] = own
	}
	b, err := json.Marshal(body)
	if err != nil {
		// Only strings, booleans and validated whole numbers go in.
		panic(err)
	}
	fr.Body = b
	return fr
}

func rowPrefix(i int) string { return "quote.lines[" + strconv.Itoa(i) + "]." }

// Field maps an error path of the request back to the form field that
// produced it: quote.lines[k].x → the k-th answered row's field,
// reference_prices[k].* → that row's reference price.
func (fr FormRequest) Field(path string) string {
	if rest, ok := strings.CutPrefix(path, "quote.lines["); ok {
		if k, tail, ok := rowIndex(rest); ok && k < len(fr.lineRows) {
			return rowPrefix(fr.lineRows[k]) + strings.TrimPrefix(tail, ".")
		}
	}
	if rest, ok := strings.CutPrefix(path, "reference_prices["); ok {
		if k, _, ok := rowIndex(rest); ok && k < len(fr.refRows) {
			return rowPrefix(fr.refRows[k]) + "reference_price"
		}
	}
	return path
}

// rowIndex reads "N]tail" into N and tail.
func rowIndex(s string) (int, string, bool) {
	n, tail, ok := strings.Cut(s, "]")
	if !ok {
		return 0, "", false
	}
	k, err := strconv.Atoi(n)
	return k, tail, err == nil && k >= 0
}

// ProfileFields names every field of a usage profile, sorted: the keys of
// the API's "profile" object and of the pages' "profile." form fields.
func ProfileFields() []string { return slices.Sorted(maps.Keys(profileFields)) }

// ProfileFromForm reads a usage profile from form fields named like the
// API's ("profile.hours_per_month", …), through the same decoding and
// validation; errors carry the API paths, which are the field names.
func ProfileFromForm(form url.Values) (tco.Profile, []FieldError) {
	profile := map[string]any{}
	setFields(profile, form, "profile.", profileFields)
	b, err := json.Marshal(map[string]any{"profile": profile})
	if err != nil {
		panic(err) // only strings, booleans and validated whole numbers go in
	}
	root, errs := parseJSON(b)
	if root == nil {
		return tco.Profile{}, errs
	}
	w := &walker{errs: errs, form: true}
	var p tco.Profile
	w.object("", root, func(path, key string, v *node) bool {
		if key != "profile" {
			return false
		}
		w.profile(path, v, &p)
		return true
	})
	return p, formWording(mergeErrors(w.errs, tco.ValidateProfile(p)))
}

// formPlaces are the decimal places the form messages have a wording for
// (form.MsgPlaces).
var formPlaces = map[string]bool{"2": true, "3": true, "6": true, "10": true}

// formWording words the problems of values typed into a form with the
// project's form messages, as every other page's form does: a negative
// value is "must not be negative" (never the API's syntax note that a
// leading minus sign is allowed), a whole number outside its bounds names
// them, too many places names the limit. The codes stay the API's. A
// problem the decoder already worded, and one the form messages have no
// better wording for (hours per month, the tax rate, a choice, a currency),
// keeps its message.
func formWording(errs []FieldError) []FieldError {
	out := make([]FieldError, len(errs))
	for i, e := range errs {
		out[i] = e
		if e.MessageID != tco.MessagePrefix+e.Code {
			continue
		}
		id, args := "", map[string]any(nil)
		switch e.Code {
		case tco.CodeRequired:
			id = form.MsgRequired
		case tco.CodeNegative:
			id = form.MsgNegative
		case tco.CodeMustBePositive:
			id = form.MsgPositive
		case tco.CodeTooLarge:
			id = form.MsgTooLarge
		case tco.CodeIntOutOfRange, tco.CodeOutOfRange:
			id = form.MsgRange
			args = map[string]any{"Min": group(e.Args["Min"]), "Max": group(e.Args["Max"])}
		case tco.CodeTooManyDecimals:
			if m, _ := e.Args["Max"].(string); formPlaces[m] {
				n, _ := strconv.Atoi(m)
				id = form.MsgPlaces(n)
			}
		}
		if id != "" {
			out[i].MessageID, out[i].Args = id, args
		}
	}
	return out
}

// group writes a whole-number bound with thousands separators, as the
// form messages show bounds ("1 to 10,000").
func group(v any) string {
	s, _ := v.(string)
	if allDigits(s) {
		return money.Group(s)
	}
	return s
}
