package web

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

// ReportOwnRow is one own-hardware option of a saved report, worded from
// its snapshot alone (docs/RULES.md §11.7).
type ReportOwnRow struct {
	// ID is the option version's id; Name, Version and GPU name it.
	ID      int64
	Name    string
	Version string
	GPU     string
	// Priced says the figures below are there; Errors say why not.
	Priced bool
	Errors []string
	// TCO, Upfront and PerGPUHour are the totals, formatted.
	TCO, Upfront, PerGPUHour string
	// FX is the rate the option's amounts were converted at ("" for the
	// report currency); Electricity is the kWh price it was priced with.
	FX          string
	Electricity string
	Lines       []ReportFact
	Crossings   []ReportOwnCrossing
	Sensitivity []ReportFact
	// Inputs are every input of the option version as stored.
	Inputs []ReportFact
}

// ReportOwnCrossing words where owning stops costing more than one rental.
type ReportOwnCrossing struct {
	Quote     string
	FromMonth string
	FromHours string
}

// reportPlural renders id+".one" or id+".other" for n with {{.Count}}.
func reportPlural(tr *i18n.Translator, id string, n int, args ...any) string {
	return tr.Plural(id, n, args...)
}

// ReportOwn words a snapshot's own-hardware options for the report page
// (none for a report without any).
func ReportOwn(tr *i18n.Translator, snap report.Snapshot) []ReportOwnRow {
	lang := string(tr.Lang)
	cur := snap.ReportCurrency
	amount := func(d decimal.Decimal) string { return money.Format(d, cur, lang) }
	yesNo := func(b bool) string {
		if b {
			return tr.T("own.value.yes")
		}
		return tr.T("own.value.no")
	}
	hours := money.Group(money.String(snap.Profile.HoursPerMonth))
	var out []ReportOwnRow
	for _, o := range snap.Own {
		opt := o.Option
		row := ReportOwnRow{ID: opt.ID, Name: opt.Name, Version: tr.T("own.version_short", "Version", strconv.Itoa(opt.Version)),
			GPU: reportPlural(tr, "own.gpu_count", opt.GPUCount, "GPU", opt.GPU()), Priced: o.Eligible()}
		for _, e := range o.Errors {
			row.Errors = append(row.Errors, tr.TMap(e.Message.ID, e.Message.ArgsMap()))
		}
		e := o.Electricity
		price := money.FormatPlaces(e.KWhPrice, opt.Currency, lang, max(2, int32(money.Places(e.KWhPrice))))
		if e.SampleID != 0 {
			row.Electricity = tr.T("report.own.electricity.sample", "Price", price, "Region", e.Region, "AsOf", e.AsOf,
				"Source", e.Source, "ID", strconv.FormatInt(e.SampleID, 10))
		} else if o.Priced {
			row.Electricity = tr.T("report.own.electricity.own", "Price", price)
		}
		if res := o.Result; row.Priced {
			row.TCO, row.Upfront = amount(res.TCO), amount(res.UpfrontCash)
			row.PerGPUHour = money.FormatPlaces(res.EffectivePerGPUHour, cur, lang, 4)
			if res.Currency != res.ReportCurrency {
				date := res.FXDate
				if date == "" {
					date = tr.T("compare.fx.undated")
				}
				row.FX = tr.T("compare.fx", "From", res.Currency, "To", res.ReportCurrency, "Rate", money.String(res.FXRate), "Date", date)
			}
			for _, l := range res.Lines {
				row.Lines = append(row.Lines, ReportFact{Label: tr.T(tco.OwnItem(l.Item).LabelID()), Value: amount(l.Amount)})
			}
			for _, c := range o.Crossings {
				x := ReportOwnCrossing{Quote: tr.T("report.own.quote_unknown", "ID", strconv.FormatInt(c.QuoteID, 10))}
				if r, ok := snap.RowOf(c.QuoteID); ok {
					x.Quote = QuoteName(tr, r.Quote.AsQuote(r.GPU))
				}
				if c.FromMonth > 0 {
					x.FromMonth = tr.T("report.own.from_month", "Month", strconv.Itoa(c.FromMonth), "Hours", hours) + PastLife(tr, c.FromMonth, opt.LifeMonths)
				} else {
					x.FromMonth = tr.T("report.own.from_month.none", "Max", strconv.Itoa(tco.MaxMonths/12), "Hours", hours)
				}
				if c.FromHours > 0 {
					x.FromHours = reportPlural(tr, "report.own.from_hours", c.FromHours)
				} else {
					x.FromHours = tr.T("report.own.from_hours.none", "Max", "730")
				}
				row.Crossings = append(row.Crossings, x)
			}
			for _, v := range o.Sensitivity {
				diff := v.TCO.Sub(res.TCO)
				sign := "+"
				if diff.Sign() < 0 {
					sign = "−"
				}
				row.Sensitivity = append(row.Sensitivity, ReportFact{Label: tr.T("report.own.variant." + v.Key),
					Value: tr.T("report.own.variant_value", "TCO", amount(v.TCO), "Diff", sign+money.Format(diff.Abs(), cur, lang))})
			}
		}
		row.Inputs = reportOwnInputs(tr, opt, yesNo)
		out = append(out, row)
	}
	return out
}

// reportOwnInputs are an option version's inputs as stored, labelled as
// on its own page.
func reportOwnInputs(tr *i18n.Translator, o report.OwnOption, yesNo func(bool) string) []ReportFact {
	lang := string(tr.Lang)
	m := func(d decimal.Decimal) string {
		return money.FormatPlaces(d, o.Currency, lang, max(2, int32(money.Places(d))))
	}
	pct := func(d decimal.Decimal) string { return tr.T("own.value.pct", "Value", money.String(d)) }
	watts := func(d decimal.Decimal) string { return tr.T("own.value.watts", "Value", money.Group(money.String(d))) }
	elec := tr.T("own.electricity.region_text", "Region", o.ElectricityRegion, "Currency", o.Currency)
	if o.ElectricityRegion == "" && o.KWhPrice.Valid {
		elec = tr.T("own.electricity.own_text", "Price", m(o.KWhPrice.Decimal))
	}
	tax := tr.T("own.value.unstated")
	if o.TaxRate.Valid {
		tax = money.String(o.TaxRate.Decimal)
	}
	out := []ReportFact{
		{Label: tr.T("report.own.option_version"), Value: tr.T("report.own.option_version_value", "Option",
			strconv.FormatInt(o.OptionID, 10), "Version", strconv.Itoa(o.Version), "ID", strconv.FormatInt(o.ID, 10))},
		{Label: tr.T("own.field.currency"), Value: o.Currency},
		{Label: tr.T("own.field.purchase_price"), Value: m(o.PurchasePrice)},
		{Label: tr.T("own.field.purchase_as_of"), Value: o.PurchaseAsOf},
		{Label: tr.T("own.field.purchase_source"), Value: o.PurchaseSource},
		{Label: tr.T("own.field.residual_pct"), Value: pct(o.ResidualPct)},
		{Label: tr.T("own.field.life_months"), Value: reportPlural(tr, "own.value.months", o.LifeMonths)},
		{Label: tr.T("own.field.power_load_w"), Value: watts(o.PowerLoadW)},
		{Label: tr.T("own.field.power_idle_w"), Value: watts(o.PowerIdleW)},
		{Label: tr.T("own.field.pue"), Value: money.String(o.PUE)},
		{Label: tr.T("own.field.electricity"), Value: elec},
		{Label: tr.T("own.field.always_on"), Value: yesNo(o.AlwaysOn)},
		{Label: tr.T("own.field.hosting_monthly"), Value: m(o.HostingMonthly)},
		{Label: tr.T("own.field.ops_monthly"), Value: m(o.OpsMonthly)},
		{Label: tr.T("own.field.maintenance_pct_per_year"), Value: pct(o.MaintenancePctPerYear)},
		{Label: tr.T("own.field.setup_one_off"), Value: m(o.SetupOneOff)},
		{Label: tr.T("own.field.capital_rate_per_year"), Value: money.String(o.CapitalRatePerYear)},
		{Label: tr.T("own.field.prices_include_tax"), Value: yesNo(o.PricesIncludeTax)},
		{Label: tr.T("own.field.tax_rate"), Value: tax},
	}
	if o.Notes != "" {
		out = append(out, ReportFact{Label: tr.T("own.field.notes"), Value: o.Notes})
	}
	return out
}

// ownChangeRows words what recomputing changed for each own-hardware
// option: version, electricity price (with its sample's region, day and
// source) and confirmed TCO (docs/RULES.md §11.7).
func ownChangeRows(tr *i18n.Translator, d report.Diff, old, new report.Snapshot) []ReportOwnChangeRow {
	lang := string(tr.Lang)
	version := func(r *report.OwnRow) string {
		v := tr.T("own.version_short", "Version", strconv.Itoa(r.Option.Version))
		if r.Option.PurchaseAsOf != "" {
			v += " · " + r.Option.PurchaseAsOf
		}
		return v
	}
	electricity := func(r *report.OwnRow) string {
		e := r.Electricity
		price := money.FormatPlaces(e.KWhPrice, r.Option.Currency, lang, max(2, int32(money.Places(e.KWhPrice))))
		switch {
		case e.SampleID != 0:
			return tr.T("report.changes.own.kwh_sample", "Price", price, "Region", e.Region, "AsOf", e.AsOf, "Source", e.Source)
		case r.Priced:
			return tr.T("report.changes.own.kwh_own", "Price", price)
		}
		return tr.T("report.changes.own.no_electricity")
	}
	tcoOf := func(r *report.OwnRow, cur string) string {
		if !r.Eligible() {
			return tr.T("report.changes.not_priced")
		}
		return FormatMoney(tr.Lang, decimal.NewNullDecimal(r.Result.TCO), cur)
	}
	var out []ReportOwnChangeRow
	for _, ch := range d.OwnChanges {
		row := ReportOwnChangeRow{Added: ch.Old == nil, Removed: ch.New == nil, Changed: ch.Changed(),
			VersionChanged: ch.VersionChanged, ElectricityChanged: ch.ElectricityChanged}
		if ch.Old != nil {
			row.Name = ch.Old.Option.Name
			row.OldVersion, row.OldElectricity, row.OldTCO = version(ch.Old), electricity(ch.Old), tcoOf(ch.Old, old.ReportCurrency)
		} else {
			row.OldVersion = tr.T("report.changes.new_offer")
		}
		if ch.New != nil {
			row.Name = ch.New.Option.Name
			row.NewVersion, row.NewElectricity, row.NewTCO = version(ch.New), electricity(ch.New), tcoOf(ch.New, new.ReportCurrency)
		} else {
			// Shown alone: what the old report had, and that it is left out.
			row.NewVersion, row.NewElectricity, row.NewTCO = tr.T("report.changes.own.left_out"), row.OldElectricity, row.OldTCO
		}
		if ch.TCODelta.Valid && !ch.TCODelta.Decimal.IsZero() {
			row.TCODelta = signedMoney(tr, ch.TCODelta.Decimal, new.ReportCurrency)
		}
		out = append(out, row)
	}
	return out
}
