package tco

import (
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// Cheaper names the option a rent-or-buy comparison finds cheaper.
type Cheaper string

// The two answers. A tie goes to renting (docs/RULES.md §17.3).
const (
	CheaperRent Cheaper = "rent"
	CheaperOwn  Cheaper = "own"
)

// Crossings are the points from which owning costs no more than renting
// (docs/RULES.md §17.2); 0 means none within the range.
type Crossings struct {
	// FromMonth is the smallest whole M in 1…120 at which own tco ≤ rental
	// tco, H and N as in the profile.
	FromMonth int
	// FromHours is the smallest whole H in 1…730 at which own tco ≤ rental
	// tco, M and N as in the profile.
	FromHours int
}

// RentOrBuyResult is a rental quote and an own-hardware option priced with
// one profile (docs/RULES.md §17).
type RentOrBuyResult struct {
	// Rent is the rental's evaluation, exactly as Evaluate gives it.
	Rent Result
	// Own is the own-hardware option's.
	Own OwnResult
	// Cheaper is own when its tco is below the rental's, else rent.
	Cheaper Cheaper
	// Crossings are where owning stops costing more.
	Crossings
}

// RentOrBuy prices quote q and own-hardware option o for profile p, both
// converted with opts, says which is cheaper and finds the crossing points
// (docs/RULES.md §17). Invalid input returns a *ValidationError naming
// every bad field.
func RentOrBuy(q Quote, o Own, p Profile, opts Options) (RentOrBuyResult, error) {
	if errs := ValidateRentOrBuy(q, o, p, opts); len(errs) > 0 {
		return RentOrBuyResult{}, &ValidationError{Fields: errs}
	}
	res := RentOrBuyResult{Rent: evaluate(&q, &p, &opts), Own: evaluateOwn(&o, &p, &opts)}
	res.Cheaper = CheaperRent
	if res.Own.TCO.LessThan(res.Rent.TCO) {
		res.Cheaper = CheaperOwn
	}
	res.Crossings = crossings(&q, &o, &p, &opts)
	return res, nil
}

// OwnCrossings finds the crossing points of o beside q for profile p
// (docs/RULES.md §17.2). Invalid input returns a *ValidationError.
func OwnCrossings(q Quote, o Own, p Profile, opts Options) (Crossings, error) {
	if errs := ValidateRentOrBuy(q, o, p, opts); len(errs) > 0 {
		return Crossings{}, &ValidationError{Fields: errs}
	}
	return crossings(&q, &o, &p, &opts), nil
}

// crossings finds the first whole month 1…120 and the first whole hour
// 1…730 at which owning costs no more than renting, pricing both options
// exactly at each point looked at as Evaluate and EvaluateOwn would
// (docs/RULES.md §17.2). Only the lines that change are priced again, from
// parts worked out once, and steps that cannot cross are skipped (see
// firstNoDearer); the answer is always the one plain stepping gives.
func crossings(q *Quote, o *Own, p *Profile, opts *Options) Crossings {
	r := newRentPricer(q, p, opts)
	_, fx, _ := ownRate(o, opts)
	c := newOwnPricer(o, p.Instances, fx)
	var out Crossings

	// Months: H fixed; every line of both but the one-offs changes with M.
	var lines [ownLineCount]decimal.Decimal
	ownAt := func(m int) decimal.Decimal {
		c.rest(m, &lines)
		lines[2] = c.electricity(p.HoursPerMonth, intDec(m))
		return ownSum(&lines)
	}
	rentAt := func(m int) decimal.Decimal {
		r.setMonths(m)
		return r.tco(p.HoursPerMonth, m)
	}
	// Both totals grow with M: every line is a non-negative amount times M,
	// min(M, L), max(M, commitment) or ⌈M/12⌉, or paid once, and the
	// rental's is the least of modes that each grow. So the rental's own
	// total bounds it from above.
	out.FromMonth = firstNoDearer(MaxMonths, ownAt, rentAt, func(_, m int) decimal.Decimal { return rentAt(m) })

	// Hours: M fixed; of the own lines only electricity changes with H, of
	// the rental's only the compute and stopped-hours lines of hourly and
	// spot billing.
	md := intDec(p.Months)
	r.setMonths(p.Months)
	c.rest(p.Months, &lines)
	lines[2] = decimal.Decimal{}
	fixed := ownSum(&lines)
	ownAt = func(h int) decimal.Decimal { return money.Add(fixed, c.electricity(wholeHours[h], md)) }
	rentAt = func(h int) decimal.Decimal { return r.tco(wholeHours[h], p.Months) }
	if o.AlwaysOn && o.PowerIdleW.GreaterThan(o.PowerLoadW) {
		// Electricity shrinks as H grows when an always-on server draws
		// more idle than working: every hour is priced.
		out.FromHours = firstNoDearer(730, ownAt, rentAt, nil)
		return out
	}
	// Stopped hours kept shrink as running hours grow, so the rental's
	// total may fall; priced at the stopped hours of an earlier H they
	// bound it from above.
	out.FromHours = firstNoDearer(730, ownAt, rentAt, func(from, h int) decimal.Decimal {
		return r.tcoCeiling(wholeHours[h], wholeHours[from], p.Months)
	})
	return out
}

// firstNoDearer returns the smallest x in 1…n with own(x) ≤ rent(x), or 0
// when there is none. Without ceiling it looks at every x in turn. With
// it, the caller knows that own never decreases as x grows and that
// ceiling(from, ·) bounds rent from above from x = from on and never
// decreases (the difference of own and rent may still go either way, so
// there is no bisection on it). Then if own(x) > rent(x), no x' before the
// first y with ceiling(x, y) ≥ own(x) can cross, since there own(x') ≥
// own(x) > ceiling(x, x') ≥ rent(x'). That y is found by galloping, then
// bisecting on the ceiling alone; the search goes on from it.
func firstNoDearer(n int, own, rent func(int) decimal.Decimal, ceiling func(from, x int) decimal.Decimal) int {
	if ceiling == nil {
		for x := 1; x <= n; x++ {
			if own(x).Cmp(rent(x)) <= 0 {
				return x
			}
		}
		return 0
	}
	x := 1
	for {
		o := own(x)
		if o.Cmp(rent(x)) <= 0 {
			return x
		}
		// ceiling(x, lo) < o; find hi > lo with ceiling(x, hi) ≥ o.
		lo, hi := x, 0
		for step := 1; hi == 0; step *= 2 {
			y := lo + step
			if y >= n {
				if ceiling(x, n).Cmp(o) < 0 {
					return 0
				}
				hi = n
			} else if ceiling(x, y).Cmp(o) >= 0 {
				hi = y
			} else {
				lo = y
			}
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if ceiling(x, mid).Cmp(o) >= 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		x = hi
	}
}

// rentPricer gives a rental's tco (the chosen mode's, docs/RULES.md §4.5)
// for any H and M with the quote's other terms and the rest of the profile
// fixed. It prices the lines exactly as evaluate does, through the same
// functions, but only the ones that cost something: charged lines (an
// included, not-applicable or unconfirmed line counts 0 in the confirmed
// tco, §3.1), and nothing of the pessimistic figure, flags or rates.
type rentPricer struct {
	q *Quote
	p *Profile
	e evaluation
	s decimal.Decimal
	// charged are the positions of the charged lines other than stopped
	// retention, with their quantity per month before the allowance.
	charged []int
	q0      []qty
	// oneOff is the one-off lines' total (it does not depend on H or M);
	// hidden is the monthly lines' for the months last set.
	oneOff, hidden decimal.Decimal
	// spotFactor is 1 + spot_overhead.
	spotFactor decimal.Decimal
}

func newRentPricer(q *Quote, p *Profile, opts *Options) *rentPricer {
	r := &rentPricer{q: q, p: p}
	report := opts.ReportCurrency
	if report == "" {
		report = q.Currency
	}
	var fx decimal.Decimal
	switch {
	case opts.FXRate.Valid:
		fx = opts.FXRate.Decimal
	case report == q.Currency:
		fx = one
	default:
		fx = opts.Rates[q.Currency].Rate
	}
	tax := one
	if !q.PricesIncludeTax {
		tax = one.Add(q.TaxRate.Decimal)
	}
	r.e.setScale(intDec(p.Instances), fx, tax, one)
	for i := range catalog.Items {
		r.e.lines[i] = Line{Item: catalog.Items[i].Key, Status: catalog.StatusUnconfirmed}
	}
	for _, l := range q.Lines {
		r.e.lines[catalog.ItemIndex(l.Item)] = l
	}
	r.s = one
	if p.StartsPerMonth > 0 {
		r.s = intDec(p.StartsPerMonth)
	}
	r.spotFactor = spotFactor(p)
	for i := range catalog.Items {
		if i == stoppedIdx || r.e.lines[i].Status != catalog.StatusCharged {
			continue
		}
		q0 := baseQuantity(catalog.Items[i].Key, q, p, r.s)
		if catalog.Items[i].OneOff {
			r.oneOff = money.Add(r.oneOff, r.lineAmount(i, q0))
			continue
		}
		r.charged = append(r.charged, i)
		r.q0 = append(r.q0, q0)
	}
	return r
}

// lineAmount is the amount of charged line i for base quantity q0, as
// priceLine gives it.
func (r *rentPricer) lineAmount(i int, q0 qty) decimal.Decimal {
	in := &r.e.lines[i]
	it := &catalog.Items[i]
	u := in.Unit
	if u == "" {
		u = it.DefaultUnit
	}
	return r.e.amount(it, u, in.UnitPrice.Decimal, q0.less(in.FreeAllowance))
}

// setMonths prices the monthly lines for m months.
func (r *rentPricer) setMonths(m int) {
	r.e.k[3] = intDec(m)
	var amounts [catalog.ItemCount]decimal.Decimal
	for j, i := range r.charged {
		amounts[j] = r.lineAmount(i, r.q0[j])
	}
	r.hidden = money.Sum(amounts[:len(r.charged)]...)
}

// tco is the chosen mode's tco for h hours a month over m months, m being
// the months last set: the lowest of the allowed modes' (ties do not change
// the figure).
func (r *rentPricer) tco(h decimal.Decimal, m int) decimal.Decimal {
	return r.lowest(h, h, m)
}

// tcoCeiling bounds tco(h, m) from above for every h ≥ from: the stopped
// hours of hourly and spot billing are priced as at from, where there are
// at least as many (docs/RULES.md §3.5). It never decreases as h grows.
func (r *rentPricer) tcoCeiling(h, from decimal.Decimal, m int) decimal.Decimal {
	return r.lowest(h, from, m)
}

// lowest is the lowest allowed mode's total with running hours h and
// stopped hours as for running hours stoppedAt.
func (r *rentPricer) lowest(h, stoppedAt decimal.Decimal, m int) decimal.Decimal {
	q, p := r.q, r.p
	var best decimal.Decimal
	found := false
	take := func(t decimal.Decimal) {
		if !found || t.LessThan(best) {
			best, found = t, true
		}
	}
	if q.Hourly.Valid {
		take(r.metered(q.Hourly.Decimal, h, stoppedAt, decimal.Decimal{}))
	}
	if q.SpotHourly.Valid && p.Resumable {
		take(r.metered(q.SpotHourly.Decimal, h, stoppedAt, r.spotFactor))
	}
	if q.Monthly.Valid {
		var buf [8]decimal.Decimal
		take(money.MulRound(r.e.scaled(&buf, true, q.Monthly.Decimal, intDec(max(m, q.CommitmentMonths))), 2))
	}
	if q.Yearly.Valid {
		var buf [8]decimal.Decimal
		take(money.MulRound(r.e.scaled(&buf, true, q.Yearly.Decimal, intDec((m+11)/12)), 2))
	}
	return money.Sum(best, r.hidden, r.oneOff)
}

// metered is an hourly or spot mode's compute for H = hours plus its
// stopped-hours line for H = stoppedAt (docs/RULES.md §4.1, §4.4, §3.5), as
// evaluate prices them when the two are the same; f is spot's 1 +
// spot_overhead, zero for hourly.
func (r *rentPricer) metered(price, hours, stoppedAt, f decimal.Decimal) decimal.Decimal {
	var hb [2]decimal.Decimal
	b := billable(runningHours(&hb, hours, f), r.s, r.q.BillingGranularity)
	var buf [8]decimal.Decimal
	t := money.QuoRound(r.e.scaled(&buf, false, price, b.v), b.den(), 2)
	if r.p.BetweenRuns == catalog.BetweenRunsKeepStopped && r.e.lines[stoppedIdx].Status == catalog.StatusCharged {
		if !stoppedAt.Equal(hours) {
			b = billable(runningHours(&hb, stoppedAt, f), r.s, r.q.BillingGranularity)
		}
		var stopped qty
		if b.sixtieths {
			stopped = qty{v: minutesInMonth, sixtieths: true}.sub(b.v)
		} else {
			stopped = whole(HoursPerMonth).sub(b.v)
		}
		t = money.Add(t, r.lineAmount(stoppedIdx, stopped))
	}
	return t
}
