package quote

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/tco"
)

// ExampleHours are the guide's examples of a month's use: trying out
// (50 h), part-time (200 h) and a full month (730 h).
var ExampleHours = []string{"50", "200", "730"}

// Examples evaluates the quote alone, for one instance over one month, at
// each of ExampleHours, in its own currency on day today: what its page
// says about break-even. A spot-only offer is evaluated for jobs that
// resume; otherwise spot is listed beside the allowed modes, never chosen.
// A stored quote always evaluates; the error says one did not.
func Examples(q Quote, today time.Time) ([]tco.Result, error) {
	eq := q.Engine(market.GPUModel{Vendor: q.GPUVendor, Name: q.GPUName})
	spotOnly := !q.Hourly.Valid && !q.Monthly.Valid && !q.Yearly.Valid
	out := make([]tco.Result, 0, len(ExampleHours))
	for _, h := range ExampleHours {
		p := tco.Profile{HoursPerMonth: decimal.RequireFromString(h), Months: 1, Instances: 1, Resumable: spotOnly}
		res, err := tco.Evaluate(eq, p, tco.Options{ReportCurrency: q.Currency, Today: today})
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}
