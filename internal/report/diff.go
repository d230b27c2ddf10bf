package report

import (
	"github.com/shopspring/decimal"
)

// Change compares one quote offer (a quote series) between an old report
// and its recomputation: which version and exchange rate each used, and
// what that did to the chosen mode and the confirmed and pessimistic TCO.
type Change struct {
	// Old and New are the rows in each snapshot; one is nil when the offer
	// is only in one of them (withdrawn, or no longer comparable).
	Old, New *Row
	// VersionChanged says a newer version of the quote was used.
	VersionChanged bool
	// OldRate and NewRate are the rates into the report currency (with
	// their dates) each used; RateChanged says they differ.
	OldRate, NewRate      FXRate
	OldRateOK, NewRateOK  bool
	RateChanged           bool
	ModeChanged           bool
	TCODelta, PessimDelta decimal.NullDecimal
}

// Diff is what changed between a report and its recomputation.
type Diff struct {
	Changes []Change
	// OwnChanges compare the own-hardware options (docs/RULES.md §11.7).
	OwnChanges []OwnChange
	// RulesChanged says the engine's rules edition differs.
	RulesChanged bool
	// ReferencePricesChanged says the reference prices in force differ.
	ReferencePricesChanged bool
	// OldDate and NewDate are the days each was computed for.
	OldDate, NewDate string
}

// Compare lists, offer by offer (matched by quote series, in the new
// report's order, then offers only the old one had), what changed from old
// to new.
func Compare(old, new Snapshot) Diff {
	d := Diff{RulesChanged: old.RulesVersion != new.RulesVersion, OldDate: old.FiguresDate, NewDate: new.FiguresDate,
		ReferencePricesChanged: !sameReferencePrices(old.ReferencePrices, new.ReferencePrices)}
	oldBySeries := map[int64]int{}
	for i, r := range old.Rows {
		oldBySeries[r.Quote.SeriesID] = i
	}
	seen := map[int64]bool{}
	for i := range new.Rows {
		nr := &new.Rows[i]
		c := Change{New: nr}
		if j, ok := oldBySeries[nr.Quote.SeriesID]; ok {
			c.Old = &old.Rows[j]
		}
		seen[nr.Quote.SeriesID] = true
		d.Changes = append(d.Changes, fill(c, old, new))
	}
	for i := range old.Rows {
		if or := &old.Rows[i]; !seen[or.Quote.SeriesID] {
			d.Changes = append(d.Changes, fill(Change{Old: or}, old, new))
		}
	}
	d.OwnChanges = compareOwn(old.Own, new.Own)
	return d
}

// OwnChange compares one own-hardware option (matched by option id, its
// series) between a report and its recomputation: the version and the
// electricity price each was priced with, and the change in TCO
// (docs/RULES.md §11.7).
type OwnChange struct {
	// Old and New are the rows in each snapshot; one is nil when the
	// option is only in one of them.
	Old, New *OwnRow
	// VersionChanged says another version of the option was priced.
	VersionChanged bool
	// ElectricityChanged says the kWh price, its sample or its day differ.
	ElectricityChanged bool
	// PricedChanged says one of the two could be priced and the other not.
	PricedChanged bool
	// TCODelta is new − old confirmed TCO when both were priced.
	TCODelta decimal.NullDecimal
}

// compareOwn lists the options in the new report's order, then those only
// the old one had.
func compareOwn(old, new []OwnRow) []OwnChange {
	var out []OwnChange
	oldByOption := map[int64]int{}
	for i, r := range old {
		oldByOption[r.Option.OptionID] = i
	}
	seen := map[int64]bool{}
	for i := range new {
		c := OwnChange{New: &new[i]}
		if j, ok := oldByOption[new[i].Option.OptionID]; ok {
			c.Old = &old[j]
		}
		seen[new[i].Option.OptionID] = true
		out = append(out, fillOwn(c))
	}
	for i := range old {
		if !seen[old[i].Option.OptionID] {
			out = append(out, OwnChange{Old: &old[i]})
		}
	}
	return out
}

func fillOwn(c OwnChange) OwnChange {
	if c.Old == nil || c.New == nil {
		return c
	}
	o, n := c.Old, c.New
	c.VersionChanged = o.Option.ID != n.Option.ID || o.Option.Version != n.Option.Version
	oe, ne := o.Electricity, n.Electricity
	c.ElectricityChanged = oe.SampleID != ne.SampleID || !oe.KWhPrice.Equal(ne.KWhPrice) || oe.AsOf != ne.AsOf
	c.PricedChanged = o.Eligible() != n.Eligible()
	if o.Eligible() && n.Eligible() {
		c.TCODelta = decimal.NewNullDecimal(n.Result.TCO.Sub(o.Result.TCO))
	}
	return c
}

// Changed reports whether anything of the option differs.
func (c OwnChange) Changed() bool {
	return c.Old == nil || c.New == nil || c.VersionChanged || c.ElectricityChanged || c.PricedChanged ||
		(c.TCODelta.Valid && !c.TCODelta.Decimal.IsZero())
}

func fill(c Change, old, new Snapshot) Change {
	if c.Old != nil {
		c.OldRate.Base, c.OldRate.Quote = c.Old.Quote.Currency, old.ReportCurrency
		c.OldRate.Rate, c.OldRate.Date, c.OldRateOK = old.Rate(c.Old.Quote.Currency)
	}
	if c.New != nil {
		c.NewRate.Base, c.NewRate.Quote = c.New.Quote.Currency, new.ReportCurrency
		c.NewRate.Rate, c.NewRate.Date, c.NewRateOK = new.Rate(c.New.Quote.Currency)
	}
	if c.Old == nil || c.New == nil {
		return c
	}
	c.VersionChanged = c.Old.Quote.ID != c.New.Quote.ID
	c.RateChanged = c.OldRateOK != c.NewRateOK || c.OldRate.Quote != c.NewRate.Quote ||
		!c.OldRate.Rate.Equal(c.NewRate.Rate) || c.OldRate.Date != c.NewRate.Date
	or, nr := c.Old.Result, c.New.Result
	if c.Old.Priced && c.New.Priced && or != nil && nr != nil {
		c.ModeChanged = or.ChosenMode != nr.ChosenMode
		c.TCODelta = decimal.NewNullDecimal(nr.TCO.Sub(or.TCO))
		c.PessimDelta = decimal.NewNullDecimal(nr.TCOPessimistic.Sub(or.TCOPessimistic))
	} else {
		c.ModeChanged = c.Old.Priced != c.New.Priced
	}
	return c
}

func sameReferencePrices(a, b []ReferencePrice) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(r ReferencePrice) string { return r.Item + "|" + r.Currency + "|" + r.Unit }
	m := map[string]ReferencePrice{}
	for _, r := range a {
		m[key(r)] = r
	}
	for _, r := range b {
		o, ok := m[key(r)]
		if !ok || !o.UnitPrice.Equal(r.UnitPrice) || o.Date != r.Date {
			return false
		}
	}
	return true
}

// Changed reports whether anything of the offer differs.
func (c Change) Changed() bool {
	return c.Old == nil || c.New == nil || c.VersionChanged || c.RateChanged || c.ModeChanged ||
		(c.TCODelta.Valid && !c.TCODelta.Decimal.IsZero()) || (c.PessimDelta.Valid && !c.PessimDelta.Decimal.IsZero())
}
