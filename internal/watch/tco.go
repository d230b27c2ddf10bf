package watch

import (
	"net/url"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// ProfileOf is a saved usage profile's parameters (the comparison form's
// fields as typed, docs/RULES.md §2.1) as the engine's profile; ok is false
// when they do not make a valid profile.
func ProfileOf(params map[string]string) (p tco.Profile, ok bool) {
	values := url.Values{}
	for k, v := range params {
		values.Set(k, v)
	}
	p, errs := tcoapi.ProfileFromForm(values)
	return p, len(errs) == 0
}

// TCOPrice is what a TCO watch compares with its target (docs/RULES.md
// §24.1): quote q's confirmed TCO for profile p over the profile's
// horizon, in the chosen mode, in currency — priced exactly as the
// compare page prices that one quote (compare.Run), converted at fx (1
// unit of q's currency = fx.Rate units of currency; ignored when the
// currencies are the same). ok is false when the compare page would not
// offer it: no rate, the engine cannot price it (a spot-only offer for
// jobs that cannot resume), or the profile rules the quote out (below the
// task's VRAM floor, multi-node training without NVLink).
//
// Reference prices and measured performance are not given: the confirmed
// TCO never reads them (they price the pessimistic TCO and the cost per
// reference GPU-hour), so the figure is the compare page's.
func TCOPrice(q quote.Quote, gpu market.GPUModel, p tco.Profile, currency string, fx *tco.FX, today time.Time) (decimal.Decimal, bool) {
	in := compare.Input{Profile: p, ReportCurrency: currency, Rates: map[string]tco.FX{}, Today: today}
	if q.Currency != currency {
		if fx == nil {
			return decimal.Zero, false
		}
		in.Rates[q.Currency] = *fx
	}
	rows := compare.Run([]compare.Candidate{{Quote: q, GPU: gpu}}, in)
	if len(rows) != 1 || !rows[0].Eligible() {
		return decimal.Zero, false
	}
	return rows[0].Result.TCO, true
}
