package web

import (
	"net/url"
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// The calculator's rent-or-buy mode (docs/RULES.md §17.3): the own option's
// fields beside the rental quote, and both priced with one profile.

// RentBuyResult is the rent-or-buy comparison shown beside the form,
// already formatted and worded.
type RentBuyResult struct {
	// Verdict says which costs less over the horizon, and by how much.
	Verdict string
	// OwnCheaper is true when owning costs less.
	OwnCheaper bool
	// RentTCO, OwnTCO: the two totals; OwnUpfront is the cash out on day
	// one; RentEffective and OwnEffective the rates per GPU-hour.
	RentTCO, OwnTCO, OwnUpfront, RentEffective, OwnEffective string
	// FromMonth and FromHours word the crossing points.
	FromMonth, FromHours string
	// Lines are the own option's seven lines.
	Lines []RentBuyLine
}

// RentBuyLine is one line of the own option.
type RentBuyLine struct {
	Item    string
	LabelID string
	Amount  string
}

// CalculatorBuyDefaults is the form the rent-or-buy mode shows first: a
// 1.98 CNY/h rental beside a 25,000 CNY server (20 % left after 36 months,
// 450 W at 0.6 CNY/kWh), 200 hours a month for a year.
func CalculatorBuyDefaults() url.Values {
	v := CalculatorDefaults()
	for k, x := range map[string]string{
		tcoapi.ModeField: tcoapi.ModeBuy, "report_currency": "CNY", "quote.currency": "CNY", "quote.hourly": "1.98",
		"profile.months": "12",
		"own.gpu_count":  "1", "own.purchase_price": "25000", "own.residual_pct": "20", "own.life_months": "36",
		"own.power_load_w": "450", "own.power_idle_w": "0", "own.pue": "1", "own.kwh_price": "0.6",
		"own.hosting_monthly": "0", "own.ops_monthly": "0", "own.maintenance_pct_per_year": "0",
		"own.setup_one_off": "0", "own.capital_rate_per_year": "0", "own.prices_include_tax": "true",
	} {
		v.Set(k, x)
	}
	return v
}

// OwnSections lays out the own option's fields (named "own.*", as the
// rent-or-buy API spells them).
func OwnSections(form url.Values, errs map[string]string) []Section {
	f := func(name, kind, labelID, hintID string, opts []Option) Field {
		return Field{Name: name, Kind: kind, LabelID: labelID, HintID: hintID, Options: opts,
			Value: form.Get(name), Error: errs[name]}
	}
	taxIncl := []Option{{Value: "true", LabelID: "calc.tax.included"}, {Value: "false", LabelID: "calc.tax.excluded"}}
	sections := []Section{
		{TitleID: "calc.section.own", Open: true, Fields: []Field{
			f("own.gpu_model", "text", "calc.own.gpu_model", "", nil),
			f("own.gpu_count", "int", "calc.own.gpu_count", "", nil),
			f("own.purchase_price", "decimal", "calc.own.purchase_price", "calc.own.hint.purchase_price", nil),
			f("own.residual_pct", "decimal", "calc.own.residual_pct", "calc.own.hint.residual_pct", nil),
			f("own.life_months", "int", "calc.own.life_months", "calc.own.hint.life_months", nil),
			f("own.power_load_w", "decimal", "calc.own.power_load_w", "", nil),
			f("own.kwh_price", "decimal", "calc.own.kwh_price", "", nil),
			f("own.prices_include_tax", "select", "calc.own.prices_include_tax", "", taxIncl),
			f("own.tax_rate", "decimal", "calc.own.tax_rate", "calc.hint.tax_rate", nil),
		}},
		{TitleID: "calc.section.own_running", Fields: []Field{
			f("own.always_on", "checkbox", "calc.own.always_on", "calc.own.hint.always_on", nil),
			f("own.power_idle_w", "decimal", "calc.own.power_idle_w", "", nil),
			f("own.pue", "decimal", "calc.own.pue", "calc.own.hint.pue", nil),
			f("own.hosting_monthly", "decimal", "calc.own.hosting_monthly", "calc.own.hint.hosting_monthly", nil),
			f("own.ops_monthly", "decimal", "calc.own.ops_monthly", "calc.own.hint.ops_monthly", nil),
			f("own.maintenance_pct_per_year", "decimal", "calc.own.maintenance_pct_per_year", "calc.own.hint.maintenance", nil),
			f("own.setup_one_off", "decimal", "calc.own.setup_one_off", "", nil),
			f("own.capital_rate_per_year", "decimal", "calc.own.capital_rate_per_year", "calc.own.hint.capital_rate", nil),
		}},
	}
	openOnError(sections)
	return sections
}

// plural renders the message family id for the count n (id+".one" when n
// is 1, id+".other" otherwise) with {{.Count}} and args.
func plural(tr *i18n.Translator, id string, n int, args ...any) string {
	if n == 1 {
		id += ".one"
	} else {
		id += ".other"
	}
	return tr.T(id, append([]any{"Count", n}, args...)...)
}

// NewRentBuyResult formats a rent-or-buy answer for the page: amounts with
// the report currency in the reader's locale, the verdict and the crossing
// points in words. hours and months are the profile's, as posted.
func NewRentBuyResult(r tcoapi.RentBuyResponse, hours string, months, life int, tr *i18n.Translator) *RentBuyResult {
	cur, loc := r.Rent.ReportCurrency, string(tr.Lang)
	dec := func(s string) decimal.Decimal {
		d, _ := money.ParseDecimal(s)
		return d
	}
	amount := func(s string) string { return money.Format(dec(s), cur, loc) }
	rate := func(s string) string { return money.FormatPlaces(dec(s), cur, loc, 4) }
	out := &RentBuyResult{
		OwnCheaper: r.Cheaper == string(tco.CheaperOwn),
		RentTCO:    amount(r.Rent.TCO), OwnTCO: amount(r.Own.TCO), OwnUpfront: amount(r.Own.UpfrontCash),
		RentEffective: rate(r.Rent.EffectivePerGPUHour), OwnEffective: rate(r.Own.EffectivePerGPUHour),
	}
	h := money.Group(hours)
	diff := dec(r.Rent.TCO).Sub(dec(r.Own.TCO))
	switch {
	case diff.IsZero():
		out.Verdict = plural(tr, "calc.buy.verdict.tie", months, "Hours", h)
	case out.OwnCheaper:
		out.Verdict = plural(tr, "calc.buy.verdict.own", months, "Hours", h, "Diff", money.Format(diff, cur, loc))
	default:
		out.Verdict = plural(tr, "calc.buy.verdict.rent", months, "Hours", h, "Diff", money.Format(diff.Neg(), cur, loc))
	}
	if m := r.OwnCheaperFromMonth; m != nil {
		out.FromMonth = tr.T("calc.buy.from_month", "Month", strconv.Itoa(*m), "Hours", h)
		if *m > life {
			out.FromMonth += tr.T("calc.buy.past_life", "Life", life)
		}
	} else {
		out.FromMonth = tr.T("calc.buy.from_month.none", "Max", strconv.Itoa(tco.MaxMonths/12), "Hours", h)
	}
	if x := r.OwnCheaperFromHours; x != nil {
		out.FromHours = plural(tr, "calc.buy.from_hours", *x)
	} else {
		out.FromHours = tr.T("calc.buy.from_hours.none", "Max", "730")
	}
	for _, l := range r.Own.Lines {
		it := tco.OwnItem(l.Item)
		out.Lines = append(out.Lines, RentBuyLine{Item: l.Item, LabelID: it.LabelID(), Amount: amount(l.Amount)})
	}
	return out
}
