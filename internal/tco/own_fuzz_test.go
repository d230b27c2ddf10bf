package tco

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// steppedCrossings is docs/RULES.md §17.2 read literally: at every whole
// month, then every whole hour, evaluate both options from scratch with
// Evaluate and EvaluateOwn and stop at the first where owning costs no
// more. The engine's crossings must always give the same answer.
func steppedCrossings(t testing.TB, q Quote, o Own, p Profile, opts Options) Crossings {
	t.Helper()
	var out Crossings
	at := func(pp Profile) bool {
		r, err := Evaluate(q, pp, opts)
		if err != nil {
			t.Fatalf("Evaluate at H=%s M=%d: %v", pp.HoursPerMonth, pp.Months, err)
		}
		w, err := EvaluateOwn(o, pp, opts)
		if err != nil {
			t.Fatalf("EvaluateOwn at H=%s M=%d: %v", pp.HoursPerMonth, pp.Months, err)
		}
		return w.TCO.LessThanOrEqual(r.TCO)
	}
	for m := 1; m <= MaxMonths; m++ {
		pp := p
		pp.Months = m
		if at(pp) {
			out.FromMonth = m
			break
		}
	}
	for h := 1; h <= 730; h++ {
		pp := p
		pp.HoursPerMonth = decimal.New(int64(h), 0)
		if at(pp) {
			out.FromHours = h
			break
		}
	}
	return out
}

func benchOwn() Own {
	return Own{Currency: "CNY", GPUModel: "RTX 4090", GPUCount: 8, PurchasePrice: d("168000"), ResidualPct: d("15"),
		LifeMonths: 36, PowerLoadW: d("3600"), PowerIdleW: d("600"), PUE: d("1.35"), KWhPrice: d("0.72"),
		AlwaysOn: true, HostingMonthly: d("1800"), OpsMonthly: d("2500"), MaintenancePctPerYear: d("6"),
		SetupOneOff: d("8000"), CapitalRatePerYear: d("0.045"), PricesIncludeTax: false, TaxRate: nd("0.13")}
}

// TestCrossingsAgreeWithStepping compares the engine's crossing points
// with plain stepping over rentals that bill every way: each granularity,
// a commitment, a yearly price that jumps every twelve months, spot,
// stopped hours kept, and tax and currency on both sides.
func TestCrossingsAgreeWithStepping(t *testing.T) {
	type tc struct {
		name string
		q    Quote
		o    Own
		p    Profile
		opts Options
	}
	var cases []tc
	cases = append(cases, tc{"golden", goldenRental(), goldenOwn(), profile("200", 12), Options{}})
	for _, g := range catalog.Granularities {
		q := benchQuote()
		q.BillingGranularity = g
		cases = append(cases, tc{"bench " + string(g), q, benchOwn(), benchProfile(), benchOptions()})
	}
	yearly := goldenRental()
	yearly.Hourly, yearly.Yearly = decimal.NullDecimal{}, nd("9000")
	cases = append(cases, tc{"yearly only", yearly, goldenOwn(), profile("200", 12), Options{}})
	committed := goldenRental()
	committed.Monthly, committed.CommitmentMonths = nd("700"), 24
	cases = append(cases, tc{"monthly with commitment", committed, goldenOwn(), profile("500", 6), Options{}})
	spot := benchQuote()
	spot.Hourly, spot.Monthly, spot.Yearly = decimal.NullDecimal{}, decimal.NullDecimal{}, decimal.NullDecimal{}
	cases = append(cases, tc{"spot only", spot, benchOwn(), benchProfile(), benchOptions()})
	// Stopped hours kept at a flat monthly charge: the rental's total
	// grows with H, then falls at 730 h when no stopped hour is left.
	kept := goldenRental()
	kept.Hourly = nd("1")
	kept.Lines = withLine(kept.Lines, charged(catalog.ItemStoppedRetention, catalog.UnitFlatMonth, "500"))
	keptProfile := profile("200", 1)
	keptProfile.BetweenRuns = catalog.BetweenRunsKeepStopped
	flat := Own{Currency: "CNY", GPUCount: 1, PurchasePrice: d("1200"), LifeMonths: 1, PricesIncludeTax: true}
	cases = append(cases, tc{"stopped hours fall away", kept, flat, keptProfile, Options{}})
	never := goldenRental()
	never.Hourly = nd("0.01")
	cases = append(cases, tc{"never", never, goldenOwn(), profile("200", 12), Options{}})
	for _, c := range cases {
		got, err := OwnCrossings(c.q, c.o, c.p, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := steppedCrossings(t, c.q, c.o, c.p, c.opts); got != want {
			t.Errorf("%s: crossings %+v, stepping gives %+v", c.name, got, want)
		}
	}
	// 1 CNY/h plus 500 a month while stopped hours are kept, against a
	// server costing 1,200: owning costs no more from 700 h (700 + 500),
	// though at 730 h, with no stopped hour left, renting costs only 730.
	got, err := OwnCrossings(kept, flat, keptProfile, Options{})
	if err != nil || got.FromHours != 700 || got.FromMonth != 2 {
		t.Errorf("stopped hours fall away: %+v %v, want hours 700, month 2", got, err)
	}
}

// TestCrossingsFindTheFirstOfSeveral: the difference of the two totals is
// not monotone — a yearly price jumps every twelve months while the
// server's running costs grow every month — so owning can be cheaper, then
// dearer, then cheaper again; the first month counts.
func TestCrossingsFindTheFirstOfSeveral(t *testing.T) {
	q := goldenRental()
	q.Hourly, q.Yearly = decimal.NullDecimal{}, nd("6000")
	o := Own{Currency: "CNY", GPUCount: 1, PurchasePrice: d("5800"), LifeMonths: 1, HostingMonthly: d("300"), PricesIncludeTax: true}
	p := profile("200", 24)
	// own(M) = 5800 + 300 M; rent(M) = 6000 × ⌈M/12⌉. Owning is dearer in
	// months 1–12, cheaper in 13–20, dearer in 21–24, cheaper from 25 on.
	cheaper := func(m int) bool {
		r, err := RentOrBuy(q, o, profile("200", m), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Own.TCO.LessThanOrEqual(r.Rent.TCO)
	}
	for m, want := range map[int]bool{12: false, 13: true, 20: true, 21: false, 24: false, 25: true} {
		if cheaper(m) != want {
			t.Errorf("month %d: own no dearer = %v, want %v", m, !want, want)
		}
	}
	got, err := OwnCrossings(q, o, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := steppedCrossings(t, q, o, p, Options{})
	if got != want || got.FromMonth != 13 {
		t.Errorf("crossings %+v, stepping %+v, want month 13", got, want)
	}
}

// FuzzRentOrBuy checks, on arbitrary input the validator accepts: no
// panic, the own tco is the sum of its rounded lines (each to the cent),
// the upfront cash is at least the setup line, "cheaper" agrees with the
// totals, and the crossing points agree with plain stepping.
func FuzzRentOrBuy(f *testing.F) {
	f.Add("1.98", "", "", "", "200", "0", "0", "", uint8(12), uint8(1), uint8(1), uint16(0), uint8(0),
		"25000", "20", "450", "", "0.6", "0", "0", "0", "", uint8(36), uint8(0))
	f.Add("2.18", "1280", "13500", "0.95", "312.5", "0.5", "100", "0.06", uint8(6), uint8(2), uint8(22), uint16(1234), uint8(7),
		"168000", "15", "3600", "1.35", "0.72", "1800", "6", "8000", "0.045", uint8(36), uint8(3))
	f.Add("0.5", "", "", "0.2", "1.01", "12", "0", "0.06", uint8(2), uint8(2), uint8(2), uint16(8), uint8(6),
		"0.01", "100", "0", "1", "0", "0", "0", "0", "0", uint8(1), uint8(1))
	f.Add("", "", "9000", "", "730", "-1", "1e3", "1", uint8(120), uint8(3), uint8(0), uint16(65535), uint8(255),
		"1000000000000", "0", "1000000", "10", "1000000", "1000000", "100", "1000000", "1", uint8(120), uint8(2))
	f.Add("0.9", "", "", "0.4", "150", "0.8", "0", "", uint8(12), uint8(1), uint8(3), uint16(96), uint8(6),
		"9000", "10", "300", "1.2", "0.9", "200", "5", "500", "0.05", uint8(24), uint8(20))
	f.Fuzz(func(t *testing.T, hourly, monthly, yearly, spot, hours, price, allowance, tax string,
		months, instances, starts uint8, sel uint16, flagsBits uint8,
		purchase, residual, power, pue, kwh, perMonth, pct, setup, capital string, life, ownBits uint8) {
		q, p, opts := fuzzInput(hourly, monthly, yearly, spot, hours, price, allowance, tax, months, instances, starts, sel, flagsBits)
		o := Own{Currency: q.Currency, GPUCount: 1 + int(ownBits%4), PurchasePrice: parsedOrZero(purchase),
			ResidualPct: parsedOrZero(residual), LifeMonths: int(life), PowerLoadW: parsedOrZero(power),
			PowerIdleW: parsedOrZero(power).Div(decimal.New(4, 0)).Truncate(2), PUE: parsedOrZero(pue),
			KWhPrice: parsedOrZero(kwh), AlwaysOn: ownBits&4 != 0, HostingMonthly: parsedOrZero(perMonth),
			OpsMonthly: parsedOrZero(perMonth), MaintenancePctPerYear: parsedOrZero(pct), SetupOneOff: parsedOrZero(setup),
			CapitalRatePerYear: parsedOrZero(capital), PricesIncludeTax: ownBits&8 == 0, TaxRate: parsedOrAbsent(tax)}
		if !o.PricesIncludeTax && !o.TaxRate.Valid {
			o.TaxRate = decimal.NewNullDecimal(decimal.New(13, -2))
		}
		if ownBits&16 != 0 {
			// An always-on server drawing more idle than working: its
			// electricity falls as H grows.
			o.PowerIdleW = o.PowerLoadW.Mul(decimal.New(2, 0))
		}
		r, err := RentOrBuy(q, o, p, opts)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		var total decimal.Decimal
		for _, l := range r.Own.Lines {
			if !l.Amount.Equal(l.Amount.Round(2)) || l.Amount.Sign() < 0 {
				t.Fatalf("%s amount %s", l.Item, l.Amount)
			}
			total = total.Add(l.Amount)
		}
		if !total.Equal(r.Own.TCO) || len(r.Own.Lines) != 7 {
			t.Fatalf("own tco %s != Σ %d lines %s", r.Own.TCO, len(r.Own.Lines), total)
		}
		if r.Own.UpfrontCash.LessThan(r.Own.Lines[6].Amount) {
			t.Fatalf("upfront %s below setup %s", r.Own.UpfrontCash, r.Own.Lines[6].Amount)
		}
		if (r.Cheaper == CheaperOwn) != r.Own.TCO.LessThan(r.Rent.TCO) {
			t.Fatalf("cheaper %s with own %s rent %s", r.Cheaper, r.Own.TCO, r.Rent.TCO)
		}
		if want := steppedCrossings(t, q, o, p, opts); r.Crossings != want {
			t.Fatalf("crossings %+v, stepping gives %+v", r.Crossings, want)
		}
	})
}

// BenchmarkCrossings finds both crossing points of one rental (twelve
// charged lines, every billing mode) and one own option.
func BenchmarkCrossings(b *testing.B) {
	q, o, p, opts := benchQuote(), benchOwn(), benchProfile(), benchOptions()
	if _, err := OwnCrossings(q, o, p, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		crossings(&q, &o, &p, &opts)
	}
}

// BenchmarkCrossingsStepped is the same by plain stepping, for scale.
func BenchmarkCrossingsStepped(b *testing.B) {
	q, o, p, opts := benchQuote(), benchOwn(), benchProfile(), benchOptions()
	b.ReportAllocs()
	for b.Loop() {
		steppedCrossings(b, q, o, p, opts)
	}
}
