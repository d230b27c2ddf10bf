package tco

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/verify"
)

// qty is an exact non-negative quantity: v − minus, or (v − minus)/60 when
// sixtieths is set. Minute billing makes billable hours S × ⌈60H/S⌉ ÷ 60,
// which need not end in a decimal (1 minute = 0.01666… h), so it is
// carried as a count of minutes and divided only inside the single final
// rounding of an amount. The stopped hours 730 − B (docs/RULES.md §3.5)
// keep B as minus, so that the difference, too, is taken only inside that
// rounding; minus is never above v.
type qty struct {
	v, minus  decimal.Decimal
	sixtieths bool
}

func (q qty) positive() bool {
	if q.minus.Sign() == 0 {
		return q.v.Sign() > 0
	}
	return money.Cmp(q.v, q.minus) > 0
}

// value is v − minus: the quantity, or its count of minutes.
func (q qty) value() decimal.Decimal {
	if q.minus.Sign() == 0 {
		return q.v
	}
	return money.Sub(q.v, q.minus)
}

// display is the quantity as a decimal: exact, or rounded half-up to 0.01
// (the hours display rule) when it is a non-terminating number of hours.
func (q qty) display() decimal.Decimal {
	if q.sixtieths {
		return money.DiffQuoRound(q.v, q.minus, nil, sixtyDen, 2)
	}
	return q.value()
}

// den is the divisor that turns q.v into hours: 60 for minutes, else none.
func (q qty) den() []decimal.Decimal {
	if q.sixtieths {
		return sixtyDen
	}
	return nil
}

var sixtyDen = []decimal.Decimal{sixty}

// less returns max(0, q − d) — the free allowance and "above the included"
// rules (docs/RULES.md §3.4) subtract then floor at 0.
func (q qty) less(d decimal.Decimal) qty {
	if d.Sign() == 0 {
		return q
	}
	if q.sixtieths {
		d = money.Product(d, sixty)
	}
	if q.minus.Sign() != 0 {
		d = money.Add(q.minus, d)
	}
	r := money.Sub(q.v, d)
	if r.Sign() < 0 {
		r = decimal.Decimal{}
	}
	return qty{v: r, sixtieths: q.sixtieths}
}

// sub returns max(0, q − d), for a q without minus, keeping d as its minus.
func (q qty) sub(d decimal.Decimal) qty {
	switch c := money.Cmp(q.v, d); {
	case c < 0:
		return qty{sixtieths: q.sixtieths}
	case c == 0:
		return qty{v: money.Sub(q.v, d), sixtieths: q.sixtieths}
	}
	return qty{v: q.v, minus: d, sixtieths: q.sixtieths}
}

func whole(d decimal.Decimal) qty { return qty{v: d} }

// smallInts holds 0…255 as decimals; decimal values are immutable, so they
// can be shared, which saves an allocation per conversion.
var smallInts = func() (a [256]decimal.Decimal) {
	for i := range a {
		a[i] = decimal.New(int64(i), 0)
	}
	return a
}()

// intDec converts a whole number to a decimal.
func intDec(n int) decimal.Decimal {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return decimal.New(int64(n), 0)
}

// billable returns billable hours per month B for Π hours running hours
// (H, or for spot H × (1 + spot_overhead)) and s starts (docs/RULES.md
// §4.1): second → B = Π hours; minute → s × ⌈(Π hours × 60)/s⌉ / 60; hour →
// s × ⌈Π hours/s⌉. Each start is rounded up on its own, so more starts
// never bill less.
func billable(hours []decimal.Decimal, s decimal.Decimal, g catalog.Granularity) qty {
	switch g {
	case catalog.GranularityHour:
		return qty{v: money.CeilMultiple(hours, s)}
	case catalog.GranularityMinute:
		var buf [4]decimal.Decimal
		n := copy(buf[:], hours)
		buf[n] = sixty
		minutes := money.CeilMultiple(buf[:n+1], s)
		// minutes/60 ends in a decimal exactly when minutes is a multiple
		// of 3 (60 = 2²·3·5); then keep it as plain hours.
		if multipleOf3(minutes) {
			return qty{v: money.QuoRound([]decimal.Decimal{minutes}, sixtyDen, 2)}
		}
		return qty{v: minutes, sixtieths: true}
	}
	if len(hours) == 1 {
		return qty{v: hours[0]}
	}
	return qty{v: money.Product(hours...)}
}

// runningHours returns in buf the factors of the running hours per month:
// h, and for spot f = 1 + spot_overhead (docs/RULES.md §4.4); f is zero for
// the other modes.
func runningHours(buf *[2]decimal.Decimal, h, f decimal.Decimal) []decimal.Decimal {
	buf[0], buf[1] = h, f
	if f.Sign() == 0 {
		return buf[:1]
	}
	return buf[:2]
}

// defaultSpotFactor is 1 + DefaultSpotOverhead.
var defaultSpotFactor = one.Add(DefaultSpotOverhead)

// spotFactor is 1 + the profile's spot overhead.
func spotFactor(p *Profile) decimal.Decimal {
	if p.SpotOverhead.Valid {
		return money.Add(one, p.SpotOverhead.Decimal)
	}
	return defaultSpotFactor
}

// stoppedIdx is the table position of stopped_retention, the one line
// whose quantity depends on the billing mode.
var stoppedIdx = catalog.ItemIndex(catalog.ItemStoppedRetention)

// baseQuantity is the quantity per month for one instance of a
// mode-independent item, before the free allowance (docs/RULES.md §3.3).
func baseQuantity(k catalog.ItemKey, q *Quote, p *Profile, starts decimal.Decimal) qty {
	switch k {
	case catalog.ItemBandwidth:
		return whole(p.Mbps).less(q.IncludedMbps) // Mbps above the included
	case catalog.ItemEgress:
		return whole(p.EgressGBPerMonth)
	case catalog.ItemDataMigration:
		return whole(p.MigrationGB) // in at the start plus out at the end, once
	case catalog.ItemPublicIP:
		return whole(intDec(p.PublicIPs))
	case catalog.ItemSystemDisk:
		return whole(p.SystemDiskGB).less(q.IncludedSystemDiskGB)
	case catalog.ItemDataDisk:
		return whole(p.DataDiskGB).less(q.IncludedDataDiskGB)
	case catalog.ItemObjectStorage:
		return whole(p.ObjectStorageGB)
	case catalog.ItemBundledAddon:
		return whole(one) // a mandatory bundle is one per instance
	case catalog.ItemSnapshot:
		return whole(p.SnapshotGB)
	case catalog.ItemImage:
		return whole(p.ImageGB)
	case catalog.ItemStartStopSchedule:
		return whole(starts) // S starts (or scheduled jobs) per month
	}
	return qty{}
}

// multipleOf3 reports whether the whole number n is divisible by 3.
func multipleOf3(n decimal.Decimal) bool {
	if n.Exponent() == 0 && n.NumDigits() <= 18 {
		return n.CoefficientInt64()%3 == 0
	}
	_, r := n.QuoRem(three, 0)
	return r.Sign() == 0
}

// resultStore holds the slices of one Result, allocated at once rather
// than one by one: a line per item, a mode per billing mode and room for
// every risk flag (len(catalog.Modes) and len(catalog.Flags); a test keeps
// them in step).
type resultStore struct {
	lines [catalog.ItemCount]LineResult
	modes [4]ModeResult
	flags [10]catalog.Flag
}

// evaluation holds the per-call state of Evaluate. It keeps no pointer
// to the quote or the profile: the lines priced from it go into the
// result, and escape analysis would then move the caller's quote and
// profile to the heap.
type evaluation struct {
	lines [catalog.ItemCount]Line
	refs  [catalog.ItemCount][]ReferencePrice
	// k are the factors that carry an amount per instance in the quote
	// currency to the report currency for all instances, tax included: N,
	// fx and the tax factor, then M for a monthly amount over the horizon
	// (see setScale). They are multiplied only inside each amount's single
	// rounding, never into a decimal of their own.
	k [4]decimal.Decimal
}

// setScale sets the factors k: n instances, rate fx, tax factor tax and m
// months.
func (e *evaluation) setScale(n, fx, tax, m decimal.Decimal) {
	e.k = [4]decimal.Decimal{n, fx, tax, m}
}

// scaled returns fs followed by the factors k of a one-off amount
// (N × fx × tax) or of a monthly one (× M as well), in buf.
func (e *evaluation) scaled(buf *[8]decimal.Decimal, oneOff bool, fs ...decimal.Decimal) []decimal.Decimal {
	k := e.k[:]
	if oneOff {
		k = e.k[:3]
	}
	n := copy(buf[:], fs)
	return buf[:n+copy(buf[n:], k)]
}

// amount prices one line: the table of docs/RULES.md §3 gives the amount per month for
// one instance from unit, price and quantity; the horizon amount is that
// × M × N (one-off lines × N, once), converted and taxed, then rounded
// half-up to 0.01 once.
func (e *evaluation) amount(it *catalog.Item, u catalog.Unit, p decimal.Decimal, q qty) decimal.Decimal {
	// Nothing to bill: every unit gives 0 for a quantity of 0 (flat units
	// charge only when q > 0), and so does a price of 0.
	if !q.positive() || p.Sign() == 0 {
		return decimal.Decimal{}
	}
	// The factors k carry × M × N × fx × tax (one-off lines: × N × fx × tax).
	var buf [8]decimal.Decimal
	switch u {
	case catalog.UnitPerDay:
		// per unit per day: p·q·730/24 (a month is 730 h = 730/24 days).
		return money.QuoRound(e.scaled(&buf, it.OneOff, p, q.value(), HoursPerMonth), hoursPerDayDen, 2)
	case catalog.UnitPerHour:
		if it.Key != catalog.ItemStoppedRetention {
			// per unit per hour held: p·q·730.
			return money.MulRound(e.scaled(&buf, it.OneOff, p, q.value(), HoursPerMonth), 2)
		}
		// per stopped hour: p·q, q already being hours per month.
	case catalog.UnitFlatMonth, catalog.UnitOneOff:
		// flat: p whenever the quantity is > 0.
		return money.MulRound(e.scaled(&buf, it.OneOff, p), 2)
	}
	// per unit of quantity per month (per GB, per event, per stopped hour):
	// p·q, the stopped hours' 730 − B taken inside the rounding.
	return money.DiffQuoRound(q.v, q.minus, e.scaled(&buf, it.OneOff, p), q.den(), 2)
}

var hoursPerDayDen = []decimal.Decimal{HoursPerDay}

// priceLine builds the result line of item idx for base quantity q0 (per
// instance per month, before the free allowance), all but its Quantity: it
// returns the quantity the line shows, which the caller displays (for
// stopped retention, only the chosen mode's is shown).
func (e *evaluation) priceLine(idx int, q0 qty) (LineResult, qty) {
	it := &catalog.Items[idx]
	in := &e.lines[idx]
	lr := LineResult{
		Item:          it.Key,
		Status:        in.Status,
		UnitPrice:     in.UnitPrice,
		FreeAllowance: in.FreeAllowance,
		OneOff:        it.OneOff,
		Unit:          in.Unit,
	}
	if lr.Unit == "" {
		lr.Unit = it.DefaultUnit
	}
	switch in.Status {
	case catalog.StatusCharged:
		q := q0.less(in.FreeAllowance)
		lr.Amount = e.amount(it, lr.Unit, in.UnitPrice.Decimal, q)
		return lr, q
	case catalog.StatusUnconfirmed:
		// Unconfirmed: 0 in the confirmed TCO. An unconfirmed allowance is
		// not relied on either, so the reference price applies to the whole
		// quantity (pessimistic, docs/RULES.md §3.6).
		lr.FreeAllowance = decimal.Decimal{}
		e.reference(it, in.Unit, q0, &lr)
		return lr, q0
	}
	return lr, q0.less(in.FreeAllowance)
}

// reference prices an unconfirmed line for the pessimistic TCO
// (docs/RULES.md §3.6). The editors' reference prices come first; only
// when none of them applies to the line does the market reference stand
// in. Within one source the unit rules are the same: if the vendor named a
// unit, only a reference in that unit applies; otherwise the reference
// giving the highest amount is used (the pessimistic reading), ties going
// to the item's unit order, then to the first given. The line records
// whose figure it is (and, for the market reference, its quote).
func (e *evaluation) reference(it *catalog.Item, unit catalog.Unit, q qty, lr *LineResult) {
	refs := e.refs[catalog.ItemIndex(it.Key)]
	if len(refs) == 0 {
		return
	}
	if !e.pickReference(it, unit, q, refs, false, lr) {
		e.pickReference(it, unit, q, refs, true, lr)
	}
}

// pickReference prices lr with the best reference of one source (the
// market's when market is set, else the editors'); false when none of that
// source applies to the line.
func (e *evaluation) pickReference(it *catalog.Item, unit catalog.Unit, q qty, refs []ReferencePrice, market bool, lr *LineResult) bool {
	found := false
	var best decimal.Decimal
	for _, u := range it.Units {
		if unit != "" && u != unit {
			continue
		}
		for i := range refs {
			r := &refs[i]
			if r.Unit != u || (r.Source == SourceMarket) != market {
				continue
			}
			a := e.amount(it, u, r.UnitPrice, q)
			if !found || money.Cmp(a, best) > 0 {
				found, best = true, a
				lr.Unit = u
				lr.ReferenceUnitPrice = decimal.NewNullDecimal(r.UnitPrice)
				lr.ReferenceAmount = decimal.NewNullDecimal(a)
				lr.ReferenceSource, lr.ReferenceQuoteID = SourceEditor, 0
				if market {
					lr.ReferenceSource, lr.ReferenceQuoteID = SourceMarket, r.QuoteID
				}
			}
		}
	}
	return found
}

// unpriced reports whether the pessimistic TCO leaves line l out
// (docs/RULES.md §3.6): unconfirmed, a quantity above 0 (the bundled add-on
// always counts: its quantity is always 1), and no reference price of
// either kind. An unconfirmed line's quantity is the whole quantity (no
// allowance, §3.4); a stopped-hours quantity shown to 0.01 h is above 0
// exactly when the exact one is (its smallest step, a minute, shows as
// 0.02), so the exact one is asked: positive says whether it is above 0.
func unpriced(l *LineResult, positive bool) bool {
	return l.Status == catalog.StatusUnconfirmed && !l.ReferenceUnitPrice.Valid &&
		(positive || l.Item == catalog.ItemBundledAddon)
}

// pessimisticFigures fills in what the pessimistic TCO of a mode leaves
// out, in table order, and its hidden share: (tco_pessimistic −
// compute_total) ÷ tco_pessimistic, 4 places, absent when it is 0
// (docs/RULES.md §3.6, §6.1).
func pessimisticFigures(mr *ModeResult, lines *[catalog.ItemCount]LineResult, stopped *LineResult, stoppedShown qty) {
	for i := range lines {
		l, positive := &lines[i], lines[i].Quantity.Sign() > 0
		if i == stoppedIdx {
			l, positive = stopped, stoppedShown.positive()
		}
		if unpriced(l, positive) {
			mr.PessimisticUnpriced = append(mr.PessimisticUnpriced, l.Item)
		}
	}
	if mr.TCOPessimistic.Sign() > 0 {
		mr.HiddenSharePessimistic = decimal.NewNullDecimal(money.DiffQuoRound(
			mr.TCOPessimistic, mr.ComputeTotal, nil, []decimal.Decimal{mr.TCOPessimistic}, 4))
	}
}

// tieRank orders modes of equal TCO: "ties go to the mode without a
// commitment" (docs/RULES.md §4.5). Hourly and spot commit to nothing; hourly goes
// first because spot can be reclaimed. Monthly commits to a month (or the
// commitment), yearly to a year, so monthly comes before yearly.
func tieRank(m catalog.Mode) int {
	switch m {
	case catalog.ModeHourly:
		return 0
	case catalog.ModeSpot:
		return 1
	case catalog.ModeMonthly:
		return 2
	}
	return 3
}

// Evaluate prices quote q for profile p under opts by the rules of docs/RULES.md §1–§6.
// Invalid input returns a *ValidationError naming every bad field.
func Evaluate(q Quote, p Profile, opts Options) (Result, error) {
	if errs := Validate(q, p, opts); len(errs) > 0 {
		return Result{}, &ValidationError{Fields: errs}
	}
	return evaluate(&q, &p, &opts), nil
}

func evaluate(q *Quote, p *Profile, opts *Options) Result {
	var e evaluation
	res := Result{QuoteCurrency: q.Currency, ReportCurrency: opts.ReportCurrency}
	if res.ReportCurrency == "" {
		res.ReportCurrency = q.Currency
	}

	// Currency (docs/RULES.md §5.2): one dated rate, quote → report currency; same
	// currency: 1.
	switch {
	case opts.FXRate.Valid:
		res.FXRate, res.FXDate = opts.FXRate.Decimal, opts.FXDate
	case res.ReportCurrency == q.Currency:
		res.FXRate = one
	default:
		fx := opts.Rates[q.Currency]
		res.FXRate, res.FXDate = fx.Rate, fx.Date
	}
	// Tax (docs/RULES.md §5.1): tax-exclusive prices × (1 + tax_rate) before rounding.
	taxFactor := one
	if !q.PricesIncludeTax {
		taxFactor = money.Add(one, q.TaxRate.Decimal)
	}
	n := intDec(p.Instances)
	m := intDec(p.Months)
	e.setScale(n, res.FXRate, taxFactor, m)

	// A quote with fewer than twelve lines is completed with unconfirmed
	// lines: a missing answer is an unconfirmed answer (docs/RULES.md §3.1).
	for i := range catalog.Items {
		e.lines[i] = Line{Item: catalog.Items[i].Key, Status: catalog.StatusUnconfirmed}
	}
	for _, l := range q.Lines {
		i := catalog.ItemIndex(l.Item)
		e.lines[i] = l
	}
	// References must already be in the quote's currency (the caller
	// converts them with ConvertReferences, docs/RULES.md §3.6); one in
	// another currency does not exist for this quote.
	for _, r := range opts.ReferencePrices {
		if r.Currency != "" && r.Currency != q.Currency {
			continue
		}
		i := catalog.ItemIndex(r.Item)
		e.refs[i] = append(e.refs[i], r)
	}

	s := one
	if p.StartsPerMonth > 0 {
		s = intDec(p.StartsPerMonth)
	}
	h := p.HoursPerMonth

	// Mode-independent lines: every item but stopped_retention (docs/RULES.md §3.5:
	// only stopped_retention depends on the mode).
	st := new(resultStore)
	lines := &st.lines
	// The amounts are added once they are all known, each total in one
	// exact sum rather than term by term.
	var monthly, once, refAmounts [catalog.ItemCount]decimal.Decimal
	for i := range catalog.Items {
		if i == stoppedIdx {
			continue
		}
		var shown qty
		lines[i], shown = e.priceLine(i, baseQuantity(catalog.Items[i].Key, q, p, s))
		lines[i].Quantity = shown.display()
		if catalog.Items[i].OneOff {
			once[i] = lines[i].Amount
		} else {
			monthly[i] = lines[i].Amount
		}
		if lines[i].ReferenceAmount.Valid {
			refAmounts[i] = lines[i].ReferenceAmount.Decimal
		}
	}
	hidden, oneOff, refs := money.Sum(monthly[:]...), money.Sum(once[:]...), money.Sum(refAmounts[:]...)

	// Compute, per billing mode the quote offers (docs/RULES.md §4).
	res.Modes = st.modes[:0]
	// The stopped-retention line of each mode, and the quantity it shows,
	// displayed for the chosen mode only.
	var stopped [4]LineResult
	var stoppedShown [4]qty
	chosen := -1
	for _, mode := range catalog.Modes {
		mr := ModeResult{Mode: mode, Status: catalog.ModeAllowed}
		stoppedQ := qty{}
		switch mode {
		case catalog.ModeHourly, catalog.ModeSpot:
			price, f := q.Hourly, decimal.Decimal{}
			if mode == catalog.ModeSpot {
				price = q.SpotHourly
				// Spot needs checkpoint-resume; rework costs extra hours:
				// H × (1 + spot_overhead), billed with the same granularity.
				f = spotFactor(p)
				if !p.Resumable {
					mr.Status = catalog.ModeNotAllowed
				}
			}
			if !price.Valid {
				continue
			}
			var hb [2]decimal.Decimal
			b := billable(runningHours(&hb, h, f), s, q.BillingGranularity)
			mr.BillableHoursPerMonth = decimal.NewNullDecimal(b.display())
			// amount = price × B × M × N, converted and taxed, rounded once.
			var buf [8]decimal.Decimal
			mr.ComputeTotal = money.QuoRound(e.scaled(&buf, false, price.Decimal, b.v), b.den(), 2)
			// Stopped hours bill only in hourly and spot mode with
			// keep_stopped: max(0, 730 − B) (docs/RULES.md §3.5).
			if p.BetweenRuns == catalog.BetweenRunsKeepStopped {
				if b.sixtieths {
					stoppedQ = qty{v: minutesInMonth, sixtieths: true}.sub(b.v)
				} else {
					stoppedQ = whole(HoursPerMonth).sub(b.v)
				}
			}
		case catalog.ModeMonthly:
			if !q.Monthly.Valid {
				continue
			}
			// monthly × max(M, commitment_months) × N.
			mr.BilledPeriods = max(p.Months, q.CommitmentMonths)
			var buf [8]decimal.Decimal
			mr.ComputeTotal = money.MulRound(e.scaled(&buf, true, q.Monthly.Decimal, intDec(mr.BilledPeriods)), 2)
		case catalog.ModeYearly:
			if !q.Yearly.Valid {
				continue
			}
			// yearly × ⌈M/12⌉ × N.
			mr.BilledPeriods = (p.Months + 11) / 12
			var buf [8]decimal.Decimal
			mr.ComputeTotal = money.MulRound(e.scaled(&buf, true, q.Yearly.Decimal, intDec(mr.BilledPeriods)), 2)
		}
		sl, shown := e.priceLine(stoppedIdx, stoppedQ)
		stopped[len(res.Modes)], stoppedShown[len(res.Modes)] = sl, shown
		mr.HiddenTotal = money.Add(hidden, sl.Amount)
		mr.OneOffTotal = oneOff
		// Totals are sums of rounded lines, so the report adds up to the cent.
		mr.TCO = money.Sum(mr.ComputeTotal, mr.HiddenTotal, mr.OneOffTotal)
		mr.TCOPessimistic = money.Sum(mr.TCO, refs, sl.ReferenceAmount.Decimal)
		pessimisticFigures(&mr, lines, &sl, shown)
		// The chosen mode is the allowed mode with the lowest TCO; ties by tieRank.
		if mr.Status == catalog.ModeAllowed {
			if chosen < 0 {
				chosen = len(res.Modes)
			} else if c := mr.TCO.Cmp(res.Modes[chosen].TCO); c < 0 || (c == 0 && tieRank(mode) < tieRank(res.Modes[chosen].Mode)) {
				chosen = len(res.Modes)
			}
		}
		res.Modes = append(res.Modes, mr)
	}

	cm := res.Modes[chosen]
	res.ChosenMode = cm.Mode
	res.ComputeTotal, res.HiddenTotal, res.OneOffTotal = cm.ComputeTotal, cm.HiddenTotal, cm.OneOffTotal
	res.TCO, res.TCOPessimistic = cm.TCO, cm.TCOPessimistic
	res.PessimisticUnpriced, res.HiddenSharePessimistic = cm.PessimisticUnpriced, cm.HiddenSharePessimistic
	lines[stoppedIdx] = stopped[chosen]
	lines[stoppedIdx].Quantity = stoppedShown[chosen].display()
	res.Lines = lines[:]
	res.Modes = res.Modes[:len(res.Modes):len(res.Modes)]

	// break_even_hours = monthly ÷ hourly; break_even_months = yearly ÷
	// monthly (docs/RULES.md §4.6). Tax and currency scale both prices alike, so the
	// quote's own prices give the same figure.
	if q.Monthly.Valid && q.Hourly.Valid && q.Hourly.Decimal.Sign() > 0 {
		res.BreakEvenHours = decimal.NewNullDecimal(money.QuoRound([]decimal.Decimal{q.Monthly.Decimal}, []decimal.Decimal{q.Hourly.Decimal}, 2))
	}
	if q.Yearly.Valid && q.Monthly.Valid && q.Monthly.Decimal.Sign() > 0 {
		res.BreakEvenMonths = decimal.NewNullDecimal(money.QuoRound([]decimal.Decimal{q.Yearly.Decimal}, []decimal.Decimal{q.Monthly.Decimal}, 2))
	}

	// hidden_share = (hidden + one-off) ÷ tco, 4 dp; no share of nothing
	// (docs/RULES.md §6.1). hidden + one-off is exactly tco − compute, so
	// where tco_pessimistic is tco the figure is the chosen mode's
	// hidden_share_pessimistic already.
	if res.TCO.Sign() > 0 {
		if money.Cmp(cm.TCOPessimistic, cm.TCO) == 0 {
			res.HiddenShare = cm.HiddenSharePessimistic
		} else {
			res.HiddenShare = decimal.NewNullDecimal(money.DiffQuoRound(res.TCO, res.ComputeTotal, nil, []decimal.Decimal{res.TCO}, 4))
		}
	}
	// effective_per_gpu_hour = tco ÷ (H × M × N × gpu_count), 4 dp. The
	// derived rates below divide the exact tco once by the exact product of
	// their divisors, rather than dividing an already rounded rate.
	tco := []decimal.Decimal{res.TCO}
	g := intDec(q.GPUCount)
	res.EffectivePerGPUHour = money.QuoRound(tco, []decimal.Decimal{h, m, n, g}, 4)
	// per_reference_gpu_hour = effective ÷ min(performance_ratio, 1).
	if p.PerformanceRatio.Valid {
		r := p.PerformanceRatio.Decimal
		if above(r, one) {
			r = one
		}
		res.PerReferenceGPUHour = decimal.NewNullDecimal(money.QuoRound(tco, []decimal.Decimal{h, m, n, g, r}, 4))
	}
	// cost_per_million_tokens = effective ÷ (tokens/s × 3600) × 10⁶; a rate
	// per unit of output, so 4 dp like the per-hour rates.
	if p.TokensPerSecondPerGPU.Valid {
		res.CostPerMillionTokens = decimal.NewNullDecimal(money.QuoRound(
			[]decimal.Decimal{res.TCO, million},
			[]decimal.Decimal{h, m, n, g, p.TokensPerSecondPerGPU.Decimal, secondsPerHour}, 4))
	}

	res.VRAMFloorGB = vramFloor(p, opts)
	res.Flags = flags(st.flags[:0], &e, q, p, opts.Today, res.VRAMFloorGB)
	return res
}

func vramFloor(p *Profile, opts *Options) decimal.NullDecimal {
	if opts.VRAMFloorGB.Valid {
		return opts.VRAMFloorGB
	}
	return ProfileVRAMFloor(*p)
}

// ProfileVRAMFloor is the VRAM floor of the profile's task (absent when it
// names no task, or the task cannot be estimated).
func ProfileVRAMFloor(p Profile) decimal.NullDecimal {
	if p.Task == "" {
		return decimal.NullDecimal{}
	}
	f, err := VRAMFloor(p.Task, p.ParamsBillions.Decimal, p.Precision)
	if err != nil {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(f)
}

// BelowVRAMFloor reports whether the memory the task can use on the quote
// is below floor: per GPU for rendering, the instance's total otherwise
// (see VRAMFloor). An unknown VRAM or floor is not below.
func BelowVRAMFloor(q Quote, task catalog.Task, floor decimal.NullDecimal) bool {
	if !floor.Valid || !q.VRAMGB.Valid {
		return false
	}
	have := q.VRAMGB.Decimal
	if !VRAMFloorPerGPU(task) {
		have = money.Product(have, intDec(q.GPUCount))
	}
	return money.Cmp(have, floor.Decimal) < 0
}

// flags raises the risk flags of docs/RULES.md §6.3, in catalog.Flags
// order, appending them to out.
func flags(out []catalog.Flag, e *evaluation, q *Quote, p *Profile, today time.Time, floor decimal.NullDecimal) []catalog.Flag {
	// unconfirmed_lines: any line without a written answer, including the
	// items the quote left out.
	for i := range e.lines {
		if e.lines[i].Status == catalog.StatusUnconfirmed {
			out = append(out, catalog.FlagUnconfirmedLines)
			break
		}
	}
	// shared_not_dedicated: a share of a card (shared or vGPU) was quoted.
	if q.Sharing == catalog.SharingShared || q.Sharing == catalog.SharingVGPU {
		out = append(out, catalog.FlagSharedNotDedicated)
	}
	// spot_not_allowed: the quote has a spot price the profile cannot use
	// because its jobs do not resume from checkpoints.
	if q.SpotHourly.Valid && !p.Resumable {
		out = append(out, catalog.FlagSpotNotAllowed)
	}
	// commitment_exceeds_horizon: the monthly figure pays for months beyond
	// the horizon (raised whenever monthly is priced, chosen or not).
	if q.Monthly.Valid && q.CommitmentMonths > p.Months {
		out = append(out, catalog.FlagCommitmentExceedsHorizon)
	}
	// early_termination_ge_20pct: a penalty of 20 % or more (the guides see 20–30 %).
	if q.EarlyTerminationPct.Valid && q.EarlyTerminationPct.Decimal.GreaterThanOrEqual(EarlyTerminationFlagPct) {
		out = append(out, catalog.FlagEarlyTerminationGE20Pct)
	}
	// deposit_not_refundable: the vendor said the deposit is not refundable,
	// and the deposit is not stated to be zero.
	if q.DepositRefundable != nil && !*q.DepositRefundable && !(q.Deposit.Valid && q.Deposit.Decimal.IsZero()) {
		out = append(out, catalog.FlagDepositNotRefundable)
	}
	// balance_not_withdrawable: the vendor said a prepaid balance cannot be
	// withdrawn. Unstated terms are not flagged; they become questions.
	if q.BalanceWithdrawable != nil && !*q.BalanceWithdrawable {
		out = append(out, catalog.FlagBalanceNotWithdrawable)
	}
	// vram_below_task_floor: the memory the task can use is below its floor;
	// per GPU for rendering, the instance's total otherwise (see VRAMFloor).
	if BelowVRAMFloor(*q, p.Task, floor) {
		out = append(out, catalog.FlagVRAMBelowTaskFloor)
	}
	// performance_below_85pct: a trial measured less than 85 % of reference.
	if p.PerformanceRatio.Valid && verify.RatioBelowRule(p.PerformanceRatio.Decimal) {
		out = append(out, catalog.FlagPerformanceBelow85Pct)
	}
	// quote_stale_90d: the prices are more than 90 days older than the
	// evaluation date (editors re-check prices every quarter).
	if !q.AsOf.IsZero() && !today.IsZero() && DaysBetween(q.AsOf, today) > StaleAfterDays {
		out = append(out, catalog.FlagQuoteStale90d)
	}
	return out[:len(out):len(out)]
}

// Comparison is one quote's outcome in Compare.
type Comparison struct {
	// Index is the quote's position in the input.
	Index int
	// Result is the quote's TCO; zero when Err is set.
	Result Result
	// Err is a *ValidationError when the quote cannot be priced.
	Err error
	// Rank is 1 for the lowest TCO among priced quotes, ties by input
	// order; 0 when Err is set.
	Rank int
}

// Compare evaluates many quotes against one profile, in input order, and
// ranks them by TCO in the report currency. Quotes may be in different
// currencies: opts.FXRate is not used, each quote converts with
// opts.Rates[its currency] (rate 1 for the report currency itself). An
// empty ReportCurrency means the first quote's currency.
func Compare(quotes []Quote, p Profile, opts Options) []Comparison {
	out := make([]Comparison, len(quotes))
	if opts.ReportCurrency == "" && len(quotes) > 0 {
		opts.ReportCurrency = quotes[0].Currency
	}
	opts.FXRate, opts.FXDate = decimal.NullDecimal{}, time.Time{}
	order := make([]int, 0, len(quotes))
	for i := range quotes {
		out[i].Index = i
		out[i].Result, out[i].Err = Evaluate(quotes[i], p, opts)
		if out[i].Err == nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return out[order[a]].Result.TCO.LessThan(out[order[b]].Result.TCO)
	})
	for r, i := range order {
		out[i].Rank = r + 1
	}
	return out
}
