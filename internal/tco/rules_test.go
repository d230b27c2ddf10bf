package tco

import (
	"testing"
	"time"

	"gpuquote/internal/catalog"
)

func TestGranularity(t *testing.T) {
	tests := []struct {
		name        string
		g           catalog.Granularity
		price, h    string
		starts      int
		months, n   int
		wantB       string // displayed billable hours per month
		wantCompute string
	}{
		// second: B = H. 2 × 10 × 3 months × 2 instances = 120.
		{"second", catalog.GranularitySecond, "2", "10", 4, 3, 2, "10", "120"},
		// hour, 4 starts: 10/4 = 2.5 h per start → 3 → B = 12; 2 × 12 × 3 × 2 = 144.
		{"hour 4 starts", catalog.GranularityHour, "2", "10", 4, 3, 2, "12", "144"},
		// hour, 1 start: ⌈10⌉ = 10; no rounding when H is whole.
		{"hour 1 start", catalog.GranularityHour, "2", "10", 1, 1, 1, "10", "20"},
		// hour, 1 start, H = 10.2 → 11 → 22.
		{"hour fraction", catalog.GranularityHour, "2", "10.2", 0, 1, 1, "11", "22"},
		// minute, 3 starts: 60 × 10.01 / 3 = 200.2 min → 201 → B = 603/60 =
		// 10.05 h; 0.471 × 10.05 = 4.73355 → 4.73.
		{"minute terminating", catalog.GranularityMinute, "0.471", "10.01", 3, 1, 1, "10.05", "4.73"},
		// minute, 2 starts: 60 × 1.01 / 2 = 30.3 → 31 → B = 62/60 =
		// 1.0333… h; 0.5 × 62/60 = 0.51666… → 0.52 (B shown 1.03).
		{"minute non-terminating", catalog.GranularityMinute, "0.5", "1.01", 2, 1, 1, "1.03", "0.52"},
		// minute, 4 starts, H = 100.5: 1507.5 min per start → 1508 → B =
		// 6032/60 = 100.5333… h; 1.2 × 6032/60 = 120.64 × 2 months = 241.28.
		{"minute 4 starts", catalog.GranularityMinute, "1.2", "100.5", 4, 2, 1, "100.53", "241.28"},
		// second with the same input bills exactly H: 1.2 × 100.5 × 2 = 241.2.
		{"second same input", catalog.GranularitySecond, "1.2", "100.5", 4, 2, 1, "100.5", "241.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := hostkey()
			q.Hourly = nd(tt.price)
			q.BillingGranularity = tt.g
			p := Profile{HoursPerMonth: d(tt.h), Months: tt.months, Instances: tt.n, StartsPerMonth: tt.starts}
			r := mustEval(t, q, p, Options{})
			m := mode(r, catalog.ModeHourly)
			eqNull(t, "billable hours", m.BillableHoursPerMonth, tt.wantB)
			eq(t, "compute", m.ComputeTotal, tt.wantCompute)
		})
	}
}

func TestStoppedRetention(t *testing.T) {
	q := hostkey()
	q.Hourly = nd("1")
	q.Monthly = nd("500")
	q.Lines = withLine(q.Lines, charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.05"))
	p := profile("200", 2)
	p.BetweenRuns = catalog.BetweenRunsKeepStopped

	// Hourly: compute 1 × 200 × 2 = 400; stopped 730 − 200 = 530 h × 0.05 =
	// 26.5 a month × 2 = 53; tco 453. Monthly: 500 × 2 = 1000, stopped 0.
	r := mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeHourly {
		t.Fatalf("chosen %s", r.ChosenMode)
	}
	sl := line(r, catalog.ItemStoppedRetention)
	eq(t, "stopped quantity", sl.Quantity, "530")
	eq(t, "stopped amount", sl.Amount, "53")
	eq(t, "tco", r.TCO, "453")
	eq(t, "monthly tco", mode(r, catalog.ModeMonthly).TCO, "1000")

	// Monthly chosen (H = 730 hourly = 1460 > 1000): line 11 is 0 because
	// the instance is paid whole.
	p.HoursPerMonth = d("730")
	r = mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeMonthly {
		t.Fatalf("chosen %s", r.ChosenMode)
	}
	eq(t, "stopped amount monthly", line(r, catalog.ItemStoppedRetention).Amount, "0")
	eq(t, "tco monthly", r.TCO, "1000")

	// release: nothing is billed while idle.
	p.HoursPerMonth = d("200")
	p.BetweenRuns = catalog.BetweenRunsRelease
	r = mustEval(t, q, p, Options{})
	eq(t, "stopped amount release", line(r, catalog.ItemStoppedRetention).Amount, "0")
	eq(t, "tco release", r.TCO, "400")

	// flat_month: 10 a month whenever stopped hours > 0: 10 × 2 = 20.
	p.BetweenRuns = catalog.BetweenRunsKeepStopped
	q.Lines = withLine(q.Lines, charged(catalog.ItemStoppedRetention, catalog.UnitFlatMonth, "10"))
	r = mustEval(t, q, p, Options{})
	eq(t, "stopped flat", line(r, catalog.ItemStoppedRetention).Amount, "20")

	// Free allowance of stopped hours: (530 − 100) × 0.05 = 21.5 × 2 = 43.
	l := charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.05")
	l.FreeAllowance = d("100")
	q.Lines = withLine(q.Lines, l)
	r = mustEval(t, q, p, Options{})
	eq(t, "stopped with allowance", line(r, catalog.ItemStoppedRetention).Amount, "43")
}

func TestStoppedRetentionMinuteGranularity(t *testing.T) {
	// B = 62/60 h (see TestGranularity); stopped = 730 − 62/60 = 43738/60 =
	// 728.9666… h; 0.01 × 43738/60 = 7.28966… → 7.29; shown 728.97 h.
	q := hostkey()
	q.Hourly = nd("0.5")
	q.BillingGranularity = catalog.GranularityMinute
	q.Lines = withLine(q.Lines, charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.01"))
	p := Profile{HoursPerMonth: d("1.01"), Months: 1, Instances: 1, StartsPerMonth: 2, BetweenRuns: catalog.BetweenRunsKeepStopped}
	r := mustEval(t, q, p, Options{})
	sl := line(r, catalog.ItemStoppedRetention)
	eq(t, "stopped quantity", sl.Quantity, "728.97")
	eq(t, "stopped amount", sl.Amount, "7.29")
	eq(t, "tco", r.TCO, "7.81") // 0.52 + 7.29
}

func TestSpotStoppedUsesSpotHours(t *testing.T) {
	// Spot hours 200 × 1.1 = 220; stopped 730 − 220 = 510 × 0.02 = 10.20.
	q := hostkey()
	q.Hourly = nd("1")
	q.SpotHourly = nd("0.3")
	q.Lines = withLine(q.Lines, charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.02"))
	p := profile("200", 1)
	p.Resumable = true
	p.BetweenRuns = catalog.BetweenRunsKeepStopped
	r := mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeSpot {
		t.Fatalf("chosen %s", r.ChosenMode)
	}
	eq(t, "spot compute", r.ComputeTotal, "66") // 0.3 × 220
	eq(t, "stopped", line(r, catalog.ItemStoppedRetention).Amount, "10.2")
	eq(t, "hourly tco", mode(r, catalog.ModeHourly).TCO, "210.6") // 200 + 530 × 0.02
}

func TestCommitmentAndYearly(t *testing.T) {
	q := hostkey()
	q.Hourly = nd("1")
	q.Monthly = nd("100")
	q.CommitmentMonths = 6
	p := Profile{HoursPerMonth: d("730"), Months: 3, Instances: 1}

	// monthly × max(3, 6) = 600; hourly 730 × 3 = 2190.
	r := mustEval(t, q, p, Options{})
	m := mode(r, catalog.ModeMonthly)
	eq(t, "monthly compute", m.ComputeTotal, "600")
	if m.BilledPeriods != 6 || !hasFlag(r, catalog.FlagCommitmentExceedsHorizon) {
		t.Errorf("periods %d flags %v", m.BilledPeriods, r.Flags)
	}
	q.CommitmentMonths = 2
	r = mustEval(t, q, p, Options{})
	eq(t, "monthly compute", mode(r, catalog.ModeMonthly).ComputeTotal, "300")
	if hasFlag(r, catalog.FlagCommitmentExceedsHorizon) {
		t.Error("flag with commitment ≤ M")
	}

	// yearly × ⌈M/12⌉: M = 13 → 2 years; M = 12 → 1 year; M = 1 → 1 year.
	q.Yearly = nd("1000")
	for _, tt := range []struct {
		months  int
		want    string
		periods int
	}{{13, "2000", 2}, {12, "1000", 1}, {1, "1000", 1}, {25, "3000", 3}} {
		p.Months = tt.months
		r = mustEval(t, q, p, Options{})
		y := mode(r, catalog.ModeYearly)
		eq(t, "yearly compute", y.ComputeTotal, tt.want)
		if y.BilledPeriods != tt.periods {
			t.Errorf("M=%d years %d", tt.months, y.BilledPeriods)
		}
	}
	eqNull(t, "break_even_months", r.BreakEvenMonths, "10") // 1000 ÷ 100
	eqNull(t, "break_even_hours", r.BreakEvenHours, "100")  // 100 ÷ 1
}

func TestSpot(t *testing.T) {
	q := hostkey()
	q.Hourly = nd("0.5")
	q.SpotHourly = nd("0.2")
	p := profile("100", 1)

	// Not resumable: spot listed not_allowed (0.2 × 110 = 22), never chosen.
	r := mustEval(t, q, p, Options{})
	s := mode(r, catalog.ModeSpot)
	if s.Status != catalog.ModeNotAllowed || r.ChosenMode != catalog.ModeHourly || !hasFlag(r, catalog.FlagSpotNotAllowed) {
		t.Errorf("spot %+v chosen %s flags %v", s, r.ChosenMode, r.Flags)
	}
	eq(t, "spot compute shown", s.ComputeTotal, "22")
	eq(t, "tco", r.TCO, "50")

	// Resumable: H × 1.10 = 110 h × 0.2 = 22, chosen.
	p.Resumable = true
	r = mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeSpot || hasFlag(r, catalog.FlagSpotNotAllowed) {
		t.Errorf("chosen %s flags %v", r.ChosenMode, r.Flags)
	}
	eq(t, "tco", r.TCO, "22")
	eqNull(t, "spot hours", mode(r, catalog.ModeSpot).BillableHoursPerMonth, "110")

	// Overhead 0.25: 125 h × 0.2 = 25.
	p.SpotOverhead = nd("0.25")
	r = mustEval(t, q, p, Options{})
	eq(t, "tco overhead 0.25", r.TCO, "25")

	// Hour granularity, 3 starts: 110 h / 3 = 36.67 → 37 → 111 h × 0.2 = 22.2.
	p.SpotOverhead = nd("0.10")
	p.StartsPerMonth = 3
	q.BillingGranularity = catalog.GranularityHour
	r = mustEval(t, q, p, Options{})
	eq(t, "spot hour granularity", mode(r, catalog.ModeSpot).ComputeTotal, "22.2")

	// Only spot priced and not resumable: nothing can be chosen.
	q2 := hostkey()
	q2.Hourly.Valid = false
	q2.SpotHourly = nd("0.2")
	_, err := Evaluate(q2, profile("100", 1), Options{})
	assertFields(t, err, "profile.resumable:no_allowed_mode")
}

func TestTies(t *testing.T) {
	// hourly 1 × 100 = 100 = monthly 100 → hourly (no commitment).
	q := hostkey()
	q.Hourly = nd("1")
	q.Monthly = nd("100")
	r := mustEval(t, q, profile("100", 1), Options{})
	if r.ChosenMode != catalog.ModeHourly {
		t.Errorf("hourly/monthly tie chose %s", r.ChosenMode)
	}
	// monthly 100 × 12 = yearly 1200 → monthly.
	q.Hourly.Valid = false
	q.BillingGranularity = ""
	q.Yearly = nd("1200")
	r = mustEval(t, q, profile("100", 12), Options{})
	if r.ChosenMode != catalog.ModeMonthly {
		t.Errorf("monthly/yearly tie chose %s", r.ChosenMode)
	}
	// spot with overhead 0 ties hourly → hourly (spot can be reclaimed).
	q = hostkey()
	q.Hourly = nd("1")
	q.SpotHourly = nd("1")
	p := profile("100", 1)
	p.Resumable = true
	p.SpotOverhead = nd("0")
	r = mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeHourly {
		t.Errorf("hourly/spot tie chose %s", r.ChosenMode)
	}
}

func TestUnitConversions(t *testing.T) {
	base := Profile{
		HoursPerMonth: d("100"), Months: 1, Instances: 1, StartsPerMonth: 20,
		Mbps: d("50"), SystemDiskGB: d("100"), DataDiskGB: d("500"), ObjectStorageGB: d("1000"),
		SnapshotGB: d("200"), ImageGB: d("30"), EgressGBPerMonth: d("350"), MigrationGB: d("300"),
		PublicIPs: 2,
	}
	tests := []struct {
		name string
		line Line
		want string
	}{
		// bandwidth q = 50 − 10 included = 40 Mbps.
		{"bandwidth per_month 2 × 40", charged(catalog.ItemBandwidth, catalog.UnitPerMonth, "2"), "80"},
		{"bandwidth per_day 0.1 × 40 × 730/24 = 121.666…", charged(catalog.ItemBandwidth, catalog.UnitPerDay, "0.1"), "121.67"},
		{"bandwidth per_hour 0.003 × 40 × 730", charged(catalog.ItemBandwidth, catalog.UnitPerHour, "0.003"), "87.6"},
		{"bandwidth flat_month", charged(catalog.ItemBandwidth, catalog.UnitFlatMonth, "30"), "30"},
		{"egress per_gb 0.08 × 350", charged(catalog.ItemEgress, catalog.UnitPerGB, "0.08"), "28"},
		{"egress flat_month", charged(catalog.ItemEgress, catalog.UnitFlatMonth, "15"), "15"},
		{"migration per_gb 0.1 × 300 once", charged(catalog.ItemDataMigration, catalog.UnitPerGB, "0.1"), "30"},
		{"migration one_off", charged(catalog.ItemDataMigration, catalog.UnitOneOff, "50"), "50"},
		{"public_ip per_hour 0.005 × 2 × 730", charged(catalog.ItemPublicIP, catalog.UnitPerHour, "0.005"), "7.3"},
		{"public_ip per_day 0.1 × 2 × 730/24 = 6.0833…", charged(catalog.ItemPublicIP, catalog.UnitPerDay, "0.1"), "6.08"},
		{"public_ip per_month 3 × 2", charged(catalog.ItemPublicIP, catalog.UnitPerMonth, "3"), "6"},
		// system disk q = 100 − 40 included = 60 GB.
		{"system_disk per_month 0.1 × 60", charged(catalog.ItemSystemDisk, catalog.UnitPerMonth, "0.1"), "6"},
		{"data_disk per_day 0.004 × 500 × 730/24 = 60.833…", charged(catalog.ItemDataDisk, catalog.UnitPerDay, "0.004"), "60.83"},
		{"object_storage per_hour 0.0001 × 1000 × 730", charged(catalog.ItemObjectStorage, catalog.UnitPerHour, "0.0001"), "73"},
		{"bundled flat_month", charged(catalog.ItemBundledAddon, catalog.UnitFlatMonth, "25"), "25"},
		{"bundled per_month", charged(catalog.ItemBundledAddon, catalog.UnitPerMonth, "25"), "25"},
		{"snapshot per_month 0.05 × 200", charged(catalog.ItemSnapshot, catalog.UnitPerMonth, "0.05"), "10"},
		{"image flat_month", charged(catalog.ItemImage, catalog.UnitFlatMonth, "5"), "5"},
		{"image per_day 0.01 × 30 × 730/24 = 9.125", charged(catalog.ItemImage, catalog.UnitPerDay, "0.01"), "9.13"},
		{"start_stop per_event 0.5 × 20", charged(catalog.ItemStartStopSchedule, catalog.UnitPerEvent, "0.5"), "10"},
		{"start_stop flat_month", charged(catalog.ItemStartStopSchedule, catalog.UnitFlatMonth, "8"), "8"},
		// Empty unit means the item's default: snapshot per_month.
		{"default unit", Line{Item: catalog.ItemSnapshot, Status: catalog.StatusCharged, UnitPrice: nd("0.05")}, "10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := hostkey()
			q.IncludedMbps = d("10")
			q.IncludedSystemDiskGB = d("40")
			q.Lines = withLine(q.Lines, tt.line)
			r := mustEval(t, q, base, Options{})
			l := line(r, tt.line.Item)
			eq(t, "amount", l.Amount, tt.want)
			eq(t, "tco", r.TCO, d("47.1").Add(d(tt.want)).String()) // 0.471 × 100 + line
		})
	}
}

func TestHorizonScaling(t *testing.T) {
	// Monthly lines × M × N; one-off lines × N only.
	q := hostkey()
	q.Lines = withLine(q.Lines, charged(catalog.ItemSnapshot, catalog.UnitPerMonth, "0.05"))
	q.Lines = withLine(q.Lines, charged(catalog.ItemDataMigration, catalog.UnitPerGB, "0.1"))
	p := Profile{HoursPerMonth: d("100"), Months: 12, Instances: 2, SnapshotGB: d("200"), MigrationGB: d("300")}
	r := mustEval(t, q, p, Options{})
	eq(t, "snapshot", line(r, catalog.ItemSnapshot).Amount, "240")      // 10 × 12 × 2
	eq(t, "migration", line(r, catalog.ItemDataMigration).Amount, "60") // 30 × 2
	eq(t, "compute", r.ComputeTotal, "1130.4")                          // 0.471 × 100 × 12 × 2
	eq(t, "hidden", r.HiddenTotal, "240")
	eq(t, "one-off", r.OneOffTotal, "60")
	eq(t, "tco", r.TCO, "1430.4")
	eqNull(t, "hidden_share", r.HiddenShare, "0.2097") // 300 ÷ 1430.4 = 0.20973…
	eq(t, "effective", r.EffectivePerGPUHour, "0.596") // 1430.4 ÷ 2400
}

func TestFreeAllowance(t *testing.T) {
	p := profile("100", 3)
	p.Instances = 2
	p.EgressGBPerMonth = d("350")
	tests := []struct {
		unit      catalog.Unit
		price     string
		allowance string
		qty, want string
	}{
		{catalog.UnitPerGB, "0.08", "100", "250", "120"}, // 250 × 0.08 = 20 × 3 × 2
		{catalog.UnitPerGB, "0.08", "400", "0", "0"},     // floor 0
		{catalog.UnitFlatMonth, "15", "100", "250", "90"},
		{catalog.UnitFlatMonth, "15", "350", "0", "0"}, // q = 0: flat not charged
	}
	for _, tt := range tests {
		q := hostkey()
		l := charged(catalog.ItemEgress, tt.unit, tt.price)
		l.FreeAllowance = d(tt.allowance)
		q.Lines = withLine(q.Lines, l)
		r := mustEval(t, q, p, Options{})
		el := line(r, catalog.ItemEgress)
		eq(t, "quantity", el.Quantity, tt.qty)
		eq(t, "amount", el.Amount, tt.want)
	}
}

func TestTax(t *testing.T) {
	q := hostkey()
	q.PricesIncludeTax = false
	q.TaxRate = nd("0.06")
	// 0.471 × 200 × 1.06 = 99.852 → 99.85.
	r := mustEval(t, q, profile("200", 1), Options{})
	eq(t, "taxed compute", r.TCO, "99.85")

	// Tax before rounding, not after: 0.1 × 40 × 730/24 × 1.13 = 137.48333…
	// → 137.48 (rounding first would give 121.67 × 1.13 = 137.4871 → 137.49).
	q.TaxRate = nd("0.13")
	q.Lines = withLine(q.Lines, charged(catalog.ItemBandwidth, catalog.UnitPerDay, "0.1"))
	p := profile("200", 1)
	p.Mbps = d("40")
	r = mustEval(t, q, p, Options{})
	eq(t, "taxed line", line(r, catalog.ItemBandwidth).Amount, "137.48")
	eq(t, "taxed compute", r.ComputeTotal, "106.45") // 94.2 × 1.13 = 106.446

	// Tax-inclusive prices ignore the rate.
	q.PricesIncludeTax = true
	r = mustEval(t, q, profile("200", 1), Options{})
	eq(t, "inclusive", r.TCO, "94.2")
}

func TestFX(t *testing.T) {
	q := hostkey()
	q.Currency = "CNY"
	q.Hourly = nd("3.5")
	opts := Options{ReportCurrency: "EUR", FXRate: nd("0.128"), FXDate: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
	// 3.5 × 200 = 700 CNY × 0.128 = 89.6 EUR.
	r := mustEval(t, q, profile("200", 1), opts)
	eq(t, "converted", r.TCO, "89.6")
	if r.ReportCurrency != "EUR" || r.QuoteCurrency != "CNY" || !r.FXRate.Equal(d("0.128")) || !r.FXDate.Equal(opts.FXDate) {
		t.Errorf("result names %s %s %s %s", r.ReportCurrency, r.QuoteCurrency, r.FXRate, r.FXDate)
	}
	// Converted and taxed before the single rounding:
	// 700 × 0.128 × 1.06 = 94.976 → 94.98; a per_day line
	// 0.1 × 40 × 730/24 × 0.128 × 1.06 = 16.5077… → 16.51.
	q.PricesIncludeTax = false
	q.TaxRate = nd("0.06")
	q.Lines = withLine(q.Lines, charged(catalog.ItemBandwidth, catalog.UnitPerDay, "0.1"))
	p := profile("200", 1)
	p.Mbps = d("40")
	r = mustEval(t, q, p, opts)
	eq(t, "compute", r.ComputeTotal, "94.98")
	eq(t, "line", line(r, catalog.ItemBandwidth).Amount, "16.51")

	// Without a rate the currencies cannot be mixed.
	_, err := Evaluate(q, p, Options{ReportCurrency: "EUR"})
	assertFields(t, err, "fx_rate:fx_rate_required")
	// A rate from Rates works; a rate other than 1 for one currency does not.
	r = mustEval(t, q, p, Options{ReportCurrency: "EUR", Rates: map[string]FX{"CNY": {Rate: d("0.128")}}})
	eq(t, "compute via Rates", r.ComputeTotal, "94.98")
	_, err = Evaluate(q, p, Options{ReportCurrency: "CNY", FXRate: nd("1.01")})
	assertFields(t, err, "fx_rate:fx_rate_not_one")
	r = mustEval(t, q, p, Options{})
	eq(t, "same currency rate", r.FXRate, "1")
}

func TestPessimistic(t *testing.T) {
	p := profile("100", 2)
	p.SnapshotGB = d("200")
	p.EgressGBPerMonth = d("100")

	// Snapshot unconfirmed, reference 0.05 per GB·month: 200 × 0.05 × 2 = 20.
	q := hostkey()
	q.Lines = withLine(q.Lines, Line{Item: catalog.ItemSnapshot, Status: catalog.StatusUnconfirmed})
	refs := []ReferencePrice{{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.05")}}
	r := mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco", r.TCO, "94.2")
	eq(t, "tco_pessimistic", r.TCOPessimistic, "114.2")
	sl := line(r, catalog.ItemSnapshot)
	eq(t, "confirmed amount", sl.Amount, "0")
	eqNull(t, "reference amount", sl.ReferenceAmount, "20")
	eqNull(t, "reference price", sl.ReferenceUnitPrice, "0.05")
	if !hasFlag(r, catalog.FlagUnconfirmedLines) {
		t.Error("no unconfirmed flag")
	}

	// A quote with no lines: all twelve are unconfirmed; egress reference
	// per_gb 0.09 × 100 × 2 = 18; both references count.
	q.Lines = nil
	refs = append(refs, ReferencePrice{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.09")})
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco_pessimistic completed", r.TCOPessimistic, "132.2") // 94.2 + 20 + 18
	for _, l := range r.Lines {
		if l.Status != catalog.StatusUnconfirmed {
			t.Errorf("%s is %s", l.Item, l.Status)
		}
	}

	// No unit named: the highest reference amount is used (flat 40 a
	// month × 2 = 80 beats 18).
	refs2 := append(refs, ReferencePrice{Item: catalog.ItemEgress, Unit: catalog.UnitFlatMonth, UnitPrice: d("40")})
	r = mustEval(t, q, p, Options{ReferencePrices: refs2})
	el := line(r, catalog.ItemEgress)
	eqNull(t, "max reference", el.ReferenceAmount, "80")
	if el.Unit != catalog.UnitFlatMonth {
		t.Errorf("unit %s", el.Unit)
	}

	// The vendor named per_gb (unconfirmed): only the per_gb reference
	// applies, and the unconfirmed allowance is not relied on (100 GB, not 0).
	q.Lines = []Line{{Item: catalog.ItemEgress, Status: catalog.StatusUnconfirmed, Unit: catalog.UnitPerGB, UnitPrice: nd("0.01"), FreeAllowance: d("100")}}
	r = mustEval(t, q, p, Options{ReferencePrices: refs2})
	el = line(r, catalog.ItemEgress)
	eqNull(t, "named unit reference", el.ReferenceAmount, "18")
	eqNull(t, "vendor's price kept", el.UnitPrice, "0.01")

	// A reference in another currency is not used.
	r = mustEval(t, q, p, Options{ReferencePrices: []ReferencePrice{{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.09"), Currency: "USD"}}})
	eq(t, "other currency reference", r.TCOPessimistic, r.TCO.String())

	// Reference prices are converted and taxed like every amount:
	// 0.09 × 100 × 2 × 7.8 × 1.06 = 148.824 → 148.82.
	q.PricesIncludeTax = false
	q.TaxRate = nd("0.06")
	r = mustEval(t, q, p, Options{ReferencePrices: refs, ReportCurrency: "CNY", FXRate: nd("7.8")})
	eqNull(t, "converted reference", line(r, catalog.ItemEgress).ReferenceAmount, "148.82")
}

func TestPessimisticStoppedFollowsMode(t *testing.T) {
	// stopped_retention unconfirmed with reference 0.02/h; keep_stopped.
	// Hourly: 730 − 200 = 530 × 0.02 = 10.6. Monthly chosen → 0.
	q := hostkey()
	q.Hourly = nd("1")
	q.Lines = withLine(q.Lines, Line{Item: catalog.ItemStoppedRetention, Status: catalog.StatusUnconfirmed})
	p := profile("200", 1)
	p.BetweenRuns = catalog.BetweenRunsKeepStopped
	refs := []ReferencePrice{{Item: catalog.ItemStoppedRetention, Unit: catalog.UnitPerHour, UnitPrice: d("0.02")}}
	r := mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "pessimistic hourly", r.TCOPessimistic, "210.6")
	q.Monthly = nd("150")
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	if r.ChosenMode != catalog.ModeMonthly {
		t.Fatalf("chosen %s", r.ChosenMode)
	}
	eq(t, "pessimistic monthly", r.TCOPessimistic, "150")
	eq(t, "hourly mode pessimistic", mode(r, catalog.ModeHourly).TCOPessimistic, "210.6")
}

func TestRates(t *testing.T) {
	q := hostkey()
	q.Monthly = nd("70")
	p := profile("200", 1)

	// effective = 70 ÷ 200 = 0.35; 8 GPUs: 70 ÷ 1600 = 0.04375 → 0.0438.
	r := mustEval(t, q, p, Options{})
	eq(t, "effective", r.EffectivePerGPUHour, "0.35")
	eqNull(t, "per reference absent", r.PerReferenceGPUHour, "")
	eqNull(t, "tokens absent", r.CostPerMillionTokens, "")
	q.GPUCount = 8
	r = mustEval(t, q, p, Options{})
	eq(t, "effective 8 GPUs", r.EffectivePerGPUHour, "0.0438")

	// per reference = 0.35 ÷ 0.8 = 0.4375; ratio above 1 is capped at 1.
	q.GPUCount = 1
	p.PerformanceRatio = nd("0.8")
	r = mustEval(t, q, p, Options{})
	eqNull(t, "per reference", r.PerReferenceGPUHour, "0.4375")
	if !hasFlag(r, catalog.FlagPerformanceBelow85Pct) {
		t.Error("0.8 not flagged")
	}
	p.PerformanceRatio = nd("1.2")
	r = mustEval(t, q, p, Options{})
	eqNull(t, "per reference capped", r.PerReferenceGPUHour, "0.35")
	p.PerformanceRatio = nd("0.85")
	r = mustEval(t, q, p, Options{})
	if hasFlag(r, catalog.FlagPerformanceBelow85Pct) {
		t.Error("exactly 0.85 flagged")
	}
	// per reference from the exact tco: 70 ÷ (200 × 0.3) = 1.1666… → 1.1667.
	p.PerformanceRatio = nd("0.3")
	r = mustEval(t, q, p, Options{})
	eqNull(t, "per reference exact", r.PerReferenceGPUHour, "1.1667")

	// tokens: 0.35 ÷ (1000 × 3600) × 10⁶ = 0.097222… → 0.0972.
	p.TokensPerSecondPerGPU = nd("1000")
	r = mustEval(t, q, p, Options{})
	eqNull(t, "cost per million tokens", r.CostPerMillionTokens, "0.0972")
	// 2500 tokens/s, 8 GPUs, tco 70: 70 × 10⁶ ÷ (1600 × 2500 × 3600) = 0.004861… → 0.0049.
	q.GPUCount = 8
	p.TokensPerSecondPerGPU = nd("2500")
	r = mustEval(t, q, p, Options{})
	eqNull(t, "cost per million tokens 8 GPUs", r.CostPerMillionTokens, "0.0049")
}

func TestHiddenShare(t *testing.T) {
	// compute 70 + snapshot 10 × 1 + migration 20 → 100; share 30 ÷ 100 = 0.3.
	q := hostkey()
	q.Monthly = nd("70")
	q.Lines = withLine(q.Lines, charged(catalog.ItemSnapshot, catalog.UnitPerMonth, "0.05"))
	q.Lines = withLine(q.Lines, charged(catalog.ItemDataMigration, catalog.UnitOneOff, "20"))
	p := profile("200", 1)
	p.SnapshotGB = d("200")
	p.MigrationGB = d("1")
	r := mustEval(t, q, p, Options{})
	eq(t, "tco", r.TCO, "100")
	eqNull(t, "hidden_share", r.HiddenShare, "0.3")
	// tco of zero: no share.
	q = hostkey()
	q.Hourly = nd("0")
	r = mustEval(t, q, profile("10", 1), Options{})
	eqNull(t, "hidden_share of zero", r.HiddenShare, "")
	eq(t, "effective of zero", r.EffectivePerGPUHour, "0")
}

func TestLedgerRounding(t *testing.T) {
	// Three lines of 0.005 each round up on their own (0.01 × 3 = 0.03);
	// summing first would give 0.015 → 0.02. Totals are sums of rounded lines.
	q := hostkey()
	q.Hourly = nd("0")
	q.Lines = withLine(q.Lines, charged(catalog.ItemSnapshot, catalog.UnitPerMonth, "0.005"))
	q.Lines = withLine(q.Lines, charged(catalog.ItemImage, catalog.UnitPerMonth, "0.005"))
	q.Lines = withLine(q.Lines, charged(catalog.ItemObjectStorage, catalog.UnitPerMonth, "0.005"))
	p := profile("10", 1)
	p.SnapshotGB, p.ImageGB, p.ObjectStorageGB = d("1"), d("1"), d("1")
	r := mustEval(t, q, p, Options{})
	eq(t, "hidden", r.HiddenTotal, "0.03")
	eq(t, "tco", r.TCO, "0.03")
}

func TestFlags(t *testing.T) {
	today := time.Date(2026, 4, 2, 15, 0, 0, 0, time.UTC)
	f := false
	tr := true
	tests := []struct {
		name string
		edit func(q *Quote, p *Profile, o *Options)
		flag catalog.Flag
		want bool
	}{
		{"shared", func(q *Quote, p *Profile, o *Options) { q.Sharing = catalog.SharingShared }, catalog.FlagSharedNotDedicated, true},
		{"vgpu", func(q *Quote, p *Profile, o *Options) { q.Sharing = catalog.SharingVGPU }, catalog.FlagSharedNotDedicated, true},
		{"dedicated", func(q *Quote, p *Profile, o *Options) { q.Sharing = catalog.SharingDedicated }, catalog.FlagSharedNotDedicated, false},
		{"penalty 20", func(q *Quote, p *Profile, o *Options) { q.EarlyTerminationPct = nd("20") }, catalog.FlagEarlyTerminationGE20Pct, true},
		{"penalty 19.99", func(q *Quote, p *Profile, o *Options) { q.EarlyTerminationPct = nd("19.99") }, catalog.FlagEarlyTerminationGE20Pct, false},
		{"deposit not refundable", func(q *Quote, p *Profile, o *Options) { q.Deposit, q.DepositRefundable = nd("500"), &f }, catalog.FlagDepositNotRefundable, true},
		{"deposit amount unstated", func(q *Quote, p *Profile, o *Options) { q.DepositRefundable = &f }, catalog.FlagDepositNotRefundable, true},
		{"zero deposit", func(q *Quote, p *Profile, o *Options) { q.Deposit, q.DepositRefundable = nd("0"), &f }, catalog.FlagDepositNotRefundable, false},
		{"deposit refundable", func(q *Quote, p *Profile, o *Options) { q.Deposit, q.DepositRefundable = nd("500"), &tr }, catalog.FlagDepositNotRefundable, false},
		{"deposit unstated", func(q *Quote, p *Profile, o *Options) { q.Deposit = nd("500") }, catalog.FlagDepositNotRefundable, false},
		{"balance", func(q *Quote, p *Profile, o *Options) { q.BalanceWithdrawable = &f }, catalog.FlagBalanceNotWithdrawable, true},
		{"balance ok", func(q *Quote, p *Profile, o *Options) { q.BalanceWithdrawable = &tr }, catalog.FlagBalanceNotWithdrawable, false},
		// 2026-01-01 → 2026-04-02 is 91 days; → 2026-04-01 is 90.
		{"stale 91 days", func(q *Quote, p *Profile, o *Options) { q.AsOf = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, catalog.FlagQuoteStale90d, true},
		{"90 days", func(q *Quote, p *Profile, o *Options) { q.AsOf = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }, catalog.FlagQuoteStale90d, false},
		{"no as-of", func(q *Quote, p *Profile, o *Options) {}, catalog.FlagQuoteStale90d, false},
		{"no today", func(q *Quote, p *Profile, o *Options) {
			q.AsOf, o.Today = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}
		}, catalog.FlagQuoteStale90d, false},
		// LoRA 7B bf16 floor 19.48 GB: a 24 GB card is fine.
		{"lora 7B on 24 GB", func(q *Quote, p *Profile, o *Options) {
			q.VRAMGB, p.Task, p.ParamsBillions = nd("24"), catalog.TaskLoRA, nd("7")
		}, catalog.FlagVRAMBelowTaskFloor, false},
		// Full fine-tune 7B floor 135.4 GB: one 24 GB card is not.
		{"full finetune 7B on 24 GB", func(q *Quote, p *Profile, o *Options) {
			q.VRAMGB, p.Task, p.ParamsBillions = nd("24"), catalog.TaskFullFinetune, nd("7")
		}, catalog.FlagVRAMBelowTaskFloor, true},
		// … but 8 × 24 = 192 GB in one instance shards it.
		{"full finetune 7B on 8 × 24 GB", func(q *Quote, p *Profile, o *Options) {
			q.VRAMGB, q.GPUCount, p.Task, p.ParamsBillions = nd("24"), 8, catalog.TaskFullFinetune, nd("7")
		}, catalog.FlagVRAMBelowTaskFloor, false},
		// Rendering needs 16 GB on each GPU: 4 × 12 GB does not help.
		{"rendering on 4 × 12 GB", func(q *Quote, p *Profile, o *Options) {
			q.VRAMGB, q.GPUCount, p.Task = nd("12"), 4, catalog.TaskRendering
		}, catalog.FlagVRAMBelowTaskFloor, true},
		{"explicit floor", func(q *Quote, p *Profile, o *Options) { q.VRAMGB, o.VRAMFloorGB = nd("24"), nd("40") }, catalog.FlagVRAMBelowTaskFloor, true},
		{"vram unstated", func(q *Quote, p *Profile, o *Options) { o.VRAMFloorGB = nd("40") }, catalog.FlagVRAMBelowTaskFloor, false},
		{"all included", func(q *Quote, p *Profile, o *Options) {}, catalog.FlagUnconfirmedLines, false},
		{"one unconfirmed", func(q *Quote, p *Profile, o *Options) {
			q.Lines = withLine(q.Lines, Line{Item: catalog.ItemImage, Status: catalog.StatusUnconfirmed})
		}, catalog.FlagUnconfirmedLines, true},
		{"eleven lines", func(q *Quote, p *Profile, o *Options) { q.Lines = q.Lines[:11] }, catalog.FlagUnconfirmedLines, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, p, o := hostkey(), profile("200", 1), Options{Today: today}
			tt.edit(&q, &p, &o)
			r := mustEval(t, q, p, o)
			if hasFlag(r, tt.flag) != tt.want {
				t.Errorf("%s = %v, flags %v", tt.flag, !tt.want, r.Flags)
			}
		})
	}
}

func TestFlagOrder(t *testing.T) {
	f := false
	q := hostkey()
	q.Lines = nil
	q.Sharing = catalog.SharingVGPU
	q.SpotHourly = nd("0.1")
	q.Monthly = nd("100")
	q.CommitmentMonths = 12
	q.EarlyTerminationPct = nd("30")
	q.DepositRefundable = &f
	q.BalanceWithdrawable = &f
	q.VRAMGB = nd("8")
	q.AsOf = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := profile("200", 1)
	p.Task, p.ParamsBillions = catalog.TaskInference, nd("70")
	p.PerformanceRatio = nd("0.5")
	r := mustEval(t, q, p, Options{Today: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if len(r.Flags) != len(catalog.Flags) {
		t.Fatalf("flags %v", r.Flags)
	}
	for i := range r.Flags {
		if r.Flags[i] != catalog.Flags[i] {
			t.Errorf("flag %d = %s, want %s", i, r.Flags[i], catalog.Flags[i])
		}
	}
}

func TestVRAMFloor(t *testing.T) {
	tests := []struct {
		task   catalog.Task
		params string
		prec   catalog.Precision
		want   string
	}{
		{catalog.TaskLoRA, "7", catalog.PrecisionBF16, "19.48"},         // 7 × 2.2 × 1.2 + 1
		{catalog.TaskLoRA, "7", "", "19.48"},                            // bf16 by default
		{catalog.TaskLoRA, "13", catalog.PrecisionBF16, "35.32"},        // 13 × 2.2 × 1.2 + 1: not on 24 GB
		{catalog.TaskFullFinetune, "7", catalog.PrecisionBF16, "135.4"}, // 7 × 16 × 1.2 + 1
		{catalog.TaskFullFinetune, "1", catalog.PrecisionFP32, "20.2"},
		{catalog.TaskFullTraining, "7", catalog.PrecisionBF16, "169"}, // 7 × 16 × 1.5 + 1
		{catalog.TaskFullTraining, "7", catalog.PrecisionFP8, "148"},  // 7 × 14 × 1.5 + 1
		{catalog.TaskQLoRA, "65", "", "47.8"},                         // 65 × 0.6 × 1.2 + 1
		{catalog.TaskQLoRA, "7", catalog.PrecisionINT4, "6.04"},       // 7 × 0.6 × 1.2 + 1
		{catalog.TaskInference, "70", catalog.PrecisionINT4, "43"},    // 70 × 0.5 × 1.2 + 1
		{catalog.TaskInference, "7", catalog.PrecisionBF16, "17.8"},   // 7 × 2 × 1.2 + 1
		{catalog.TaskInference, "8", catalog.PrecisionFP8, "10.6"},    // 8 × 1 × 1.2 + 1
		{catalog.TaskRendering, "0", "", "16"},
	}
	for _, tt := range tests {
		got, err := VRAMFloor(tt.task, d(tt.params), tt.prec)
		if err != nil {
			t.Errorf("VRAMFloor(%s, %s, %s): %v", tt.task, tt.params, tt.prec, err)
			continue
		}
		eq(t, string(tt.task)+" "+tt.params+"B "+string(tt.prec), got, tt.want)
	}
	// docs/RULES.md §6.4: a 24 GB card does LoRA of 7B but not full fine-tuning of 7B+.
	lora, _ := VRAMFloor(catalog.TaskLoRA, d("7"), "")
	full, _ := VRAMFloor(catalog.TaskFullFinetune, d("7"), "")
	if lora.GreaterThan(d("24")) || !full.GreaterThan(d("24")) {
		t.Errorf("24 GB rule: lora %s full %s", lora, full)
	}
	for _, bad := range []struct {
		task   catalog.Task
		params string
		prec   catalog.Precision
	}{
		{"pretraining", "7", ""},
		{catalog.TaskFullFinetune, "7", catalog.PrecisionINT4},
		{catalog.TaskQLoRA, "7", catalog.PrecisionBF16},
		{catalog.TaskLoRA, "0", ""},
		{catalog.TaskLoRA, "7", "fp4"},
	} {
		if _, err := VRAMFloor(bad.task, d(bad.params), bad.prec); err == nil {
			t.Errorf("VRAMFloor(%s, %s, %s) accepted", bad.task, bad.params, bad.prec)
		}
	}
}

func TestDaysBetween(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	tests := []struct {
		from, to time.Time
		want     int
	}{
		{time.Date(2026, 1, 1, 23, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 1, 0, 0, 0, time.UTC), 1},
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, shanghai), 90},
		{time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), 2},
		{time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), -1},
	}
	for _, tt := range tests {
		if got := DaysBetween(tt.from, tt.to); got != tt.want {
			t.Errorf("DaysBetween(%v, %v) = %d, want %d", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	a := hostkey() // 0.471 × 200 = 94.2 EUR
	b := hostkey()
	b.Currency = "CNY"
	b.Hourly = nd("3.5") // 700 CNY × 0.128 = 89.6 EUR
	c := hostkey()
	c.GPUCount = 0 // invalid
	dq := hostkey()
	dq.Monthly = nd("70") // 70 EUR
	out := Compare([]Quote{a, b, c, dq}, profile("200", 1), Options{
		ReportCurrency: "EUR",
		Rates:          map[string]FX{"CNY": {Rate: d("0.128")}},
	})
	wantRank := []int{3, 2, 0, 1}
	for i, cmp := range out {
		if cmp.Index != i || cmp.Rank != wantRank[i] {
			t.Errorf("quote %d: index %d rank %d, want rank %d (err %v)", i, cmp.Index, cmp.Rank, wantRank[i], cmp.Err)
		}
	}
	if out[2].Err == nil {
		t.Error("invalid quote priced")
	}
	eq(t, "CNY quote in EUR", out[1].Result.TCO, "89.6")
}

// TestResultStoreHoldsEveryFlag: a result's lines, modes and flags are
// allocated together, in arrays sized for every mode and every flag.
func TestResultStoreHoldsEveryFlag(t *testing.T) {
	var st resultStore
	if len(catalog.Flags) != len(st.flags) {
		t.Errorf("catalog.Flags has %d flags, the result store room for %d", len(catalog.Flags), len(st.flags))
	}
	if len(catalog.Modes) != len(st.modes) {
		t.Errorf("catalog.Modes has %d modes, the result store room for %d", len(catalog.Modes), len(st.modes))
	}
}

// TestStaleBeforeAgreesWithTheFlag: a sample dated before StaleBefore(today)
// is exactly one the engine flags quote_stale_90d.
func TestStaleBeforeAgreesWithTheFlag(t *testing.T) {
	today := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	cut := StaleBefore(today)
	for _, asOf := range []time.Time{cut.AddDate(0, 0, -1), cut, cut.AddDate(0, 0, 1)} {
		if before, flagged := asOf.Before(cut), DaysBetween(asOf, today) > StaleAfterDays; before != flagged {
			t.Errorf("as of %s: before the cut %v, flagged stale %v", asOf.Format(time.DateOnly), before, flagged)
		}
	}
}
