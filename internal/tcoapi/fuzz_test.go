package tcoapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// FuzzEvaluateBody feeds arbitrary bytes to the API: it must never panic,
// must answer with either a response or field errors, and a response must
// add up.
func FuzzEvaluateBody(f *testing.F) {
	f.Add([]byte(exampleRequest))
	f.Add([]byte(`{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": 0.471, "billing_granularity": "minute", "prices_include_tax": false, "tax_rate": "0.06", "lines": [{"item": "stopped_retention", "status": "charged", "unit": "per_hour", "unit_price": "0.01"}]}, "profile": {"hours_per_month": "1.01", "months": 1, "instances": 1, "starts_per_month": 2, "between_runs": "keep_stopped"}}`))
	f.Add([]byte(`{"quote": {"currency": "CNY", "gpu_count": 8, "spot_hourly": "0.9", "monthly": "900", "billing_granularity": "hour", "prices_include_tax": true}, "report_currency": "EUR", "profile": {"hours_per_month": "730", "months": 13, "instances": 2, "resumable": true}}`))
	f.Add([]byte(`{"quote": {"currency": "EUR", "currency": "EUR"}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[`))
	f.Add([]byte(`{"quote": {"hourly": 1e400}}`))
	f.Add([]byte("\x00\xff{"))
	f.Add([]byte(`{"quote": {"currency": "EUR", "gpu_count": "２", "hourly": "0,5"}, "profile": {"months": "1.5"}}`))
	f.Add([]byte(`{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": "1", "billing_granularity": "hour", "prices_include_tax": true}, "reference_prices": [{"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "CNY"}, {"item": "egress", "unit": "per_gb", "unit_price": "0.07", "source": "market", "quote_id": 12}], "profile": {"hours_per_month": "10", "months": 1, "instances": 1, "egress_gb_per_month": "10"}}`))
	lookup := func(from, to string, day time.Time) (FXRate, bool, error) {
		if from == "CNY" && to == "EUR" {
			return FXRate{Rate: money.MustParse("0.128"), Date: day}, true, nil
		}
		return FXRate{}, false, nil
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, errs, err := Evaluate(body, lookup, today)
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		if len(errs) > 0 {
			for _, e := range errs {
				// A JSON body's problems are worded by code.
				if e.Code == "" || e.MessageID != "err.tco."+e.Code {
					t.Fatalf("bad field error %+v", e)
				}
			}
			if len(errs) > MaxErrors {
				t.Fatalf("%d errors", len(errs))
			}
			return
		}
		if len(resp.Lines) != 12 || resp.Flags == nil || len(resp.Modes) == 0 {
			t.Fatalf("response shape %+v", resp)
		}
		sum := decimal.Zero
		for _, s := range []string{resp.ComputeTotal, resp.HiddenTotal, resp.OneOffTotal} {
			sum = sum.Add(money.MustParse(s))
		}
		if !sum.Equal(money.MustParse(resp.TCO)) {
			t.Fatalf("tco %s != %s", resp.TCO, sum)
		}
		if money.MustParse(resp.TCOPessimistic).LessThan(money.MustParse(resp.TCO)) {
			t.Fatalf("pessimistic %s < tco %s", resp.TCOPessimistic, resp.TCO)
		}
		for _, m := range resp.Modes {
			if m.Mode == resp.ChosenMode && m.Status != "allowed" {
				t.Fatalf("chosen %s is %s", m.Mode, m.Status)
			}
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatal(err)
		}
	})
}
