package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// CalcLine is one row of the twelve-line table.
type CalcLine struct {
	Number     int
	LabelID    string
	QuantityID string
	Status     Field
	Unit       Field
	UnitPrice  Field
	Allowance  Field
	Reference  Field
	ItemTestID string
}

// CalcError is one problem listed in the summary, linked to its field.
type CalcError struct {
	FieldID string
	LabelID string
	Message string
}

// CalculatorView is the public TCO calculator's view model.
type CalculatorView struct {
	Page     Page
	Sections []Section
	Lines    []CalcLine
	Errors   []CalcError
	Result   *CalcResult
	// Buy is the rent-or-buy mode: Own are the own option's sections and
	// RentBuy the comparison (docs/RULES.md §17.3).
	Buy     bool
	Own     []Section
	RentBuy *RentBuyResult
}

// CalcResult is the evaluation shown beside the form, already formatted.
type CalcResult struct {
	ReportCurrency string
	FXRate         string
	FXDate         string
	ChosenModeID   string
	TCO            string
	TCOPessimistic string
	Compute        string
	Hidden         string
	OneOff         string
	HiddenShare    string
	// HiddenSharePessimistic and Unpriced: the pessimistic TCO's hidden
	// share, and what it leaves out for want of a reference price.
	HiddenSharePessimistic string
	Unpriced               string
	EffectivePerGPUH       string
	PerReferenceGPUH       string
	PerMillionTokens       string
	BreakEvenHours         string
	BreakEvenMonths        string
	VRAMFloorGB            string
	Modes                  []CalcModeRow
	Lines                  []CalcLineResult
	FlagIDs                []string
}

// CalcModeRow is one billing mode of the result.
type CalcModeRow struct {
	Mode          string
	LabelID       string
	StatusID      string
	Allowed       bool
	Chosen        bool
	BillableHours string
	Compute       string
	TCO           string
}

// CalcLineResult is one of the twelve lines of the result.
type CalcLineResult struct {
	Item        string
	LabelID     string
	StatusID    string
	Unconfirmed bool
	Quantity    string
	UnitID      string
	UnitPrice   string
	Amount      string
	Reference   string
}

// yesNo are the choices of a term that may be unstated.
var yesNo = []Option{{Value: "", LabelID: "calc.unstated"}, {Value: "true", LabelID: "calc.yes"}, {Value: "false", LabelID: "calc.no"}}

// unitOptions are the units a line of it may be priced in, each labelled
// for the item ("per GB per month" on a disk).
func unitOptions(it catalog.Item) []Option {
	out := make([]Option, 0, len(it.Units))
	for _, u := range it.Units {
		out = append(out, Option{Value: string(u), LabelID: it.UnitLabelID(u)})
	}
	return out
}

// options turns an enumeration into select choices, with an optional blank first.
func options[T interface{ LabelID() string }](values []T, value func(T) string, blankID string) []Option {
	var out []Option
	if blankID != "" {
		out = append(out, Option{Value: "", LabelID: blankID})
	}
	for _, v := range values {
		out = append(out, Option{Value: value(v), LabelID: v.LabelID()})
	}
	return out
}

// CalculatorDefaults is the form a first visit shows: the guide's
// €0.471/h tier for 200 hours, every hidden-cost line still unconfirmed.
func CalculatorDefaults() url.Values {
	v := url.Values{}
	for k, x := range map[string]string{
		"report_currency": "EUR", "quote.currency": "EUR", "quote.gpu_count": "1",
		"quote.hourly": "0.471", "quote.billing_granularity": "second", "quote.sharing": "dedicated",
		"quote.prices_include_tax": "true", "quote.tax_rate": "0",
		"profile.hours_per_month": "200", "profile.months": "1", "profile.instances": "1",
		"profile.starts_per_month": "1", "profile.between_runs": "release",
	} {
		v.Set(k, x)
	}
	for i := range catalog.Items {
		v.Set("quote.lines["+strconv.Itoa(i)+"].status", string(catalog.StatusUnconfirmed))
	}
	return v
}

// CalculatorForm lays out the calculator's fields with the submitted values
// and the errors found (form field name → translated message).
func CalculatorForm(form url.Values, errs map[string]string) ([]Section, []CalcLine) {
	f := func(name, kind, labelID, hintID string, opts []Option) Field {
		return Field{Name: name, Kind: kind, LabelID: labelID, HintID: hintID, Options: opts,
			Value: form.Get(name), Error: errs[name]}
	}
	sharing := options(catalog.Sharings, func(s catalog.Sharing) string { return string(s) }, "")
	gran := options(catalog.Granularities, func(g catalog.Granularity) string { return string(g) }, "calc.unstated")
	taxIncl := []Option{{Value: "true", LabelID: "calc.tax.included"}, {Value: "false", LabelID: "calc.tax.excluded"}}

	sections := []Section{
		{TitleID: "calc.section.quote", Open: true, Fields: []Field{
			f("quote.currency", "text", "calc.quote.currency", "calc.hint.currency", nil),
			f("quote.gpu_model", "text", "calc.quote.gpu_model", "", nil),
			f("quote.gpu_count", "int", "calc.quote.gpu_count", "", nil),
			f("quote.vram_gb", "decimal", "calc.quote.vram_gb", "", nil),
			f("quote.sharing", "select", "calc.quote.sharing", "", sharing),
			f("quote.hourly", "decimal", "calc.quote.hourly", "", nil),
			f("quote.monthly", "decimal", "calc.quote.monthly", "", nil),
			f("quote.yearly", "decimal", "calc.quote.yearly", "", nil),
			f("quote.spot_hourly", "decimal", "calc.quote.spot_hourly", "", nil),
			f("quote.billing_granularity", "select", "calc.quote.billing_granularity", "", gran),
			f("quote.prices_include_tax", "select", "calc.quote.prices_include_tax", "", taxIncl),
			f("quote.tax_rate", "decimal", "calc.quote.tax_rate", "calc.hint.tax_rate", nil),
			f("quote.as_of", "date", "calc.quote.as_of", "calc.hint.as_of", nil),
		}},
		{TitleID: "calc.section.included", Fields: []Field{
			f("quote.included_mbps", "decimal", "calc.quote.included_mbps", "", nil),
			f("quote.included_system_disk_gb", "decimal", "calc.quote.included_system_disk_gb", "", nil),
			f("quote.included_data_disk_gb", "decimal", "calc.quote.included_data_disk_gb", "", nil),
		}},
		{TitleID: "calc.section.terms", Fields: []Field{
			f("quote.commitment_months", "int", "calc.quote.commitment_months", "", nil),
			f("quote.early_termination_pct", "decimal", "calc.quote.early_termination_pct", "calc.hint.pct", nil),
			f("quote.deposit", "decimal", "calc.quote.deposit", "", nil),
			f("quote.deposit_refundable", "select", "calc.quote.deposit_refundable", "", yesNo),
			f("quote.balance_withdrawable", "select", "calc.quote.balance_withdrawable", "", yesNo),
		}},
		{TitleID: "calc.section.report", Fields: []Field{
			f("report_currency", "text", "calc.report_currency", "calc.hint.report_currency", nil),
			f("fx_rate", "decimal", "calc.fx_rate", "calc.hint.fx_rate", nil),
			f("fx_date", "date", "calc.fx_date", "", nil),
		}},
	}
	// The usage profile goes between the quote's sections and the report's.
	sections = append(sections[:3], append(ProfileSections(form, errs), sections[3:]...)...)
	// A closed section with an error opens, so the reader sees it.
	openOnError(sections)

	statuses := options(catalog.Statuses, func(s catalog.Status) string { return string(s) }, "")
	var lines []CalcLine
	for i, it := range catalog.Items {
		p := "quote.lines[" + strconv.Itoa(i) + "]."
		units := unitOptions(it)
		unit := f(p+"unit", "select", "calc.line.unit", "", units)
		if unit.Value == "" {
			unit.Value = string(it.DefaultUnit)
		}
		lines = append(lines, CalcLine{
			Number: it.Number, LabelID: it.LabelID, QuantityID: it.QuantityID, ItemTestID: "line-" + string(it.Key),
			Status:    f(p+"status", "select", "calc.line.status", "", statuses),
			Unit:      unit,
			UnitPrice: f(p+"unit_price", "decimal", "calc.line.unit_price", "", nil),
			Allowance: f(p+"free_allowance", "decimal", "calc.line.free_allowance", "", nil),
			Reference: f(p+"reference_price", "decimal", "calc.line.reference_price", "", nil),
		})
	}
	return sections, lines
}

// CalcErrorList lists the errors in form order, each with its field's
// label, for the summary above the result.
func CalcErrorList(sections []Section, lines []CalcLine, errs map[string]string) []CalcError {
	rows := make([]Row, len(lines))
	for i, l := range lines {
		rows[i] = Row{LabelID: l.LabelID, Fields: []Field{l.Status, l.Unit, l.UnitPrice, l.Allowance, l.Reference}}
	}
	out := ErrorList(sections, rows)
	// Errors about no field of the form (the body as a whole, a combination).
	shown := map[string]bool{}
	for _, s := range sections {
		for _, f := range s.Fields {
			shown[f.Name] = true
		}
	}
	for _, r := range rows {
		for _, f := range r.Fields {
			shown[f.Name] = true
		}
	}
	for name, msg := range errs {
		if !shown[name] {
			out = append(out, CalcError{LabelID: "calc.error.general", Message: msg})
		}
	}
	return out
}

// ProfileSections lays out the usage profile's fields (named "profile.*",
// as the evaluation API spells them), shared by the calculator and the
// comparison page; errs holds translated problems per field.
func ProfileSections(form url.Values, errs map[string]string) []Section {
	f := func(name, kind, labelID, hintID string, opts []Option) Field {
		return Field{Name: name, Kind: kind, LabelID: labelID, HintID: hintID, Options: opts,
			Value: form.Get(name), Error: errs[name]}
	}
	between := options(catalog.BetweenRunsPolicies, func(b catalog.BetweenRuns) string { return string(b) }, "")
	tasks := options(catalog.Tasks, func(t catalog.Task) string { return string(t) }, "calc.task.none")
	precisions := options(catalog.Precisions, func(p catalog.Precision) string { return string(p) }, "calc.precision.default")
	sections := []Section{
		{TitleID: "calc.section.usage", Open: true, Fields: []Field{
			f("profile.hours_per_month", "decimal", "calc.profile.hours_per_month", "calc.hint.hours", nil),
			f("profile.months", "int", "calc.profile.months", "", nil),
			f("profile.instances", "int", "calc.profile.instances", "", nil),
			f("profile.starts_per_month", "int", "calc.profile.starts_per_month", "", nil),
			f("profile.between_runs", "select", "calc.profile.between_runs", "calc.hint.between_runs", between),
			f("profile.resumable", "checkbox", "calc.profile.resumable", "calc.hint.resumable", nil),
			f("profile.spot_overhead", "decimal", "calc.profile.spot_overhead", "calc.hint.spot_overhead", nil),
		}},
		{TitleID: "calc.section.data", Fields: []Field{
			f("profile.mbps", "decimal", "calc.profile.mbps", "", nil),
			f("profile.egress_gb_per_month", "decimal", "calc.profile.egress_gb_per_month", "", nil),
			f("profile.migration_gb", "decimal", "calc.profile.migration_gb", "", nil),
			f("profile.public_ips", "int", "calc.profile.public_ips", "", nil),
			f("profile.system_disk_gb", "decimal", "calc.profile.system_disk_gb", "", nil),
			f("profile.data_disk_gb", "decimal", "calc.profile.data_disk_gb", "", nil),
			f("profile.object_storage_gb", "decimal", "calc.profile.object_storage_gb", "", nil),
			f("profile.snapshot_gb", "decimal", "calc.profile.snapshot_gb", "", nil),
			f("profile.image_gb", "decimal", "calc.profile.image_gb", "", nil),
		}},
		{TitleID: "calc.section.task", Fields: []Field{
			f("profile.task", "select", "calc.profile.task", "", tasks),
			f("profile.params_billions", "decimal", "calc.profile.params_billions", "", nil),
			f("profile.precision", "select", "calc.profile.precision", "", precisions),
			f("profile.tokens_per_second_per_gpu", "decimal", "calc.profile.tokens_per_second_per_gpu", "", nil),
			f("profile.performance_ratio", "decimal", "calc.profile.performance_ratio", "calc.hint.performance_ratio", nil),
		}},
	}
	openOnError(sections)
	return sections
}

// openOnError opens every section holding a field with an error.
func openOnError(sections []Section) {
	for i := range sections {
		for _, fl := range sections[i].Fields {
			if fl.Error != "" {
				sections[i].Open = true
			}
		}
	}
}

// NewCalcResult formats an evaluation for the page: amounts with the report
// currency in the reader's locale, hours and rates as computed.
func NewCalcResult(r tcoapi.Response, tr *i18n.Translator) *CalcResult {
	cur, loc := r.ReportCurrency, string(tr.Lang)
	amount := func(s string) string {
		d, err := money.ParseDecimal(s)
		if err != nil {
			return s
		}
		return money.Format(d, cur, loc)
	}
	rate := func(p *string) string {
		if p == nil {
			return ""
		}
		d, err := money.ParseDecimal(*p)
		if err != nil {
			return *p
		}
		return money.FormatPlaces(d, cur, loc, 4)
	}
	plain := func(p *string) string {
		if p == nil {
			return ""
		}
		return money.Group(*p)
	}
	out := &CalcResult{
		ReportCurrency: cur, FXRate: r.FXRate, FXDate: r.FXDate,
		ChosenModeID: catalog.Mode(r.ChosenMode).LabelID(),
		TCO:          amount(r.TCO), TCOPessimistic: amount(r.TCOPessimistic),
		Compute: amount(r.ComputeTotal), Hidden: amount(r.HiddenTotal), OneOff: amount(r.OneOffTotal),
		EffectivePerGPUH: rate(&r.EffectivePerGPUHour), PerReferenceGPUH: rate(r.PerReferenceGPUHour),
		PerMillionTokens: rate(r.CostPerMillionTokens),
		BreakEvenHours:   plain(r.BreakEvenHours), BreakEvenMonths: plain(r.BreakEvenMonths),
		VRAMFloorGB: plain(r.VRAMFloorGB),
	}
	share := func(p *string) string {
		if p == nil {
			return ""
		}
		d, err := money.ParseDecimal(*p)
		if err != nil {
			return ""
		}
		return percent(tr, decimal.NewNullDecimal(d))
	}
	out.HiddenShare, out.HiddenSharePessimistic = share(r.HiddenShare), share(r.HiddenSharePessimistic)
	out.Unpriced = unpricedText(tr, r.PessimisticUnpriced)
	for _, m := range r.Modes {
		row := CalcModeRow{Mode: m.Mode, LabelID: catalog.Mode(m.Mode).LabelID(),
			StatusID: catalog.ModeStatus(m.Status).LabelID(), Allowed: m.Status == string(catalog.ModeAllowed),
			Chosen: m.Mode == r.ChosenMode, Compute: amount(m.ComputeTotal), TCO: amount(m.TCO),
			BillableHours: plain(m.BillableHoursPerMonth)}
		out.Modes = append(out.Modes, row)
	}
	for _, l := range r.Lines {
		it, _ := catalog.LookupItem(catalog.ItemKey(l.Item))
		row := CalcLineResult{Item: l.Item, LabelID: it.LabelID, StatusID: catalog.Status(l.Status).LabelID(),
			Unconfirmed: l.Status == string(catalog.StatusUnconfirmed), Quantity: money.Group(l.Quantity),
			UnitID: it.UnitLabelID(catalog.Unit(l.Unit)), Amount: amount(l.Amount)}
		if l.ReferenceAmount != nil {
			row.Reference = amount(*l.ReferenceAmount)
		}
		out.Lines = append(out.Lines, row)
	}
	for _, f := range r.Flags {
		out.FlagIDs = append(out.FlagIDs, catalog.Flag(f).LabelID())
	}
	return out
}

// CalculatorRecords is one evaluation of the calculator form: the form
// posted, the request built from it, whether it is the rent-or-buy mode,
// and what the evaluation gave (Result; RentBuy in that mode) or the
// problems it found.
type CalculatorRecords struct {
	Form    url.Values
	Request tcoapi.FormRequest
	Buy     bool
	Result  tcoapi.Response
	RentBuy tcoapi.RentBuyResponse
	Errs    []tcoapi.FieldError
}

// NewCalculatorView builds the calculator: the form with every problem
// beside its input (the own option's sections too in the rent-or-buy
// mode), and the result when there is no problem.
func NewCalculatorView(tr *i18n.Translator, in CalculatorRecords) CalculatorView {
	msgs := map[string]string{}
	for _, e := range in.Errs {
		name := in.Request.Field(e.Field)
		if _, dup := msgs[name]; !dup {
			msgs[name] = tr.TMap(e.MessageID, e.Args)
		}
	}
	sections, lines := CalculatorForm(in.Form, msgs)
	all := sections
	v := CalculatorView{Sections: sections, Lines: lines, Buy: in.Buy}
	if in.Buy {
		v.Own = OwnSections(in.Form, msgs)
		all = append(append([]Section(nil), sections[:1]...), append(v.Own, sections[1:]...)...)
	}
	v.Errors = CalcErrorList(all, lines, msgs)
	if len(in.Errs) == 0 {
		v.Result = NewCalcResult(in.Result, tr)
		if in.Buy {
			months, _ := strconv.Atoi(strings.TrimSpace(in.Form.Get("profile.months")))
			life, err := strconv.Atoi(strings.TrimSpace(in.Form.Get("own.life_months")))
			if err != nil {
				life = tco.DefaultLifeMonths
			}
			v.RentBuy = NewRentBuyResult(in.RentBuy, strings.TrimSpace(in.Form.Get("profile.hours_per_month")), months, life, tr)
		}
	}
	return v
}
