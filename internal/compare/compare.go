package compare

import (
	"errors"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// MaxSelected is how many quotes one comparison prices side by side.
const MaxSelected = 20

// Candidate is a published quote and its GPU model.
type Candidate struct {
	Quote quote.Quote
	GPU   market.GPUModel
}

// Input is everything a comparison needs besides the candidates.
type Input struct {
	Profile        tco.Profile
	ReportCurrency string
	// Rates convert each quote currency into ReportCurrency, dated; a
	// currency without a rate is never converted (the row says so).
	Rates map[string]tco.FX
	// AllRates are the dated rates in force between every stored pair of
	// currencies; they convert reference prices into each quote's currency.
	AllRates map[CurrencyPair]tco.FX
	// ReferencePrices price unconfirmed lines: the editors', then the
	// market references, each in its own currency (References converts
	// them for a quote).
	ReferencePrices []tco.ReferencePrice
	Today           time.Time
	// Performance is, per platform × GPU model, the ratio a trial measured
	// (measured ÷ the figure the 85 % rule compared against, newest
	// measurement of the pair). It replaces the profile's performance_ratio
	// for the rows of that pair, so they show cost per reference-equivalent
	// GPU-hour and the performance_below_85pct flag (docs/RULES.md §6.2, §8.3).
	Performance map[market.PlatformGPU]decimal.Decimal
}

// CurrencyPair is the direction of a stored rate: 1 From = rate To.
type CurrencyPair struct{ From, To string }

// References are the input's reference prices as the engine reads them for
// a quote in currency: converted at the dated rate from theirs into the
// quote's, those without a rate left out (docs/RULES.md §3.6).
func (in Input) References(currency string) []tco.ReferencePrice {
	return tco.ConvertReferences(in.ReferencePrices, currency, func(from, to string) (decimal.Decimal, bool) {
		fx, ok := in.AllRates[CurrencyPair{From: from, To: to}]
		return fx.Rate, ok
	})
}

// Reason says why the profile rules a quote out, as a catalog message.
type Reason struct {
	MessageID string
	Args      map[string]any
}

// Reason message IDs.
const (
	ReasonVRAMFloor      = "compare.reason.vram_floor"
	ReasonSpotOnly       = "compare.reason.spot_only"
	ReasonNoNVLink       = "compare.reason.no_nvlink"
	ReasonNoRate         = "compare.reason.no_rate"
	ReasonCannotEvaluate = "compare.reason.cannot_evaluate"
)

// Row is one candidate of a comparison: its result when it could be
// priced, and why the profile rules it out, if it does. Ruled-out rows are
// shown greyed with their reasons, never dropped.
type Row struct {
	Candidate
	Reasons []Reason
	// Priced says Result holds the engine's figures.
	Priced bool
	Result tco.Result
	// CheapestConfirmed and CheapestPessimistic mark the lowest confirmed
	// and pessimistic TCO among the eligible rows (ties: every one).
	CheapestConfirmed   bool
	CheapestPessimistic bool
}

// Eligible reports whether the profile leaves the quote in the running.
func (r Row) Eligible() bool { return len(r.Reasons) == 0 && r.Priced }

// MultiNode reports whether the profile trains across several instances:
// full training or full fine-tuning on more than one instance, which the
// guides say needs NVLink-class interconnect ("dragged to death by
// communication" otherwise).
func MultiNode(p tco.Profile) bool {
	return p.Instances > 1 && (p.Task == catalog.TaskFullTraining || p.Task == catalog.TaskFullFinetune)
}

// Screen decides the reasons the profile rules a candidate out that can be
// told without pricing it (for the candidate list): multi-node training on
// a card without NVLink, a spot-only offer for jobs that cannot resume, no
// dated rate into the report currency, VRAM below the task's floor.
func Screen(c Candidate, in Input, floor decimal.NullDecimal) []Reason {
	var out []Reason
	q := c.Quote
	if tco.BelowVRAMFloor(q.Engine(c.GPU), in.Profile.Task, floor) {
		out = append(out, Reason{ReasonVRAMFloor, map[string]any{"Floor": floor.Decimal.StringFixed(2)}})
	}
	if q.SpotHourly.Valid && !q.Hourly.Valid && !q.Monthly.Valid && !q.Yearly.Valid && !in.Profile.Resumable {
		out = append(out, Reason{MessageID: ReasonSpotOnly})
	}
	if MultiNode(in.Profile) && c.GPU.Interconnect != "nvlink" {
		out = append(out, Reason{MessageID: ReasonNoNVLink})
	}
	if q.Currency != in.ReportCurrency {
		if _, ok := in.Rates[q.Currency]; !ok {
			out = append(out, Reason{ReasonNoRate, map[string]any{"From": q.Currency, "To": in.ReportCurrency}})
		}
	}
	return out
}

// Run prices every candidate for the profile in the report currency. A
// candidate that cannot be priced (no rate, spot only without resume) keeps
// its reasons and no figures; one the profile rules out but that can be
// priced shows its figures greyed. Cheapest marks go to eligible rows only.
func Run(cands []Candidate, in Input) []Row {
	floor := tco.ProfileVRAMFloor(in.Profile)
	rows := make([]Row, len(cands))
	for i, c := range cands {
		r := Row{Candidate: c, Reasons: Screen(c, in, floor)}
		opts := tco.Options{ReportCurrency: in.ReportCurrency, ReferencePrices: in.References(c.Quote.Currency), Today: in.Today}
		canPrice := true
		if c.Quote.Currency != in.ReportCurrency {
			fx, ok := in.Rates[c.Quote.Currency]
			if ok {
				opts.FXRate, opts.FXDate = decimal.NewNullDecimal(fx.Rate), fx.Date
			} else {
				canPrice = false // never a fake conversion
			}
		}
		if canPrice {
			res, err := tco.Evaluate(c.Quote.Engine(c.GPU), rowProfile(c, in), opts)
			var ve *tco.ValidationError
			switch {
			case err == nil:
				r.Priced, r.Result = true, res
			case errors.As(err, &ve) && onlyNoAllowedMode(ve):
				// already explained by ReasonSpotOnly
			default:
				r.Reasons = append(r.Reasons, Reason{MessageID: ReasonCannotEvaluate})
			}
		}
		rows[i] = r
	}
	markCheapest(rows)
	return rows
}

// rowProfile is the profile a candidate is priced with: the comparison's,
// with the performance ratio a trial measured for the candidate's platform
// × GPU model when there is one. The engine counts a ratio above 1 as 1
// (docs/RULES.md §6.2: per_reference_gpu_hour), so it is capped here too, which also
// keeps it within the engine's bounds; it has at most
// tco.MaxPlaces decimal places, cut toward zero so that "below 85 %" is
// decided as for the exact ratio.
func rowProfile(c Candidate, in Input) tco.Profile {
	p := in.Profile
	r, ok := in.Performance[market.PlatformGPU{PlatformID: c.Quote.PlatformID, GPUModelID: c.Quote.GPUModelID}]
	if !ok || r.Sign() <= 0 {
		return p
	}
	if one := decimal.NewFromInt(1); r.GreaterThan(one) {
		r = one
	}
	r = money.CutRatio(r, tco.MaxPlaces)
	p.PerformanceRatio = decimal.NewNullDecimal(r)
	return p
}

func onlyNoAllowedMode(ve *tco.ValidationError) bool {
	for _, f := range ve.Fields {
		if f.Code != tco.CodeNoAllowedMode {
			return false
		}
	}
	return len(ve.Fields) > 0
}

func markCheapest(rows []Row) {
	var minC, minP decimal.NullDecimal
	for _, r := range rows {
		if !r.Eligible() {
			continue
		}
		if !minC.Valid || r.Result.TCO.LessThan(minC.Decimal) {
			minC = decimal.NewNullDecimal(r.Result.TCO)
		}
		if !minP.Valid || r.Result.TCOPessimistic.LessThan(minP.Decimal) {
			minP = decimal.NewNullDecimal(r.Result.TCOPessimistic)
		}
	}
	for i := range rows {
		if !rows[i].Eligible() {
			continue
		}
		rows[i].CheapestConfirmed = rows[i].Result.TCO.Equal(minC.Decimal)
		rows[i].CheapestPessimistic = rows[i].Result.TCOPessimistic.Equal(minP.Decimal)
	}
}

// Sort keys of the comparison table.
const (
	SortTCO         = "tco"
	SortPessimistic = "pessimistic"
	SortEffective   = "effective"
	SortHidden      = "hidden"
	SortBreakEven   = "break_even"
)

// SortKeys lists the valid sort keys.
var SortKeys = []string{SortTCO, SortPessimistic, SortEffective, SortHidden, SortBreakEven}

// Sort orders rows by key (ascending, or descending when desc); eligible
// rows always come before ruled-out ones, and ties keep the given order.
func Sort(rows []Row, key string, desc bool) {
	value := func(r Row) (decimal.Decimal, bool) {
		if !r.Priced {
			return decimal.Decimal{}, false
		}
		switch key {
		case SortPessimistic:
			return r.Result.TCOPessimistic, true
		case SortEffective:
			return r.Result.EffectivePerGPUHour, true
		case SortHidden:
			return r.Result.HiddenShare.Decimal, r.Result.HiddenShare.Valid
		case SortBreakEven:
			return r.Result.BreakEvenHours.Decimal, r.Result.BreakEvenHours.Valid
		default:
			return r.Result.TCO, true
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ei, ej := rows[i].Eligible(), rows[j].Eligible()
		if ei != ej {
			return ei
		}
		vi, oki := value(rows[i])
		vj, okj := value(rows[j])
		if oki != okj {
			return oki // rows without the figure last
		}
		if !oki || vi.Equal(vj) {
			return false
		}
		if desc {
			return vi.GreaterThan(vj)
		}
		return vi.LessThan(vj)
	})
}

// UnitPrices are a priced row's compute prices for one instance in the
// report currency, tax included (at the row's exchange rate): what the cost
// curves draw. Spot includes the profile's rework overhead. These are for
// drawing, not for the ledger: the table's amounts come from the engine.
func UnitPrices(r Row, p tco.Profile) (hourly, monthly, spot decimal.NullDecimal) {
	if !r.Priced {
		return
	}
	q := r.Quote
	k := r.Result.FXRate
	if !q.PricesIncludeTax {
		k = k.Mul(decimal.NewFromInt(1).Add(q.TaxRate))
	}
	conv := func(d decimal.NullDecimal) decimal.NullDecimal {
		if !d.Valid {
			return d
		}
		return decimal.NewNullDecimal(d.Decimal.Mul(k))
	}
	hourly, monthly = conv(q.Hourly), conv(q.Monthly)
	if q.SpotHourly.Valid && p.Resumable {
		overhead := tco.DefaultSpotOverhead
		if p.SpotOverhead.Valid {
			overhead = p.SpotOverhead.Decimal
		}
		spot = decimal.NewNullDecimal(q.SpotHourly.Decimal.Mul(k).Mul(decimal.NewFromInt(1).Add(overhead)))
	}
	return hourly, monthly, spot
}
