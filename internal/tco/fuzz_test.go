package tco

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

func parsedOrAbsent(s string) decimal.NullDecimal {
	v, err := money.ParseDecimal(s)
	if err != nil {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(v)
}

func parsedOrZero(s string) decimal.Decimal { return parsedOrAbsent(s).Decimal }

// fuzzInput builds a quote and profile from fuzzed strings and small ints.
// Invalid combinations are fine: Validate must reject them without panics.
func fuzzInput(hourly, monthly, yearly, spot, hours, price, allowance, tax string,
	months, instances, starts uint8, sel uint16, flagsBits uint8) (Quote, Profile, Options) {
	q := Quote{
		Currency:           "EUR",
		GPUCount:           1 + int(sel%8),
		Hourly:             parsedOrAbsent(hourly),
		Monthly:            parsedOrAbsent(monthly),
		Yearly:             parsedOrAbsent(yearly),
		SpotHourly:         parsedOrAbsent(spot),
		BillingGranularity: catalog.Granularities[int(sel/8)%3],
		PricesIncludeTax:   flagsBits&1 == 0,
		TaxRate:            parsedOrAbsent(tax),
		CommitmentMonths:   int(sel/24) % 14,
		IncludedMbps:       decimal.New(int64(sel%50), 0),
	}
	if !q.PricesIncludeTax && !q.TaxRate.Valid {
		q.TaxRate = decimal.NewNullDecimal(decimal.New(6, -2))
	}
	// Every item gets the fuzzed price, in a unit and status picked from sel.
	for i, it := range catalog.Items {
		k := int(sel>>uint(i%8)) + i
		st := catalog.Statuses[k%4]
		l := Line{Item: it.Key, Status: st, Unit: it.Units[k%len(it.Units)], FreeAllowance: parsedOrZero(allowance)}
		if st == catalog.StatusCharged || st == catalog.StatusUnconfirmed {
			l.UnitPrice = parsedOrAbsent(price)
			if !l.UnitPrice.Valid {
				l.UnitPrice = decimal.NewNullDecimal(decimal.New(1, -2))
			}
		}
		q.Lines = append(q.Lines, l)
	}
	gb := parsedOrZero(price).Abs().Mul(decimal.New(100, 0))
	p := Profile{
		HoursPerMonth:    parsedOrZero(hours),
		Months:           int(months),
		Instances:        int(instances),
		StartsPerMonth:   int(starts),
		Resumable:        flagsBits&2 != 0,
		Mbps:             gb,
		SystemDiskGB:     gb,
		DataDiskGB:       gb,
		ObjectStorageGB:  gb,
		SnapshotGB:       gb,
		ImageGB:          gb,
		EgressGBPerMonth: gb,
		MigrationGB:      gb,
		PublicIPs:        int(sel % 4),
	}
	if flagsBits&4 != 0 {
		p.BetweenRuns = catalog.BetweenRunsKeepStopped
	}
	var refs []ReferencePrice
	for i, it := range catalog.Items {
		if (int(sel)+i)%3 == 0 {
			refs = append(refs, ReferencePrice{Item: it.Key, Unit: it.Units[i%len(it.Units)], UnitPrice: decimal.New(int64(i+1), -2)})
		}
	}
	return q, p, Options{ReferencePrices: refs}
}

func addEvaluateSeeds(f *testing.F) {
	f.Add("0.471", "70", "", "", "200", "0.05", "100", "", uint8(1), uint8(1), uint8(1), uint16(0), uint8(0))
	f.Add("1.2", "500", "5000", "0.3", "100.5", "0.004", "0", "0.13", uint8(13), uint8(3), uint8(4), uint16(77), uint8(7))
	f.Add("0.5", "", "", "0.2", "1.01", "12", "0", "0.06", uint8(2), uint8(2), uint8(2), uint16(8), uint8(6))
	f.Add("", "", "", "0.1", "730", "-1", "1e3", "1", uint8(0), uint8(0), uint8(0), uint16(65535), uint8(255))
	f.Add("3.333333", "2400.5", "", "", "729.999999", "0.000001", "0.5", "", uint8(120), uint8(9), uint8(200), uint16(1234), uint8(5))
}

// FuzzEvaluate checks the ledger invariants on arbitrary valid input:
// tco is the sum of its rounded lines, tco_pessimistic ≥ tco, the chosen
// mode is allowed and no allowed mode is cheaper; invalid input is rejected
// without panicking.
func FuzzEvaluate(f *testing.F) {
	addEvaluateSeeds(f)
	f.Fuzz(func(t *testing.T, hourly, monthly, yearly, spot, hours, price, allowance, tax string,
		months, instances, starts uint8, sel uint16, flagsBits uint8) {
		q, p, o := fuzzInput(hourly, monthly, yearly, spot, hours, price, allowance, tax, months, instances, starts, sel, flagsBits)
		r, err := Evaluate(q, p, o)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		checkLedger(t, r)
		if r.TCOPessimistic.LessThan(r.TCO) {
			t.Fatalf("pessimistic %s < tco %s", r.TCOPessimistic, r.TCO)
		}
		var chosen *ModeResult
		for i := range r.Modes {
			m := &r.Modes[i]
			if m.Mode == r.ChosenMode {
				chosen = m
			}
			if !m.TCO.Equal(m.ComputeTotal.Add(m.HiddenTotal).Add(m.OneOffTotal)) {
				t.Fatalf("mode %s does not add up", m.Mode)
			}
		}
		if chosen == nil || chosen.Status != catalog.ModeAllowed {
			t.Fatalf("chosen %s: %+v", r.ChosenMode, chosen)
		}
		if r.ChosenMode == catalog.ModeSpot && !p.Resumable {
			t.Fatal("spot chosen for a profile that cannot resume")
		}
		for _, m := range r.Modes {
			if m.Status == catalog.ModeAllowed && m.TCO.LessThan(chosen.TCO) {
				t.Fatalf("%s %s cheaper than chosen %s %s", m.Mode, m.TCO, chosen.Mode, chosen.TCO)
			}
		}
		if r.TCO.Sign() < 0 || r.EffectivePerGPUHour.Sign() < 0 {
			t.Fatalf("negative tco %s", r.TCO)
		}
	})
}

// FuzzHourlyMonotone checks that the hourly compute amount never decreases
// when running hours grow, for every granularity and number of starts.
func FuzzHourlyMonotone(f *testing.F) {
	f.Add("0.471", "200", "0.5", uint8(1), uint8(0))
	f.Add("1.2", "100.5", "0.000001", uint8(4), uint8(1))
	f.Add("0.5", "1.01", "3", uint8(2), uint8(2))
	f.Add("9.99", "0.000001", "729.999999", uint8(255), uint8(2))
	f.Fuzz(func(t *testing.T, price, hours, delta string, starts, gran uint8) {
		h1, err1 := money.ParseDecimal(hours)
		dh, err2 := money.ParseDecimal(delta)
		pr, err3 := money.ParseDecimal(price)
		if err1 != nil || err2 != nil || err3 != nil || dh.Sign() < 0 {
			return
		}
		// Keep H2 within the input rules (≤ 730, ≤ 6 decimals) when H1 is.
		h2 := decimal.Min(h1.Add(dh.Truncate(MaxPlaces)), HoursPerMonth)
		q := hostkey()
		q.Hourly = decimal.NewNullDecimal(pr)
		q.BillingGranularity = catalog.Granularities[int(gran)%3]
		p := Profile{HoursPerMonth: h1, Months: 1, Instances: 1, StartsPerMonth: int(starts)}
		r1, err := Evaluate(q, p, Options{})
		if err != nil {
			return
		}
		p.HoursPerMonth = h2
		r2, err := Evaluate(q, p, Options{})
		if err != nil {
			t.Fatalf("H=%s valid, H=%s not: %v", h1, h2, err)
		}
		a, b := mode(r1, catalog.ModeHourly), mode(r2, catalog.ModeHourly)
		if b.ComputeTotal.LessThan(a.ComputeTotal) {
			t.Fatalf("H %s → %s: compute %s → %s", h1, h2, a.ComputeTotal, b.ComputeTotal)
		}
		if b.BillableHoursPerMonth.Decimal.LessThan(a.BillableHoursPerMonth.Decimal) {
			t.Fatalf("H %s → %s: billable %s → %s", h1, h2, a.BillableHoursPerMonth.Decimal, b.BillableHoursPerMonth.Decimal)
		}
		// Billing never charges fewer hours than were run (the figure is
		// exact, or rounded to 0.01 when it does not end in a decimal).
		if a.BillableHoursPerMonth.Decimal.Add(decimal.New(5, -3)).LessThan(h1) {
			t.Fatalf("billable %s < H %s", a.BillableHoursPerMonth.Decimal, h1)
		}
	})
}
