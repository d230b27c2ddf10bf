package compare

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// goldenVersion is docs/RULES.md §17.1's worked example as a stored
// version: a 25,000 CNY server, 20 % residual over 36 months, 450 W at
// 0.6 CNY/kWh (its own figure), nothing else.
func goldenVersion(id, optionID int64) own.Version {
	return own.Version{ID: id, OptionID: optionID, Version: 1, Name: "4090 box", GPUModelID: 1, GPUCount: 1, Currency: "CNY",
		PurchasePrice: decimal.RequireFromString("25000"), ResidualPct: decimal.RequireFromString("20"), LifeMonths: 36,
		PowerLoadW: decimal.RequireFromString("450"), PUE: decimal.RequireFromString("1"), KWhPrice: nd("0.6"),
		PricesIncludeTax: true}
}

// ownMarket is a market with the golden rental (quote 1: 1.98 CNY/h,
// second granularity, every line included), a shared golden option
// (version 11 of option 1), a private one of analyst 7 (version 12 of
// option 2), and a shared EUR option priced with a Dutch sample (version
// 13 of option 3).
func ownMarket() memory {
	m := market3()
	c := cand(1, "CNY", "1.98", "", "", m.gpus[0])
	c.Quote.SeriesID, c.Quote.GPUModelID, c.Quote.PlatformID, c.Quote.State = 1, 1, 11, quote.Published
	m.quotes = map[int64]quote.Quote{1: c.Quote}
	eur := goldenVersion(13, 3)
	eur.Currency, eur.KWhPrice, eur.ElectricityRegion = "EUR", decimal.NullDecimal{}, "NL"
	eur.PurchasePrice = decimal.RequireFromString("3200")
	m.ownVersions = map[int64]own.Version{11: goldenVersion(11, 1), 12: goldenVersion(12, 2), 13: eur}
	m.ownOptions = map[int64]own.Option{1: {ID: 1, Shared: true}, 2: {ID: 2, CreatedBy: 7}, 3: {ID: 3, Shared: true}}
	m.power = map[string]own.ElectricityPrice{"NL": {ID: 5, Region: "NL", Currency: "EUR", KWhPrice: decimal.RequireFromString("0.25"), AsOf: loadDay}}
	return m
}

func ownValues(ids ...int64) url.Values {
	v := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"}, "q": {"1"}}
	for _, id := range ids {
		v.Add(OwnParam, strconv.FormatInt(id, 10))
	}
	return v
}

// TestLoadPricesOwnOptions: a ticked option is priced exactly as
// tco.EvaluateOwn prices it with the comparison's profile, with its
// crossings beside the rental and its sensitivity (docs/RULES.md §8.6).
func TestLoadPricesOwnOptions(t *testing.T) {
	cmp, err := Load(context.Background(), ownMarket(), ownValues(11), loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Own) != 1 || !cmp.Own[0].Priced {
		t.Fatalf("own rows %+v", cmp.Own)
	}
	o := cmp.Own[0]
	if o.Result.TCO.StringFixed(2) != "7314.67" || o.Result.UpfrontCash.StringFixed(2) != "25000.00" || len(o.Result.Lines) != 7 {
		t.Errorf("tco %s, upfront %s, %d lines", o.Result.TCO, o.Result.UpfrontCash, len(o.Result.Lines))
	}
	want, _ := tco.EvaluateOwn(goldenVersion(11, 1).Engine(decimal.RequireFromString("0.6")), cmp.Profile, tco.Options{ReportCurrency: "CNY"})
	if !want.TCO.Equal(o.Result.TCO) || !want.EffectivePerGPUHour.Equal(o.Result.EffectivePerGPUHour) {
		t.Errorf("not the engine's figures: %+v vs %+v", o.Result, want)
	}
	if len(o.Crossings) != 1 || o.Crossings[0].QuoteID != 1 || o.Crossings[0].FromMonth != 59 || o.Crossings[0].FromHours != 325 {
		t.Errorf("crossings %+v", o.Crossings)
	}
	if len(o.Sensitivity) != 5 {
		t.Fatalf("sensitivity %+v", o.Sensitivity)
	}
	// Electricity is 648.00 of 7314.67 at 0.6/kWh; at 0.3 it is 324.00, at
	// 0.9 972.00. Depreciation is 20000 × min(12, L) ÷ L.
	got := map[string]string{}
	for _, v := range o.Sensitivity {
		got[v.Key] = v.TCO.StringFixed(2)
	}
	wantV := map[string]string{VariantElectricity50: "6990.67", VariantElectricity150: "7638.67",
		VariantLife24: "10648.00", VariantLife36: "7314.67", VariantLife48: "5648.00"}
	for k, w := range wantV {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	if !o.Curve.Valid || o.Curve.At730.LessThanOrEqual(o.Curve.At0) {
		t.Errorf("curve %+v", o.Curve)
	}
}

// TestLoadOwnVisibility: another analyst's private option, an unknown
// version and ids past MaxOwnSelected are dropped; the author and finance
// see a private option (own.MayRead).
func TestLoadOwnVisibility(t *testing.T) {
	m := ownMarket()
	values := ownValues(12, 99, 11)
	for _, tc := range []struct {
		viewer Viewer
		want   []int64
	}{
		{Viewer{UserID: 8, Role: "analyst"}, []int64{11}},
		{Viewer{}, []int64{11}},
		{Viewer{UserID: 7, Role: "analyst"}, []int64{12, 11}},
		{Viewer{UserID: 9, Role: "finance"}, []int64{12, 11}},
	} {
		cmp, err := LoadFor(context.Background(), m, values, loadDay, tc.viewer, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, o := range cmp.Own {
			got = append(got, o.Version.ID)
		}
		if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("%+v priced %v, want %v", tc.viewer, got, tc.want)
		}
	}
	many := ownValues(1, 2, 3, 4, 5, 6, 11)
	cmp, err := Load(context.Background(), m, many, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.OwnTooMany || len(cmp.OwnSelectedIDs) != MaxOwnSelected || len(cmp.Own) != 0 {
		t.Errorf("too many %v, ids %v, priced %d", cmp.OwnTooMany, cmp.OwnSelectedIDs, len(cmp.Own))
	}
}

// TestLoadOwnConvertsAndDates: an option in another currency converts at
// the dated rate into the report currency and takes its region's sample;
// without a rate it is not priced, and without a sample it says so.
func TestLoadOwnConvertsAndDates(t *testing.T) {
	m := ownMarket()
	values := ownValues(13)
	values.Set("report_currency", "CNY")
	cmp, err := Load(context.Background(), m, values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Own) != 1 || cmp.Own[0].Priced || len(cmp.Own[0].Errors) == 0 || cmp.Own[0].Errors[0].Code != tco.CodeFXRateRequired {
		t.Fatalf("no EUR rate: %+v", cmp.Own)
	}
	m.rates = append(m.rates, marketRate("EUR", "CNY", "7.8"))
	cmp, err = Load(context.Background(), m, values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	o := cmp.Own[0]
	if !o.Priced || !o.Result.FXRate.Equal(decimal.RequireFromString("7.8")) || !o.Result.FXDate.Equal(loadDay) ||
		o.Electricity.SampleID != 5 || len(o.Crossings) != 1 {
		t.Fatalf("EUR option: %+v", o)
	}
	opts := tco.Options{ReportCurrency: "CNY", Rates: map[string]tco.FX{"EUR": {Rate: decimal.RequireFromString("7.8"), Date: loadDay}}}
	want, _ := tco.EvaluateOwn(m.ownVersions[13].Engine(decimal.RequireFromString("0.25")), cmp.Profile, opts)
	if !want.TCO.Equal(o.Result.TCO) {
		t.Errorf("tco %s, want %s", o.Result.TCO, want.TCO)
	}
	delete(m.power, "NL")
	cmp, err = Load(context.Background(), m, values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Own[0].Priced || len(cmp.Own[0].Errors) != 1 || cmp.Own[0].Errors[0].Code != CodeNoElectricitySample {
		t.Errorf("no sample: %+v", cmp.Own[0])
	}
}

func marketRate(base, quoteCur, rate string) market.FXRate {
	return market.FXRate{Base: base, Quote: quoteCur, Rate: decimal.RequireFromString(rate), AsOf: loadDay}
}
