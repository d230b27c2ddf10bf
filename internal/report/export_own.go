package report

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/tco"
)

// ownTables lays out a snapshot's own-hardware options for export
// (docs/RULES.md §11.7): one row per option with every frozen input, the
// electricity price used, the rate, the seven lines, the totals and the
// sensitivity variants; and one row per option and rental with the
// crossing points. Both are empty for a snapshot without own options, and
// the exports then hold neither.
func ownTables(s Snapshot, tr Translate, name func(Row) string) (options, crossings Table) {
	if len(s.Own) == 0 {
		return Table{}, Table{}
	}
	t := func(id string) string { return tr(id, nil) }
	yesNo := func(b bool) Cell {
		if b {
			return text(t("report.yes"))
		}
		return text(t("report.no"))
	}
	options.Header = []string{t("report.col.own_option"), t("report.col.own_option_id"), t("report.col.own_version"),
		t("report.col.own_version_id"), t("own.field.gpu_model"), t("own.field.gpu_count"), t("own.field.currency"),
		t("own.field.purchase_price"), t("own.field.purchase_as_of"), t("own.field.purchase_source"),
		t("own.field.residual_pct"), t("own.field.life_months"), t("own.field.power_load_w"), t("own.field.power_idle_w"),
		t("own.field.pue"), t("own.field.electricity"), t("own.field.electricity_region"), t("own.field.kwh_price"),
		t("own.field.always_on"), t("own.field.hosting_monthly"), t("own.field.ops_monthly"),
		t("own.field.maintenance_pct_per_year"), t("own.field.setup_one_off"), t("own.field.capital_rate_per_year"),
		t("own.field.prices_include_tax"), t("own.field.tax_rate"), t("own.field.notes"),
		t("report.col.own_kwh_used"), t("report.col.own_sample_id"), t("report.col.own_sample_region"),
		t("report.col.own_sample_date"), t("report.col.own_sample_source"),
		t("report.col.fx_rate"), t("report.col.fx_date"), t("report.col.eligible")}
	for _, it := range tco.OwnItems {
		options.Header = append(options.Header, t(it.LabelID()))
	}
	options.Header = append(options.Header, t("calc.result.tco"), t("report.own.upfront"), t("calc.result.effective"))
	for _, k := range OwnSensitivityKeys {
		options.Header = append(options.Header, t("report.own.variant."+k))
	}
	options.Header = append(options.Header, t("report.col.reasons"))

	crossings.Header = []string{t("report.col.own_option"), t("report.col.own_version_id"), t("compare.col.quote"),
		t("report.col.version"), t("report.col.own_from_month"), t("report.col.own_from_hours")}
	none := text(t("report.own.none"))

	for _, o := range s.Own {
		opt, e := o.Option, o.Electricity
		electricity := t("own.electricity.choose_own")
		if opt.ElectricityRegion != "" {
			electricity = t("own.electricity.choose_region")
		}
		row := []Cell{text(opt.Name), num(Number, decimal.NewFromInt(opt.OptionID)), num(Number, decimal.NewFromInt(int64(opt.Version))),
			num(Number, decimal.NewFromInt(opt.ID)), text(opt.GPU()), num(Number, decimal.NewFromInt(int64(opt.GPUCount))),
			text(opt.Currency), num(Number, opt.PurchasePrice), text(opt.PurchaseAsOf), text(opt.PurchaseSource),
			num(Number, opt.ResidualPct), num(Number, decimal.NewFromInt(int64(opt.LifeMonths))), num(Number, opt.PowerLoadW),
			num(Number, opt.PowerIdleW), num(Number, opt.PUE), text(electricity), text(opt.ElectricityRegion),
			nullNum(Number, opt.KWhPrice), yesNo(opt.AlwaysOn), num(Number, opt.HostingMonthly), num(Number, opt.OpsMonthly),
			num(Number, opt.MaintenancePctPerYear), num(Number, opt.SetupOneOff), num(Number, opt.CapitalRatePerYear),
			yesNo(opt.PricesIncludeTax), nullNum(Number, opt.TaxRate), text(opt.Notes)}
		if o.Priced || e.SampleID != 0 {
			row = append(row, num(Number, e.KWhPrice))
		} else {
			row = append(row, text(""))
		}
		if e.SampleID != 0 {
			row = append(row, num(Number, decimal.NewFromInt(e.SampleID)), text(e.Region), text(e.AsOf), text(e.Source))
		} else {
			row = append(row, text(""), text(""), text(""), text(""))
		}
		var reasons []string
		for _, fe := range o.Errors {
			reasons = append(reasons, tr(fe.Message.ID, fe.Message.ArgsMap()))
		}
		if res := o.Result; o.Eligible() {
			row = append(row, num(Number, res.FXRate), text(res.FXDate), yesNo(true))
			for _, it := range tco.OwnItems {
				if a, ok := res.Line(string(it)); ok {
					row = append(row, num(Money, a))
				} else {
					row = append(row, text(""))
				}
			}
			row = append(row, num(Money, res.TCO), num(Money, res.UpfrontCash), num(Rate4, res.EffectivePerGPUHour))
			for _, k := range OwnSensitivityKeys {
				if v, ok := o.Variant(k); ok {
					row = append(row, num(Money, v))
				} else {
					row = append(row, text(""))
				}
			}
			for _, c := range o.Crossings {
				quote := text(tr("report.own.quote_unknown", map[string]any{"ID": strconv.FormatInt(c.QuoteID, 10)}))
				version := text("")
				if r, ok := s.RowOf(c.QuoteID); ok {
					quote = text(name(r))
					version = text(tr("report.quote_version", map[string]any{"ID": strconv.FormatInt(r.Quote.ID, 10),
						"Version": strconv.Itoa(r.Quote.Version)}))
				}
				xr := []Cell{text(opt.Name), num(Number, decimal.NewFromInt(opt.ID)), quote, version, none, none}
				if c.FromMonth > 0 {
					xr[4] = num(Number, decimal.NewFromInt(int64(c.FromMonth)))
				}
				if c.FromHours > 0 {
					xr[5] = num(Number, decimal.NewFromInt(int64(c.FromHours)))
				}
				crossings.Rows = append(crossings.Rows, xr)
			}
		} else {
			row = append(row, text(""), text(""), yesNo(false))
			for len(row) < len(options.Header)-1 {
				row = append(row, text(""))
			}
		}
		row = append(row, text(strings.Join(reasons, t("export.separator"))))
		options.Rows = append(options.Rows, row)
	}
	for _, tb := range []*Table{&options, &crossings} {
		for i, h := range tb.Header {
			tb.Header[i] = ExportLabel(h)
		}
	}
	return options, crossings
}
