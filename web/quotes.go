package web

import (
	"net/url"
	"time"

	"gpuquote/internal/catalog"
)

// QuoteRow is one line of the quote list, already formatted.
type QuoteRow struct {
	ID       int64
	Platform string
	GPU      string
	GPUCount int
	Label    string
	Region   string
	Currency string
	Hourly   string
	Monthly  string
	AsOf     string
	Stale    bool
	State    string
	Version  int
}

// QuoteListView is the quote list's view model.
type QuoteListView struct {
	Page      Page
	Rows      []QuoteRow
	Pager     Pager
	Platforms []Option
	GPUs      []Option
	States    []Option // editors only
	Filter    url.Values
	IsEditor  bool
	ExportURL string
}

// QuoteLineInput is one row of the twelve-line entry table.
type QuoteLineInput struct {
	Number     int
	Item       string
	LabelID    string
	QuantityID string
	Status     Field
	Unit       Field
	UnitPrice  Field
	Allowance  Field
	InWriting  Field
	Note       Field
}

// QuoteFormView is the quote entry / draft edit form's view model.
type QuoteFormView struct {
	Page        Page
	Action      string
	IsNew       bool
	QuoteID     int64
	LockVersion int
	Version     int
	Sections    []Section
	Lines       []QuoteLineInput
	Errors      []CalcError
	// Conflict is set when someone else saved the draft meanwhile: the
	// reader's input is kept and they decide what to do.
	Conflict bool
}

// invoiceOptions are the invoice kinds, blank first.
var invoiceOptions = []Option{
	{Value: "", LabelID: "calc.unstated"},
	{Value: "vat_special", LabelID: "quote.invoice.vat_special"},
	{Value: "vat_general", LabelID: "quote.invoice.vat_general"},
	{Value: "commercial", LabelID: "quote.invoice.commercial"},
	{Value: "none", LabelID: "quote.invoice.none"},
}

// QuoteForm lays out the quote form: values are the fields as parseQuote
// reads them, errs the translated problems per field.
func QuoteForm(values url.Values, errs map[string]string, platforms, gpus []Option) ([]Section, []QuoteLineInput) {
	f := func(name, kind, labelID, hintID string, opts []Option) Field {
		return Field{Name: name, Kind: kind, LabelID: labelID, HintID: hintID, Options: opts,
			Value: values.Get(name), Error: errs[name]}
	}
	blank := []Option{{Value: "", LabelID: "quote.choose"}}
	sharing := options(catalog.Sharings, func(s catalog.Sharing) string { return string(s) }, "")
	gran := options(catalog.Granularities, func(g catalog.Granularity) string { return string(g) }, "calc.unstated")
	taxIncl := []Option{{Value: "true", LabelID: "calc.tax.included"}, {Value: "false", LabelID: "calc.tax.excluded"}}
	sections := []Section{
		{TitleID: "quote.section.offer", Open: true, Fields: []Field{
			f("platform", "select", "quote.field.platform", "", append(blank, platforms...)),
			f("gpu_model", "select", "quote.field.gpu_model", "", append(blank, gpus...)),
			f("label", "text", "quote.field.label", "quote.hint.label", nil),
			f("gpu_count", "int", "calc.quote.gpu_count", "", nil),
			f("vram_gb", "decimal", "calc.quote.vram_gb", "quote.hint.vram_gb", nil),
			f("sharing", "select", "calc.quote.sharing", "", sharing),
			f("cpu_cores", "int", "quote.field.cpu_cores", "", nil),
			f("ram_gb", "decimal", "quote.field.ram_gb", "", nil),
			f("region", "text", "quote.field.region", "", nil),
		}},
		{TitleID: "quote.section.prices", Open: true, Fields: []Field{
			f("currency", "text", "calc.quote.currency", "calc.hint.currency", nil),
			f("hourly", "decimal", "calc.quote.hourly", "", nil),
			f("monthly", "decimal", "calc.quote.monthly", "", nil),
			f("yearly", "decimal", "calc.quote.yearly", "", nil),
			f("spot_hourly", "decimal", "calc.quote.spot_hourly", "", nil),
			f("billing_granularity", "select", "calc.quote.billing_granularity", "", gran),
			f("prices_include_tax", "select", "calc.quote.prices_include_tax", "", taxIncl),
			f("tax_rate", "decimal", "calc.quote.tax_rate", "calc.hint.tax_rate", nil),
			f("included_mbps", "decimal", "calc.quote.included_mbps", "", nil),
			f("included_system_disk_gb", "decimal", "calc.quote.included_system_disk_gb", "", nil),
			f("included_data_disk_gb", "decimal", "calc.quote.included_data_disk_gb", "", nil),
		}},
		{TitleID: "quote.section.terms", Open: true, Fields: []Field{
			f("commitment_months", "int", "calc.quote.commitment_months", "", nil),
			f("early_termination_pct", "decimal", "calc.quote.early_termination_pct", "calc.hint.pct", nil),
			f("deposit", "decimal", "calc.quote.deposit", "", nil),
			f("deposit_refundable", "select", "calc.quote.deposit_refundable", "", yesNo),
			f("balance_withdrawable", "select", "calc.quote.balance_withdrawable", "", yesNo),
			f("invoice_type", "select", "quote.field.invoice_type", "", invoiceOptions),
			f("sla_availability_pct", "decimal", "quote.field.sla_availability_pct", "quote.hint.sla", nil),
			f("sla_compensation", "text", "quote.field.sla_compensation", "", nil),
		}},
		{TitleID: "quote.section.sample", Open: true, Fields: []Field{
			f("as_of", "date", "calc.quote.as_of", "quote.hint.as_of", nil),
			f("source", "text", "quote.field.source", "quote.hint.source", nil),
			f("notes", "text", "quote.field.notes", "", nil),
		}},
	}
	for i := range sections {
		for _, fl := range sections[i].Fields {
			if fl.Error != "" {
				sections[i].Open = true
			}
		}
	}
	statuses := options(catalog.Statuses, func(s catalog.Status) string { return string(s) }, "")
	var lines []QuoteLineInput
	for _, it := range catalog.Items {
		k := string(it.Key) + "."
		status := f(k+"status", "select", "calc.line.status", "", statuses)
		if status.Value == "" {
			status.Value = string(catalog.StatusUnconfirmed)
		}
		unit := f(k+"unit", "select", "calc.line.unit", "", options(it.Units, func(u catalog.Unit) string { return string(u) }, ""))
		if unit.Value == "" {
			unit.Value = string(it.DefaultUnit)
		}
		lines = append(lines, QuoteLineInput{
			Number: it.Number, Item: string(it.Key), LabelID: it.LabelID, QuantityID: it.QuantityID,
			Status: status, Unit: unit,
			UnitPrice: f(k+"unit_price", "decimal", "calc.line.unit_price", "", nil),
			Allowance: f(k+"free_allowance", "decimal", "calc.line.free_allowance", "", nil),
			InWriting: f(k+"in_writing", "checkbox", "quote.line.in_writing", "", nil),
			Note:      f(k+"note", "text", "quote.line.note", "", nil),
		})
	}
	return sections, lines
}

// QuoteFormErrors lists a quote form's errors in form order for the summary.
func QuoteFormErrors(sections []Section, lines []QuoteLineInput) []CalcError {
	rows := make([]Row, len(lines))
	for i, l := range lines {
		rows[i] = Row{LabelID: l.LabelID, Fields: []Field{l.Status, l.Unit, l.UnitPrice, l.Allowance, l.InWriting, l.Note}}
	}
	return ErrorList(sections, rows)
}

// QuoteDetailLine is one of the twelve lines on the quote page.
type QuoteDetailLine struct {
	Item      string
	LabelID   string
	StatusID  string
	Status    string
	UnitID    string
	UnitPrice string
	Allowance string
	InWriting bool
	// CountsAsUnconfirmed is set for an "included" or "n.a." answer that
	// is not in writing: the guide treats it as unconfirmed.
	CountsAsUnconfirmed bool
	Note                string
}

// QuoteTerm is one labelled fact of the quote page.
type QuoteTerm struct {
	LabelID string
	Value   string
	// ValueID is a catalog message to show instead of Value.
	ValueID string
}

// QuoteVersionRow is one entry of the version history.
type QuoteVersionRow struct {
	ID      int64
	Version int
	State   string
	AsOf    string
	Hourly  string
	Monthly string
	Current bool
}

// QuoteExample is the cost of the quote at a number of hours per month.
type QuoteExample struct {
	Hours  string
	Hourly string
	Chosen string
	TCO    string
	ModeID string
}

// QuoteDetailView is the quote page's view model.
type QuoteDetailView struct {
	Page        Page
	ID          int64
	SeriesID    int64
	Version     int
	State       string
	LockVersion int
	Title       string
	Platform    string
	PlatformID  int64
	GPUModelID  int64
	AsOf        string
	AgeDays     int
	Stale       bool
	Source      string
	SourceURL   string
	Terms       []QuoteTerm
	Lines       []QuoteDetailLine
	Versions    []QuoteVersionRow
	BreakEven   string
	BreakEvenYM string
	Examples    []QuoteExample
	FlagIDs     []string
	IsEditor    bool
	HasDraft    int64 // id of the series' draft, when one exists
}

// StateLabelID is the catalog message of a quote state.
func StateLabelID(state string) string { return "quote.state." + state }

// FormatDate is the date as the pages show it.
func FormatDate(t time.Time) string { return t.Format(time.DateOnly) }
