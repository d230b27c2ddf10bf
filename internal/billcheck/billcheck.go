// Package billcheck is the bill check (docs/RULES.md §23): a vendor's bill
// for one calendar month priced again, line by line, by the rules of the
// quote version it was rented under, each difference named. Like the TCO
// engine beside it, it does no IO, reads every amount as a decimal and
// rounds each expected amount once.
package billcheck

import (
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Item is what a bill line charges for: a compute item, one of the twelve
// hidden-cost items (catalog.ItemKey), or ItemOther.
type Item string

// The bill items that are not one of the twelve lines.
const (
	// ItemComputeHourly is on-demand compute; the quantity is instance-hours.
	ItemComputeHourly Item = "compute_hourly"
	// ItemComputeSpot is preemptible compute; the quantity is instance-hours.
	ItemComputeSpot Item = "compute_spot"
	// ItemComputeMonthly is monthly billing; the quantity is instance-months.
	ItemComputeMonthly Item = "compute_monthly"
	// ItemComputeYearly is yearly billing; the quantity is instance-years.
	ItemComputeYearly Item = "compute_yearly"
	// ItemOther is anything the quote has no line for.
	ItemOther Item = "other"
)

// ComputeItems are the compute items in their fixed order.
var ComputeItems = []Item{ItemComputeHourly, ItemComputeSpot, ItemComputeMonthly, ItemComputeYearly}

// Items returns every bill item in order: the compute items, the twelve
// lines in the table's order, then other.
func Items() []Item {
	out := append([]Item(nil), ComputeItems...)
	for _, it := range catalog.Items {
		out = append(out, Item(it.Key))
	}
	return append(out, ItemOther)
}

// Valid reports whether i is a bill item.
func (i Item) Valid() bool {
	return i.Compute() || i == ItemOther || catalog.ItemIndex(catalog.ItemKey(i)) >= 0
}

// Compute reports whether i is one of the compute items.
func (i Item) Compute() bool {
	switch i {
	case ItemComputeHourly, ItemComputeSpot, ItemComputeMonthly, ItemComputeYearly:
		return true
	}
	return false
}

// Mode is the billing mode of a compute item ("" for the others).
func (i Item) Mode() catalog.Mode {
	switch i {
	case ItemComputeHourly:
		return catalog.ModeHourly
	case ItemComputeSpot:
		return catalog.ModeSpot
	case ItemComputeMonthly:
		return catalog.ModeMonthly
	case ItemComputeYearly:
		return catalog.ModeYearly
	}
	return ""
}

// LabelID is the message ID of the item's name: a line of the twelve is
// named as everywhere else.
func (i Item) LabelID() string {
	if i.Compute() || i == ItemOther {
		return "bill.item." + string(i)
	}
	return "item." + string(i)
}

// Verdict names what a bill line is, against the quote.
type Verdict string

// The verdicts of a bill line (docs/RULES.md §23.3).
const (
	VerdictMatch                 Verdict = "match"
	VerdictOvercharged           Verdict = "overcharged"
	VerdictUndercharged          Verdict = "undercharged"
	VerdictChargedThoughIncluded Verdict = "charged_though_included"
	VerdictHiddenCostAppeared    Verdict = "hidden_cost_appeared"
	VerdictNotInQuote            Verdict = "not_in_quote"
)

// Verdicts lists every verdict in order.
var Verdicts = []Verdict{VerdictMatch, VerdictOvercharged, VerdictUndercharged,
	VerdictChargedThoughIncluded, VerdictHiddenCostAppeared, VerdictNotInQuote}

// LabelID is the message ID of the verdict's words.
func (v Verdict) LabelID() string { return "bill.verdict." + string(v) }

// Problem reports whether the verdict is one a person should look at:
// everything but a match.
func (v Verdict) Problem() bool { return v != VerdictMatch }

// Bill is a vendor's bill for one calendar month. Field comments name the
// API's JSON field.
type Bill struct {
	// Month is the first day of the billed month, UTC (month, "YYYY-MM").
	Month time.Time
	// Currency is the ISO 4217 code of every amount (currency).
	Currency string
	// PricesIncludeTax says whether the amounts include tax
	// (prices_include_tax).
	PricesIncludeTax bool
	// Instances is N, the instances billed, ≥ 1 (instances).
	Instances int
	// Lines are the bill's lines in the bill's order (lines).
	Lines []Line
}

// Line is one line of a bill.
type Line struct {
	// Item is what the line charges for (item).
	Item Item
	// Quantity is the billed quantity, ≥ 0, counted as the quote line's
	// unit says (docs/RULES.md §23.2) (quantity).
	Quantity decimal.Decimal
	// Amount is what the vendor billed; negative for a credit (amount).
	Amount decimal.Decimal
	// Description is the vendor's text (description).
	Description string
}

// Options are the check's settings that are not part of the quote or the
// bill.
type Options struct {
	// FXRate converts the quote's currency into the bill's; ignored (1)
	// when they are the same.
	FXRate decimal.Decimal
	// ReferencePrices, in the quote's currency, price unconfirmed lines
	// into ReferenceExpected.
	ReferencePrices []tco.ReferencePrice
}

// LineResult is one checked bill line. Money is in the bill's currency.
type LineResult struct {
	// Item, Quantity, Billed and Description are the bill line's.
	Item        Item
	Quantity    decimal.Decimal
	Billed      decimal.Decimal
	Description string
	// Expected is what the quote's rules charge, rounded to 0.01; absent
	// for unconfirmed lines and lines the quote does not price.
	Expected decimal.NullDecimal
	// Allowance is the part of the free allowance this line used, in the
	// line's quantity; absent where the quote's rule has no allowance.
	Allowance decimal.NullDecimal
	// Variance is billed − expected (for included lines, billed); absent
	// where there is no expected amount.
	Variance decimal.NullDecimal
	// Verdict names the line.
	Verdict Verdict
	// ReferenceExpected is what a reference price would charge for an
	// unconfirmed line, rounded to 0.01; absent when none applies.
	ReferenceExpected decimal.NullDecimal
	// The quote's rule that priced the line, for showing it: the line's
	// status after the written-answer rule ("" for compute and other), the
	// unit, the unit price (for compute: the mode's price) and the free
	// allowance per instance, in the quote's currency and tax basis.
	Status        catalog.Status
	Unit          catalog.Unit
	UnitPrice     decimal.NullDecimal
	FreeAllowance decimal.Decimal
	// ReferenceUnitPrice is the reference price behind ReferenceExpected.
	ReferenceUnitPrice decimal.NullDecimal
}

// Result is the checked bill.
type Result struct {
	// Month is the first day of the month; Days its number of days D.
	Month time.Time
	Days  int
	// Currency is the bill's.
	Currency string
	// FXRate is the rate used, quote currency → bill currency.
	FXRate decimal.Decimal
	// TaxAdjust says how the quote's prices were put on the bill's tax
	// basis: "none", "add_tax" or "remove_tax".
	TaxAdjust string
	// Lines are the checked lines in the bill's order.
	Lines []LineResult
	// The five totals (docs/RULES.md §23.4).
	BilledTotal      decimal.Decimal
	ExpectedTotal    decimal.Decimal
	OverchargeTotal  decimal.Decimal
	UnderchargeTotal decimal.Decimal
	UnquotedTotal    decimal.Decimal
}

// Tolerance is the largest difference between billed and expected that
// still matches: one cent, what rounding on either side can explain.
var Tolerance = decimal.New(1, -2)

var (
	one       = decimal.New(1, 0)
	hoursADay = decimal.New(24, 0)
)

// ErrInvalid is returned by Check for a bill or quote it cannot check;
// Validate names the fields.
var ErrInvalid = errors.New("billcheck: invalid input")

// DaysIn returns the number of days of the month starting at m.
func DaysIn(m time.Time) int {
	return time.Date(m.Year(), m.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// MonthEnd returns the last day of the month starting at m.
func MonthEnd(m time.Time) time.Time {
	return time.Date(m.Year(), m.Month()+1, 0, 0, 0, 0, 0, time.UTC)
}

// ParseMonth reads "YYYY-MM" (years 2000–9999) as the first day of that
// month, UTC.
func ParseMonth(s string) (time.Time, bool) {
	if len(s) != 7 || s[4] != '-' {
		return time.Time{}, false
	}
	m, err := time.Parse("2006-01", s)
	if err != nil || m.Year() < 2000 {
		return time.Time{}, false
	}
	return m, true
}

// MonthText is "YYYY-MM".
func MonthText(m time.Time) string { return m.Format("2006-01") }

// checker holds the state of one Check call.
type checker struct {
	q     *tco.Quote
	lines [catalog.ItemCount]*tco.Line
	// left is the free allowance not yet used, per item, in the bill's
	// quantity; set on the item's first bill line.
	left   [catalog.ItemCount]decimal.Decimal
	leftOK [catalog.ItemCount]bool
	n, d   decimal.Decimal
	// k are the factors from a price in the quote's currency and tax basis
	// to the bill's: fx, and (1 + tax_rate) when tax is added; den holds
	// (1 + tax_rate) when it is taken off.
	k   []decimal.Decimal
	den []decimal.Decimal
}

// Check prices every line of bill b by the rules of quote q. The quote's
// line statuses are taken as given (a stored quote's unwritten "included"
// answers go in as unconfirmed, quote.Quote.Engine). It returns ErrInvalid
// for input Validate refuses.
func Check(q tco.Quote, b Bill, o Options) (Result, error) {
	if len(Validate(q, b, o)) > 0 {
		return Result{}, ErrInvalid
	}
	c := checker{q: &q, n: decimal.New(int64(b.Instances), 0), d: decimal.New(int64(DaysIn(b.Month)), 0)}
	for i := range q.Lines {
		if idx := catalog.ItemIndex(q.Lines[i].Item); idx >= 0 {
			c.lines[idx] = &q.Lines[i]
		}
	}
	r := Result{Month: b.Month, Days: DaysIn(b.Month), Currency: b.Currency, FXRate: one, TaxAdjust: "none"}
	if b.Currency != q.Currency {
		r.FXRate = o.FXRate
	}
	c.k = []decimal.Decimal{r.FXRate}
	switch {
	case !q.PricesIncludeTax && b.PricesIncludeTax:
		r.TaxAdjust = "add_tax"
		c.k = append(c.k, money.Add(one, q.TaxRate.Decimal))
	case q.PricesIncludeTax && !b.PricesIncludeTax:
		r.TaxAdjust = "remove_tax"
		c.den = []decimal.Decimal{money.Add(one, q.TaxRate.Decimal)}
	}
	r.Lines = make([]LineResult, len(b.Lines))
	for i := range b.Lines {
		lr := c.line(&b.Lines[i], o.ReferencePrices)
		r.Lines[i] = lr
		r.BilledTotal = money.Add(r.BilledTotal, lr.Billed)
		if lr.Expected.Valid {
			r.ExpectedTotal = money.Add(r.ExpectedTotal, lr.Expected.Decimal)
		}
		switch lr.Verdict {
		case VerdictOvercharged, VerdictChargedThoughIncluded:
			r.OverchargeTotal = money.Add(r.OverchargeTotal, lr.Variance.Decimal)
		case VerdictUndercharged:
			r.UnderchargeTotal = money.Add(r.UnderchargeTotal, lr.Variance.Decimal)
		case VerdictHiddenCostAppeared, VerdictNotInQuote:
			r.UnquotedTotal = money.Add(r.UnquotedTotal, lr.Billed)
		}
	}
	return r, nil
}

// price converts base quantity × unit price into the bill's currency and
// tax basis, rounded half-up to 0.01 once.
func (c *checker) price(p, q decimal.Decimal) decimal.Decimal {
	num := make([]decimal.Decimal, 0, 4)
	num = append(num, p, q)
	num = append(num, c.k...)
	return money.QuoRound(num, c.den, 2)
}

// line checks one bill line.
func (c *checker) line(l *Line, refs []tco.ReferencePrice) LineResult {
	lr := LineResult{Item: l.Item, Quantity: l.Quantity, Billed: l.Amount, Description: l.Description}
	if l.Item.Compute() {
		p := c.modePrice(l.Item.Mode())
		if !p.Valid {
			lr.Verdict = VerdictNotInQuote
			return lr
		}
		lr.UnitPrice = p
		lr.Expected = decimal.NewNullDecimal(c.price(p.Decimal, l.Quantity))
		return c.against(lr)
	}
	idx := catalog.ItemIndex(catalog.ItemKey(l.Item))
	if idx < 0 {
		lr.Verdict = VerdictNotInQuote
		return lr
	}
	it := &catalog.Items[idx]
	ql := c.lines[idx]
	status := catalog.StatusUnconfirmed
	if ql != nil {
		status = ql.Status
	}
	lr.Status = status
	switch status {
	case catalog.StatusCharged:
		lr.Unit = unitOf(it, ql.Unit)
		lr.UnitPrice = ql.UnitPrice
		lr.FreeAllowance = ql.FreeAllowance
		q := l.Quantity
		if a, ok := c.allowance(it, lr.Unit, ql.FreeAllowance); ok {
			if !c.leftOK[idx] {
				c.left[idx], c.leftOK[idx] = a, true
			}
			used := c.left[idx]
			if money.Cmp(q, used) < 0 {
				used = q
			}
			c.left[idx] = money.Sub(c.left[idx], used)
			q = money.Sub(q, used)
			lr.Allowance = decimal.NewNullDecimal(used)
		}
		lr.Expected = decimal.NewNullDecimal(c.price(ql.UnitPrice.Decimal, q))
		return c.against(lr)
	case catalog.StatusIncluded, catalog.StatusNotApplicable:
		lr.Expected = decimal.NewNullDecimal(decimal.Decimal{})
		lr.Variance = decimal.NewNullDecimal(l.Amount)
		lr.Verdict = VerdictMatch
		if money.Cmp(l.Amount, Tolerance) > 0 {
			lr.Verdict = VerdictChargedThoughIncluded
		}
		return lr
	}
	// Unconfirmed: nothing expected; a reference price says what the
	// vendor's usual rate would have charged, its allowance not relied on.
	lr.Verdict = VerdictMatch
	if l.Amount.Sign() > 0 {
		lr.Verdict = VerdictHiddenCostAppeared
	}
	var named catalog.Unit
	if ql != nil {
		named = ql.Unit
	}
	lr.Unit = unitOf(it, named)
	if rp, ok := pickReference(it.Key, lr.Unit, refs); ok {
		lr.ReferenceUnitPrice = decimal.NewNullDecimal(rp)
		lr.ReferenceExpected = decimal.NewNullDecimal(c.price(rp, l.Quantity))
	}
	return lr
}

// against gives a priced line its variance and verdict.
func (c *checker) against(lr LineResult) LineResult {
	v := money.Sub(lr.Billed, lr.Expected.Decimal)
	lr.Variance = decimal.NewNullDecimal(v)
	switch {
	case money.Cmp(v.Abs(), Tolerance) <= 0:
		lr.Verdict = VerdictMatch
	case v.Sign() > 0:
		lr.Verdict = VerdictOvercharged
	default:
		lr.Verdict = VerdictUndercharged
	}
	return lr
}

// modePrice is the quote's price of a billing mode.
func (c *checker) modePrice(m catalog.Mode) decimal.NullDecimal {
	switch m {
	case catalog.ModeHourly:
		return c.q.Hourly
	case catalog.ModeSpot:
		return c.q.SpotHourly
	case catalog.ModeMonthly:
		return c.q.Monthly
	case catalog.ModeYearly:
		return c.q.Yearly
	}
	return decimal.NullDecimal{}
}

// allowance is the free allowance of a charged line over the month for N
// instances, in the bill's quantity (docs/RULES.md §23.2); false for the
// flat units, which take none.
func (c *checker) allowance(it *catalog.Item, u catalog.Unit, free decimal.Decimal) (decimal.Decimal, bool) {
	switch u {
	case catalog.UnitFlatMonth, catalog.UnitOneOff:
		return decimal.Decimal{}, false
	case catalog.UnitPerDay:
		return money.Product(free, c.n, c.d), true
	case catalog.UnitPerHour:
		if it.Key == catalog.ItemStoppedRetention {
			return money.Product(free, c.n), true
		}
		return money.Product(free, c.n, c.d, hoursADay), true
	}
	// per_month, per_gb, per_event
	return money.Product(free, c.n), true
}

// unitOf is the unit a line is priced in: the one named, else the item's.
func unitOf(it *catalog.Item, u catalog.Unit) catalog.Unit {
	if u == "" {
		return it.DefaultUnit
	}
	return u
}

// pickReference returns the reference price for an item in a unit: the
// editors' first, the market's when editors keep none; the highest of a
// source when it gives several (the pessimistic reading).
func pickReference(item catalog.ItemKey, u catalog.Unit, refs []tco.ReferencePrice) (decimal.Decimal, bool) {
	for _, market := range []bool{false, true} {
		var best decimal.Decimal
		found := false
		for i := range refs {
			r := &refs[i]
			if r.Item != item || r.Unit != u || (r.Source == tco.SourceMarket) != market {
				continue
			}
			if !found || money.Cmp(r.UnitPrice, best) > 0 {
				best, found = r.UnitPrice, true
			}
		}
		if found {
			return best, true
		}
	}
	return decimal.Decimal{}, false
}

// Budget is a month's bill against the approved report's budget.
type Budget string

// The budget verdicts (docs/RULES.md §23.5).
const (
	BudgetWithinConfirmed   Budget = "within_confirmed"
	BudgetWithinPessimistic Budget = "within_pessimistic"
	BudgetAbovePessimistic  Budget = "above_pessimistic"
)

// LabelID is the message ID of the verdict's words.
func (b Budget) LabelID() string { return "bill.budget." + string(b) }

// MonthlyBudget is a horizon figure of a report (its TCO or pessimistic
// TCO for the rented quote) spread over its M months, rounded half-up to
// 0.01.
func MonthlyBudget(horizon decimal.Decimal, months int) decimal.Decimal {
	if months < 1 {
		months = 1
	}
	return money.QuoRound([]decimal.Decimal{horizon}, []decimal.Decimal{decimal.New(int64(months), 0)}, 2)
}

// BudgetOf names where a month's total stands against the monthly budget:
// at most the confirmed one, at most the pessimistic one, or above it.
// All three are in the report's currency, as shown.
func BudgetOf(total, confirmed, pessimistic decimal.Decimal) Budget {
	switch {
	case money.Cmp(total, confirmed) <= 0:
		return BudgetWithinConfirmed
	case money.Cmp(total, pessimistic) <= 0:
		return BudgetWithinPessimistic
	}
	return BudgetAbovePessimistic
}
