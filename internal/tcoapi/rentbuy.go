package tcoapi

import (
	"strconv"
	"time"

	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// The rent-or-buy API (docs/RULES.md §17.3): POST /api/v1/tco/rent-vs-buy
// takes the evaluation request of Request with one more member, "own":
//
//	{"report_currency", "fx_rate", "fx_date", "quote", "reference_prices",
//	 "profile", "own": {"currency", "gpu_model", "gpu_count",
//	   "purchase_price", "residual_pct", "life_months", "power_load_w",
//	   "power_idle_w", "pue", "kwh_price", "always_on", "hosting_monthly",
//	   "ops_monthly", "maintenance_pct_per_year", "setup_one_off",
//	   "capital_rate_per_year", "prices_include_tax", "tax_rate"}}
//
// and goes through the same decoder, validator and error paths as the
// evaluation. The own option is in the quote's currency; fx_rate converts
// both. Required: own.currency, own.gpu_count, own.purchase_price,
// own.power_load_w, own.kwh_price and own.prices_include_tax (and
// own.tax_rate when prices exclude tax).

// RentBuyResponse is the 200 body of the rent-or-buy API. Decimals are
// strings as in Response; a crossing point that does not exist is null.
type RentBuyResponse struct {
	// Rent is exactly the evaluation API's result for the quote (rent).
	Rent Response `json:"rent"`
	// Own is the own-hardware option's result (own).
	Own OwnResponse `json:"own"`
	// Cheaper is "own" when its tco is below the rental's, else "rent"
	// (cheaper).
	Cheaper string `json:"cheaper"`
	// OwnCheaperFromMonth is the first whole month 1…120 from which owning
	// costs no more, or null (own_cheaper_from_month).
	OwnCheaperFromMonth *int `json:"own_cheaper_from_month"`
	// OwnCheaperFromHours is the first whole hours a month 1…730 from which
	// owning costs no more, or null (own_cheaper_from_hours).
	OwnCheaperFromHours *int `json:"own_cheaper_from_hours"`
}

// OwnResponse is the own-hardware option's figures: money with 2 places,
// the rate per GPU-hour with 4.
type OwnResponse struct {
	// Lines are the seven lines in order (lines).
	Lines []OwnLine `json:"lines"`
	// TCO is the sum of the lines (tco).
	TCO string `json:"tco"`
	// UpfrontCash is the purchase plus setup (upfront_cash).
	UpfrontCash string `json:"upfront_cash"`
	// EffectivePerGPUHour is tco ÷ GPU-hours used (effective_per_gpu_hour).
	EffectivePerGPUHour string `json:"effective_per_gpu_hour"`
}

// OwnLine is one line of OwnResponse.
type OwnLine struct {
	// Item is depreciation, capital_cost, electricity, hosting,
	// operations, maintenance or setup (item).
	Item string `json:"item"`
	// Amount is over the horizon for all servers (amount).
	Amount string `json:"amount"`
}

// NewRentBuyResponse renders an engine result in the wire format.
func NewRentBuyResponse(r tco.RentOrBuyResult) RentBuyResponse {
	out := RentBuyResponse{
		Rent:    NewResponse(r.Rent),
		Own:     OwnResponse{Lines: make([]OwnLine, len(r.Own.Lines))},
		Cheaper: string(r.Cheaper),
	}
	for i, l := range r.Own.Lines {
		out.Own.Lines[i] = OwnLine{Item: string(l.Item), Amount: fixed(l.Amount, 2)}
	}
	out.Own.TCO = fixed(r.Own.TCO, 2)
	out.Own.UpfrontCash = fixed(r.Own.UpfrontCash, 2)
	out.Own.EffectivePerGPUHour = fixed(r.Own.EffectivePerGPUHour, 4)
	if m := r.FromMonth; m > 0 {
		out.OwnCheaperFromMonth = &m
	}
	if h := r.FromHours; h > 0 {
		out.OwnCheaperFromHours = &h
	}
	return out
}

// RentVsBuy decodes a rent-or-buy request body, validates it (every bad
// field at once, as Evaluate does, with the own option's fields under
// "own."), fills in the held exchange rate and converts reference prices
// as Evaluate does, and prices both options with tco.RentOrBuy. err is only
// a failure of lookup (HTTP 500).
func RentVsBuy(body []byte, lookup FXLookup, today time.Time) (RentBuyResponse, []FieldError, error) {
	return rentVsBuy(body, false, lookup, today)
}

// RentVsBuy is tcoapi.RentVsBuy of the request built from the form, with
// its problems with numbers worded for the page (docs/RULES.md §12.4).
func (fr FormRequest) RentVsBuy(lookup FXLookup, today time.Time) (RentBuyResponse, []FieldError, error) {
	return rentVsBuy(fr.Body, true, lookup, today)
}

func rentVsBuy(body []byte, fromForm bool, lookup FXLookup, today time.Time) (RentBuyResponse, []FieldError, error) {
	var own tco.Own
	req, decErrs := decodeBody(body, fromForm, &own)
	opts, err := req.heldRate(lookup, today)
	if err != nil {
		return RentBuyResponse{}, nil, err
	}
	val := validate(req, opts, decErrs)
	if !hasField(decErrs, "own") {
		val = append(val, tco.ValidateOwnBeside(own, req.Quote.Currency)...)
	}
	errs := mergeErrors(decErrs, val)
	if fromForm {
		errs = formWording(errs)
	}
	if len(errs) > 0 {
		return RentBuyResponse{}, errs, nil
	}
	refs, err := convertReferences(req.ReferencePrices, req.Quote.Currency, lookup, today)
	if err != nil {
		return RentBuyResponse{}, nil, err
	}
	opts.ReferencePrices = refs
	res, err := tco.RentOrBuy(req.Quote, own, req.Profile, opts)
	if err != nil {
		// Unreachable: the same input just validated.
		return RentBuyResponse{}, nil, err
	}
	return NewRentBuyResponse(res), nil, nil
}

func hasField(errs []FieldError, field string) bool {
	for _, e := range errs {
		if e.Field == field {
			return true
		}
	}
	return false
}

// own reads the own-hardware option. Fields whose absence the engine reads
// as a default (life_months 36, pue 1) refuse an explicit value below
// their minimum here, where absence and 0 can still be told apart.
func (w *walker) own(path string, n *node, o *tco.Own) {
	var hasCount, hasPrice, hasLoad, hasKWh, hasTax bool
	w.object(path, n, func(path, key string, v *node) bool {
		present := v.Kind != kindNull
		switch key {
		case "currency":
			o.Currency = w.str(path, v)
		case "gpu_model":
			o.GPUModel = w.str(path, v)
		case "gpu_count":
			o.GPUCount, _ = w.integer(path, v, 1, tco.MaxGPUCount)
			hasCount = present
		case "purchase_price":
			o.PurchasePrice = w.decOrZero(path, v)
			hasPrice = present
		case "residual_pct":
			o.ResidualPct = w.decOrZero(path, v)
		case "life_months":
			l, ok := w.integer(path, v, 1, tco.MaxLifeMonths)
			if ok && l < 1 {
				w.add(path, tco.CodeIntOutOfRange, "Min", "1", "Max", strconv.Itoa(tco.MaxLifeMonths))
				l = 0
			}
			o.LifeMonths = l
		case "power_load_w":
			o.PowerLoadW = w.decOrZero(path, v)
			hasLoad = present
		case "power_idle_w":
			o.PowerIdleW = w.decOrZero(path, v)
		case "pue":
			d := w.dec(path, v)
			if d.Valid && d.Decimal.Sign() == 0 && !w.hasError(path) {
				w.add(path, tco.CodeOutOfRange, "Min", "1", "Max", money.String(tco.MaxPUE))
			}
			o.PUE = d.Decimal
		case "kwh_price":
			o.KWhPrice = w.decOrZero(path, v)
			hasKWh = present
		case "always_on":
			if b := w.boolean(path, v); b != nil {
				o.AlwaysOn = *b
			}
		case "hosting_monthly":
			o.HostingMonthly = w.decOrZero(path, v)
		case "ops_monthly":
			o.OpsMonthly = w.decOrZero(path, v)
		case "maintenance_pct_per_year":
			o.MaintenancePctPerYear = w.decOrZero(path, v)
		case "setup_one_off":
			o.SetupOneOff = w.decOrZero(path, v)
		case "capital_rate_per_year":
			o.CapitalRatePerYear = w.decOrZero(path, v)
		case "prices_include_tax":
			if b := w.boolean(path, v); b != nil {
				o.PricesIncludeTax = *b
			} else {
				// Missing or wrong type, reported here; not also
				// "tax_rate required" on its account.
				o.PricesIncludeTax = true
			}
			hasTax = present
		case "tax_rate":
			o.TaxRate = w.dec(path, v)
		default:
			return false
		}
		return true
	})
	if n.Kind != kindObject {
		return
	}
	// No safe default: one GPU for an 8-GPU server misstates the rate per
	// GPU-hour 8×; a missing price, draw or electricity price would price
	// the server as free to buy or to run; a wrong tax basis misstates every
	// amount by the tax rate.
	for _, r := range []struct {
		name string
		has  bool
	}{{"gpu_count", hasCount}, {"purchase_price", hasPrice}, {"power_load_w", hasLoad}, {"kwh_price", hasKWh}, {"prices_include_tax", hasTax}} {
		if !r.has && !w.hasError(join(path, r.name)) {
			w.add(join(path, r.name), tco.CodeRequired)
		}
	}
	if !hasTax {
		o.PricesIncludeTax = true
	}
}
