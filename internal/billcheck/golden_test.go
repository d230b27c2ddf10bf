package billcheck

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

func d(s string) decimal.Decimal { return money.MustParse(s) }

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(d(s)) }

func month(t testing.TB, s string) Bill {
	t.Helper()
	m, ok := ParseMonth(s)
	if !ok {
		t.Fatalf("month %q", s)
	}
	return Bill{Month: m, Instances: 1}
}

func line(item Item, q, amount string) Line {
	return Line{Item: item, Quantity: d(q), Amount: d(amount)}
}

// Golden1Quote is the first golden bill's quote (docs/RULES.md §23.7):
// EUR, hourly 0.471 by the second, public IP charged 3.00 a month, egress
// included in writing, the data disk unconfirmed.
func golden1Quote() tco.Quote {
	return tco.Quote{Currency: "EUR", GPUCount: 1, Hourly: nd("0.471"), BillingGranularity: catalog.GranularitySecond,
		PricesIncludeTax: true, Lines: []tco.Line{
			{Item: catalog.ItemPublicIP, Status: catalog.StatusCharged, Unit: catalog.UnitPerMonth, UnitPrice: nd("3.00")},
			{Item: catalog.ItemEgress, Status: catalog.StatusIncluded},
			{Item: catalog.ItemDataDisk, Status: catalog.StatusUnconfirmed},
		}}
}

func golden2Quote() tco.Quote {
	return tco.Quote{Currency: "CNY", GPUCount: 1, Hourly: nd("1.98"), BillingGranularity: catalog.GranularityMinute,
		PricesIncludeTax: true, Lines: []tco.Line{
			{Item: catalog.ItemDataDisk, Status: catalog.StatusCharged, Unit: catalog.UnitPerDay, UnitPrice: nd("0.01"), FreeAllowance: d("50")},
			{Item: catalog.ItemStoppedRetention, Status: catalog.StatusCharged, Unit: catalog.UnitPerHour, UnitPrice: nd("0.10")},
		}}
}

func golden3Quote() tco.Quote {
	return tco.Quote{Currency: "CNY", GPUCount: 1, Monthly: nd("3000"), PricesIncludeTax: false, TaxRate: nd("0.06")}
}

type want struct {
	expected, variance string // "" = absent
	verdict            Verdict
}

func check(t *testing.T, q tco.Quote, b Bill, lines []want, totals [5]string) Result {
	t.Helper()
	r, err := Check(q, b, Options{})
	if err != nil {
		t.Fatalf("check: %v (%v)", err, Validate(q, b, Options{}))
	}
	if len(r.Lines) != len(lines) {
		t.Fatalf("%d lines, want %d", len(r.Lines), len(lines))
	}
	show := func(n decimal.NullDecimal) string {
		if !n.Valid {
			return ""
		}
		return n.Decimal.StringFixed(2)
	}
	for i, w := range lines {
		l := r.Lines[i]
		if got := show(l.Expected); got != w.expected {
			t.Errorf("line %d (%s): expected %q, want %q", i, l.Item, got, w.expected)
		}
		if got := show(l.Variance); got != w.variance {
			t.Errorf("line %d (%s): variance %q, want %q", i, l.Item, got, w.variance)
		}
		if l.Verdict != w.verdict {
			t.Errorf("line %d (%s): verdict %s, want %s", i, l.Item, l.Verdict, w.verdict)
		}
	}
	got := [5]string{r.BilledTotal.StringFixed(2), r.ExpectedTotal.StringFixed(2), r.OverchargeTotal.StringFixed(2),
		r.UnderchargeTotal.StringFixed(2), r.UnquotedTotal.StringFixed(2)}
	if got != totals {
		t.Errorf("totals (billed, expected, over, under, unquoted) %v, want %v", got, totals)
	}
	return r
}

// TestGoldenBills are the three golden bills of docs/RULES.md §23.7.
func TestGoldenBills(t *testing.T) {
	t.Run("1 EUR hourly", func(t *testing.T) {
		b := month(t, "2026-11")
		b.Currency, b.PricesIncludeTax = "EUR", true
		b.Lines = []Line{line(ItemComputeHourly, "200", "94.20"), line(Item(catalog.ItemPublicIP), "1", "3.50"),
			line(Item(catalog.ItemEgress), "120", "1.20"), line(Item(catalog.ItemDataDisk), "100", "4.00")}
		r := check(t, golden1Quote(), b, []want{
			{"94.20", "0.00", VerdictMatch}, {"3.00", "0.50", VerdictOvercharged},
			{"0.00", "1.20", VerdictChargedThoughIncluded}, {"", "", VerdictHiddenCostAppeared},
		}, [5]string{"102.90", "97.20", "1.70", "0.00", "4.00"})
		if r.Days != 30 {
			t.Errorf("days %d, want 30", r.Days)
		}
	})
	t.Run("2 CNY allowance by the day", func(t *testing.T) {
		b := month(t, "2026-11")
		b.Currency, b.PricesIncludeTax = "CNY", true
		b.Lines = []Line{line(ItemComputeHourly, "312.5", "618.75"), line(Item(catalog.ItemDataDisk), "6000", "45.00"),
			line(Item(catalog.ItemStoppedRetention), "417.5", "41.75")}
		r := check(t, golden2Quote(), b, []want{
			{"618.75", "0.00", VerdictMatch}, {"45.00", "0.00", VerdictMatch}, {"41.75", "0.00", VerdictMatch},
		}, [5]string{"705.50", "705.50", "0.00", "0.00", "0.00"})
		if a := r.Lines[1].Allowance; !a.Valid || !a.Decimal.Equal(d("1500")) {
			t.Errorf("data disk allowance %v, want 1500 GB-days (50 × 1 × 30)", a)
		}
	})
	t.Run("3 tax added", func(t *testing.T) {
		b := month(t, "2026-11")
		b.Currency, b.PricesIncludeTax = "CNY", true
		b.Lines = []Line{line(ItemComputeMonthly, "1", "3180.00")}
		check(t, golden3Quote(), b, []want{{"3180.00", "0.00", VerdictMatch}},
			[5]string{"3180.00", "3180.00", "0.00", "0.00", "0.00"})
		b.Lines = []Line{line(ItemComputeMonthly, "1", "3000.00")}
		check(t, golden3Quote(), b, []want{{"3180.00", "-180.00", VerdictUndercharged}},
			[5]string{"3000.00", "3180.00", "0.00", "-180.00", "0.00"})
	})
}

// TestAllowanceSpreadsOverLines: two lines of 30 GB and 40 GB against a
// 50 GB allowance expect 0 and 20 GB (docs/RULES.md §23.2).
func TestAllowanceSpreadsOverLines(t *testing.T) {
	q := tco.Quote{Currency: "USD", GPUCount: 1, Hourly: nd("1"), BillingGranularity: catalog.GranularitySecond,
		PricesIncludeTax: true, Lines: []tco.Line{{Item: catalog.ItemEgress, Status: catalog.StatusCharged,
			Unit: catalog.UnitPerGB, UnitPrice: nd("0.09"), FreeAllowance: d("50")}}}
	b := month(t, "2026-02")
	b.Currency, b.PricesIncludeTax = "USD", true
	b.Lines = []Line{line(Item(catalog.ItemEgress), "30", "0"), line(Item(catalog.ItemEgress), "40", "1.80"),
		line(Item(catalog.ItemEgress), "10", "0.90")}
	r, err := Check(q, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct{ allowance, expected string }{{"30", "0.00"}, {"20", "1.80"}, {"0", "0.90"}} {
		l := r.Lines[i]
		if !l.Allowance.Decimal.Equal(d(w.allowance)) || l.Expected.Decimal.StringFixed(2) != w.expected || l.Verdict != VerdictMatch {
			t.Errorf("line %d: allowance %s expected %s %s, want %s %s match", i, l.Allowance.Decimal, l.Expected.Decimal, l.Verdict, w.allowance, w.expected)
		}
	}
	if r.Days != 28 {
		t.Errorf("February 2026 has %d days here, want 28", r.Days)
	}
}

// TestUnitsOverTheMonth: each unit's allowance over the month for N
// instances (docs/RULES.md §23.2), tax taken off, and a currency converted.
func TestUnitsOverTheMonth(t *testing.T) {
	charged := func(item catalog.ItemKey, u catalog.Unit, p, free string) tco.Line {
		return tco.Line{Item: item, Status: catalog.StatusCharged, Unit: u, UnitPrice: nd(p), FreeAllowance: d(free)}
	}
	q := tco.Quote{Currency: "CNY", GPUCount: 1, Hourly: nd("2"), BillingGranularity: catalog.GranularityHour,
		PricesIncludeTax: true, TaxRate: nd("0.06"), Lines: []tco.Line{
			charged(catalog.ItemPublicIP, catalog.UnitPerHour, "0.02", "1"),         // a = 1 × 2 × 31 × 24 = 1488
			charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.5", "10"), // a = 10 × 2 = 20
			charged(catalog.ItemStartStopSchedule, catalog.UnitPerEvent, "1", "3"),  // a = 3 × 2 = 6
			charged(catalog.ItemBundledAddon, catalog.UnitFlatMonth, "50", "0"),
			charged(catalog.ItemSystemDisk, catalog.UnitPerMonth, "0.3", "20"), // a = 40
		}}
	b := month(t, "2026-12")
	b.Currency, b.PricesIncludeTax, b.Instances = "CNY", false, 2
	b.Lines = []Line{
		line(Item(catalog.ItemPublicIP), "1488", "0"),
		line(Item(catalog.ItemStoppedRetention), "30", "4.72"),  // 0.5 × 10 ÷ 1.06 = 4.716…
		line(Item(catalog.ItemStartStopSchedule), "10", "3.77"), // 1 × 4 ÷ 1.06 = 3.773…
		line(Item(catalog.ItemBundledAddon), "2", "94.34"),      // 50 × 2 ÷ 1.06 = 94.339…
		line(Item(catalog.ItemSystemDisk), "100", "16.98"),      // 0.3 × 60 ÷ 1.06 = 16.981…
		line(Item(catalog.ItemImage), "5", "0"),                 // unconfirmed (no line), billed 0
		line(ItemComputeSpot, "10", "5"),                        // the quote has no spot price
		line(ItemOther, "1", "12.5"),
	}
	r, err := Check(q, b, Options{})
	if err != nil {
		t.Fatal(err, Validate(q, b, Options{}))
	}
	verdicts := []Verdict{VerdictMatch, VerdictMatch, VerdictMatch, VerdictMatch, VerdictMatch, VerdictMatch,
		VerdictNotInQuote, VerdictNotInQuote}
	for i, v := range verdicts {
		if r.Lines[i].Verdict != v {
			t.Errorf("line %d (%s): %s (expected %v), want %s", i, r.Lines[i].Item, r.Lines[i].Verdict, r.Lines[i].Expected, v)
		}
	}
	if got := r.UnquotedTotal.StringFixed(2); got != "17.50" {
		t.Errorf("unquoted %s, want 17.50", got)
	}

	// The same quote billed in USD at 0.14: 1488 + 100 IP-hours over → 2 ×
	// 0.02 × 0.14 = 0.0056 → 0.01.
	b.Currency = "USD"
	b.PricesIncludeTax = true
	b.Lines = []Line{line(Item(catalog.ItemPublicIP), "1490", "0.01")}
	if _, err := Check(q, b, Options{}); err == nil {
		t.Fatal("a bill in another currency without a rate was checked")
	}
	r, err = Check(q, b, Options{FXRate: d("0.14")})
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Lines[0]; l.Expected.Decimal.StringFixed(2) != "0.01" || l.Verdict != VerdictMatch {
		t.Errorf("converted line: expected %s %s, want 0.01 match", l.Expected.Decimal, l.Verdict)
	}
}

// TestReferenceExpected: an unconfirmed line gets the reference price's
// amount beside it (the editors' before the market's), its allowance not
// relied on.
func TestReferenceExpected(t *testing.T) {
	q := golden1Quote()
	b := month(t, "2026-11")
	b.Currency, b.PricesIncludeTax = "EUR", true
	b.Lines = []Line{line(Item(catalog.ItemDataDisk), "100", "4.00")}
	refs := []tco.ReferencePrice{
		{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth, UnitPrice: d("0.05"), Source: tco.SourceMarket, QuoteID: 7},
		{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth, UnitPrice: d("0.045")},
		{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerDay, UnitPrice: d("1")},
	}
	r, err := Check(q, b, Options{ReferencePrices: refs})
	if err != nil {
		t.Fatal(err)
	}
	l := r.Lines[0]
	if !l.ReferenceExpected.Valid || l.ReferenceExpected.Decimal.StringFixed(2) != "4.50" || l.Expected.Valid {
		t.Errorf("reference expected %v (expected %v), want 4.50 from the editors' 0.045 per GB-month and no expected", l.ReferenceExpected, l.Expected)
	}
}

func TestValidateNamesEveryField(t *testing.T) {
	q := golden1Quote()
	b := Bill{Currency: "EURO", Instances: 0, Lines: []Line{
		{Item: "gpu", Quantity: d("-1"), Amount: d("1")},
		{Item: ItemComputeHourly, Quantity: d("1"), Amount: d("0.1234567")},
	}}
	got := map[string]string{}
	for _, e := range Validate(q, b, Options{}) {
		got[e.Field] = e.Code
	}
	for f, code := range map[string]string{
		"bill.month": tco.CodeRequired, "bill.currency": tco.CodeUnknownCurrency, "bill.instances": tco.CodeIntOutOfRange,
		"bill.lines[0].item": tco.CodeUnknownBillItem, "bill.lines[0].quantity": tco.CodeNegative,
		"bill.lines[1].amount": tco.CodeTooManyDecimals,
	} {
		if got[f] != code {
			t.Errorf("%s: %q, want %q (all: %v)", f, got[f], code, got)
		}
	}
	if _, ok := ParseMonth("2026-13"); ok {
		t.Error("2026-13 read as a month")
	}
}

func TestBudget(t *testing.T) {
	confirmed, pessimistic := MonthlyBudget(d("2100"), 3), MonthlyBudget(d("2400.01"), 3)
	if confirmed.StringFixed(2) != "700.00" || pessimistic.StringFixed(2) != "800.00" {
		t.Fatalf("monthly budget %s / %s, want 700.00 / 800.00", confirmed, pessimistic)
	}
	for total, want := range map[string]Budget{"700.00": BudgetWithinConfirmed, "700.01": BudgetWithinPessimistic,
		"800.00": BudgetWithinPessimistic, "800.01": BudgetAbovePessimistic} {
		if got := BudgetOf(d(total), confirmed, pessimistic); got != want {
			t.Errorf("%s: %s, want %s", total, got, want)
		}
	}
}
