package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/extract"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
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
	// RowsHTML, when set, is the table's rows drawn before (DrawQuoteRows)
	// and Rows is empty (docs/RULES.md §20.6).
	RowsHTML string
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
	// Read is a reading of the vendor's message to show in the form
	// (docs/RULES.md §22.11): WithFields marks the fields it filled and
	// lists it in Reading.
	Read *ReadingInput
	// Reading is what the reading did, listed under the form.
	Reading *VendorReading
	// VendorText is the message an editor pasted to be read (never
	// stored); VendorTextError the translated problem with it.
	VendorText      string
	VendorTextError string
}

// ReadingInput is a reading of a vendor's message and the plan of what it
// filled, with what became of an attached file.
type ReadingInput struct {
	Fill                 extract.Fill
	Result               extract.Result
	FileNoteID, FileName string
}

// quoteWidgets is the form control of each kind of quote field.
var quoteWidgets = map[quote.Kind]string{quote.KindRef: "select", quote.KindText: "text", quote.KindCurrency: "text",
	quote.KindInt: "int", quote.KindDecimal: "decimal", quote.KindChoice: "select", quote.KindYesNo: "select",
	quote.KindBool: "select", quote.KindDate: "date"}

// taxIncluded are the choices of prices_include_tax, the one yes/no field.
var taxIncluded = []Option{{Value: "true", LabelID: "calc.tax.included"}, {Value: "false", LabelID: "calc.tax.excluded"}}

// QuoteForm lays out the quote form from the quote's field list: values
// are the fields as quote.Read reads them, errs the translated problems
// per field, platforms and gpus the choices of the two references.
func QuoteForm(values url.Values, errs map[string]string, platforms, gpus []Option) ([]Section, []QuoteLineInput) {
	f := func(name, kind, labelID, hintID string, opts []Option) Field {
		return Field{Name: name, Kind: kind, LabelID: labelID, HintID: hintID, Options: opts,
			Value: values.Get(name), Error: errs[name]}
	}
	blank := []Option{{Value: "", LabelID: "quote.choose"}}
	var sections []Section
	for _, g := range quote.Groups {
		sections = append(sections, Section{TitleID: "quote.section." + g, Open: true})
	}
	for _, name := range quote.FormOrder {
		qf, _ := quote.FieldByName(name)
		var opts []Option
		switch qf.Kind {
		case quote.KindRef:
			refs := platforms
			if qf.Name == "gpu_model" {
				refs = gpus
			}
			opts = append(append([]Option(nil), blank...), refs...)
		case quote.KindChoice:
			if qf.BlankID != "" {
				opts = append(opts, Option{Value: "", LabelID: qf.BlankID})
			}
			for _, c := range qf.Choices {
				opts = append(opts, Option{Value: c, LabelID: qf.ChoicePrefix + c})
			}
		case quote.KindYesNo:
			opts = yesNo
		case quote.KindBool:
			opts = taxIncluded
		}
		for i, g := range quote.Groups {
			if g == qf.Group {
				sections[i].Fields = append(sections[i].Fields, f(qf.Name, quoteWidgets[qf.Kind], qf.LabelID, qf.HintID, opts))
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
		unit := f(k+"unit", "select", "calc.line.unit", "", unitOptions(it))
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
	// Commitment is the months monthly billing binds for when more than
	// one, and CommitmentTotal the monthly price over them.
	Commitment      int
	CommitmentTotal string
	Examples        []QuoteExample
	FlagIDs         []string
	IsEditor        bool
	// WatchURL opens the new-watch form filled with this offer ("watch
	// this offer", docs/RULES.md §24.4); empty but for a published quote.
	WatchURL string
	HasDraft int64 // id of the series' draft, when one exists
	// Proposal is the vendor's words, the editors' decisions and the
	// "not yet reviewed" notice of a proposed offer (docs/RULES.md §18.1);
	// nil for an offer that never was one.
	Proposal *ProposalPanel
	// Availability is the box of attempts to get this platform × GPU
	// model's instances (docs/RULES.md §18.2); nil for a draft or proposal.
	Availability *AvailabilityPanel
}

// StateLabelID is the catalog message of a quote state.
func StateLabelID(state string) string { return "quote.state." + state }

// FormatDate is the date as the pages show it.
func FormatDate(t time.Time) string { return t.Format(time.DateOnly) }

// QuoteTerms lists a quote's facts for its page in quote.DetailOrder,
// each shown by its kind: amounts in the quote's currency (formatted by
// money), numbers grouped, choices and yes/no by their labels ("not
// stated" when a choice may be left open), empty text left out.
func QuoteTerms(q quote.Quote, money func(decimal.NullDecimal) string) []QuoteTerm {
	var out []QuoteTerm
	for _, name := range quote.DetailOrder {
		f, _ := quote.FieldByName(name)
		if f.Applies != nil && !f.Applies(&q) {
			continue
		}
		if t := quoteTerm(q, f, money); t.Value != "" || t.ValueID != "" {
			out = append(out, t)
		}
	}
	return out
}

// quoteTerm is field f of q as the quote page shows it; both Value and
// ValueID are empty when the page leaves it out (no value). A reference
// (platform, GPU model) is left to the caller, which knows the names.
func quoteTerm(q quote.Quote, f quote.Field, money func(decimal.NullDecimal) string) QuoteTerm {
	t := QuoteTerm{LabelID: f.LabelID}
	switch v := f.Value(&q).(type) {
	case *string:
		switch {
		case f.Kind != quote.KindChoice:
			t.Value = *v
		case *v != "":
			t.ValueID = f.ChoicePrefix + *v
		case f.BlankID != "":
			t.ValueID = f.BlankID
		}
	case *decimal.NullDecimal:
		if f.Money {
			t.Value = money(*v)
		} else if v.Valid {
			t.Value = specNumber(v.Decimal)
		}
	case *decimal.Decimal:
		t.Value = specNumber(*v)
	case *int:
		t.Value = strconv.Itoa(*v)
	case **int:
		if *v != nil {
			t.Value = strconv.Itoa(**v)
		}
	case **bool:
		t.ValueID = yesNoLabel(*v)
	case *bool:
		t.ValueID = taxIncluded[boolIndex(!*v)].LabelID
	case *time.Time:
		t.Value = FormatDate(*v)
	}
	return t
}

// yesNoLabel labels yes, no or not stated.
func yesNoLabel(b *bool) string {
	switch {
	case b == nil:
		return "calc.unstated"
	case *b:
		return "calc.yes"
	}
	return "calc.no"
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// QuoteRecords is what a quote's page shows: the quote, its series'
// versions (newest first), the engine's results at quote.ExampleHours
// (none when the quote could not be evaluated) and the day.
type QuoteRecords struct {
	Quote    quote.Quote
	Versions []quote.Version
	Examples []tco.Result
	Today    time.Time
	IsEditor bool
}

// NewQuoteDetailView is a quote's page: lines, terms, versions and what
// the engine says about break-even for this quote alone.
func NewQuoteDetailView(tr *i18n.Translator, in QuoteRecords) QuoteDetailView {
	q := in.Quote
	m := func(d decimal.NullDecimal, cur string) string { return FormatMoney(tr.Lang, d, cur) }
	age := int(in.Today.Sub(q.AsOf).Hours() / 24)
	v := QuoteDetailView{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, State: q.State, LockVersion: q.LockVersion,
		Platform: DisplayName(tr.Lang, q.PlatformNameZH, q.PlatformNameEN), PlatformID: q.PlatformID, GPUModelID: q.GPUModelID,
		AsOf: FormatDate(q.AsOf), AgeDays: age, Source: q.Source, SourceURL: SourceURL(q.Source), IsEditor: in.IsEditor,
		Title: QuoteName(tr, q), Stale: q.State == quote.Published && age > tco.StaleAfterDays}
	for _, ver := range in.Versions {
		v.Versions = append(v.Versions, QuoteVersionRow{ID: ver.ID, Version: ver.Version, State: ver.State,
			AsOf: FormatDate(ver.AsOf), Hourly: m(ver.Hourly, ver.Currency), Monthly: m(ver.Monthly, ver.Currency),
			Current: ver.ID == q.ID})
		if ver.State == quote.Draft && ver.ID != q.ID {
			v.HasDraft = ver.ID
		}
	}
	if q.State == quote.Published {
		v.WatchURL = WatchOfferURL(q)
	}
	v.Terms = QuoteTerms(q, func(d decimal.NullDecimal) string { return m(d, q.Currency) })
	byItem := map[string]quote.Line{}
	for _, l := range q.Lines {
		byItem[l.Item] = l
	}
	for _, it := range catalog.Items {
		l, ok := byItem[string(it.Key)]
		if !ok {
			l = quote.Line{Item: string(it.Key), Status: string(catalog.StatusUnconfirmed)}
		}
		dl := QuoteDetailLine{Item: l.Item, LabelID: it.LabelID, Status: l.Status, StatusID: catalog.Status(l.Status).LabelID(),
			InWriting: l.InWriting, CountsAsUnconfirmed: l.CountsAsUnconfirmed(), Note: l.Note,
			UnitPrice: m(l.UnitPrice, q.Currency)}
		if l.Status == string(catalog.StatusCharged) {
			dl.UnitID = it.UnitLabelID(catalog.Unit(l.Unit))
			if l.FreeAllowance.Sign() > 0 {
				dl.Allowance = specNumber(l.FreeAllowance)
			}
		}
		v.Lines = append(v.Lines, dl)
	}
	if q.CommitmentMonths > 1 && q.Monthly.Valid {
		v.Commitment = q.CommitmentMonths
		v.CommitmentTotal = FormatMoney(tr.Lang, decimal.NewNullDecimal(q.Monthly.Decimal.Mul(decimal.NewFromInt(int64(q.CommitmentMonths)))), q.Currency)
	}
	for i, res := range in.Examples {
		if i == 0 {
			if res.BreakEvenHours.Valid {
				v.BreakEven = money.Fixed(res.BreakEvenHours.Decimal, 2)
			}
			if res.BreakEvenMonths.Valid {
				v.BreakEvenYM = money.Fixed(res.BreakEvenMonths.Decimal, 2)
			}
			for _, f := range res.Flags {
				v.FlagIDs = append(v.FlagIDs, f.LabelID())
			}
		}
		ex := QuoteExample{Hours: quote.ExampleHours[i], TCO: m(decimal.NewNullDecimal(res.TCO), q.Currency),
			ModeID: res.ChosenMode.LabelID()}
		for _, md := range res.Modes {
			if md.Mode == catalog.ModeHourly {
				ex.Hourly = m(decimal.NewNullDecimal(md.TCO), q.Currency)
			}
		}
		v.Examples = append(v.Examples, ex)
	}
	return v
}

// AsOfID is the message saying how old the quote's price date is: today,
// yesterday, or so many days ago.
func (v QuoteDetailView) AsOfID() string {
	switch {
	case v.AgeDays <= 0:
		return "quote.detail.as_of.today"
	case v.AgeDays == 1:
		return "quote.detail.as_of.yesterday"
	}
	return "quote.detail.as_of"
}

// WithFields is form v with its fields filled from values, each with its
// problem in errs translated, the platforms and GPU models to choose
// from, and the list of every problem.
func (v QuoteFormView) WithFields(tr *i18n.Translator, values url.Values, errs Errors, platforms, gpus []market.RefName) QuoteFormView {
	msgs := map[string]string{}
	for k, id := range errs {
		msgs[k] = tr.T(id.ID, id.Args...)
	}
	v.Sections, v.Lines = QuoteForm(values, msgs, RefOptions(tr.Lang, platforms), GPUOptions(gpus))
	v.Errors = QuoteFormErrors(v.Sections, v.Lines)
	if v.Read != nil {
		src := v.Read.Fill.Sources
		for i := range v.Sections {
			for j := range v.Sections[i].Fields {
				v.Sections[i].Fields[j].Source = src[v.Sections[i].Fields[j].Name]
			}
		}
		for i := range v.Lines {
			l := &v.Lines[i]
			for _, f := range []*Field{&l.Status, &l.Unit, &l.UnitPrice, &l.Allowance} {
				f.Source = src[f.Name]
			}
		}
		v.Reading = NewVendorReading(tr, v, v.Read.Fill, v.Read.Result, v.Read.FileNoteID, v.Read.FileName)
	}
	return v
}

// QuoteListRecords is one page of the quote list for the filters of
// Filter; a Total above CountCap was not counted further.
type QuoteListRecords struct {
	Filter               url.Values
	IsEditor             bool
	Quotes               []quote.Quote
	Platforms, GPUs      []market.RefName
	Page, PerPage, Total int
	CountCap             int
	Today                time.Time
	// RowsHTML is Quotes' rows as DrawQuoteRows drew them for this
	// reader's language and Today, when they were drawn before; the rows
	// are then not built again.
	RowsHTML string
}

// NewQuoteListView builds the quote list: its filters, its pager, the
// export link and its rows, stale published quotes marked as of Today.
func NewQuoteListView(tr *i18n.Translator, in QuoteListRecords) QuoteListView {
	lang := tr.Lang
	pager := Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: "/quotes?" + in.Filter.Encode()}
	if in.Total > in.CountCap {
		pager.Total, pager.Capped = in.CountCap, true
	}
	v := QuoteListView{Platforms: RefOptions(lang, in.Platforms), GPUs: GPUOptions(in.GPUs), Filter: in.Filter, IsEditor: in.IsEditor,
		Pager:     pager,
		ExportURL: "/quotes/export.csv?" + in.Filter.Encode(),
		States: []Option{{Value: "", LabelID: "quote.state.published"}, {Value: "draft", LabelID: "quote.state.draft"},
			{Value: "archived", LabelID: "quote.state.archived"}, {Value: "all", LabelID: "filter.all"}}}
	if in.RowsHTML != "" && len(in.Quotes) > 0 {
		v.RowsHTML = in.RowsHTML
	} else {
		v.Rows = quoteRows(lang, in.Quotes, in.Today)
	}
	return v
}

// quoteRows are the quote list's rows of quotes, stale published quotes
// marked as of today.
func quoteRows(lang i18n.Lang, quotes []quote.Quote, today time.Time) []QuoteRow {
	stale := tco.StaleBefore(today)
	rows := make([]QuoteRow, 0, len(quotes))
	for _, qt := range quotes {
		rows = append(rows, QuoteRow{ID: qt.ID, Platform: DisplayName(lang, qt.PlatformNameZH, qt.PlatformNameEN),
			GPU: qt.GPUVendor + " " + qt.GPUName, GPUCount: qt.GPUCount, Label: qt.Label, Region: qt.Region,
			Currency: qt.Currency, Hourly: FormatMoney(lang, qt.Hourly, qt.Currency), Monthly: FormatMoney(lang, qt.Monthly, qt.Currency),
			AsOf: FormatDate(qt.AsOf), Stale: qt.State == quote.Published && qt.AsOf.Before(stale),
			State: qt.State, Version: qt.Version})
	}
	return rows
}

// DrawQuoteRows draws the quote list's rows of quotes in ctx's language,
// as of today: exactly what the list's table holds between its head and
// its end when NewQuoteListView builds the rows itself.
func DrawQuoteRows(ctx context.Context, quotes []quote.Quote, today time.Time) (string, error) {
	var b strings.Builder
	err := quoteListRows(quoteRows(i18n.LangOf(ctx), quotes, today)).Render(ctx, &b)
	return b.String(), err
}

// QuoteFormDefaults are the values a new quote's form starts with, dated
// today: a dedicated GPU, prices with tax, and the platform, GPU model and
// currency the query names, if any.
func QuoteFormDefaults(today time.Time, query url.Values) url.Values {
	values := url.Values{"gpu_count": {"1"}, "sharing": {"dedicated"}, "prices_include_tax": {"true"},
		"as_of": {today.Format(time.DateOnly)}}
	for _, k := range []string{"platform", "gpu_model", "currency"} {
		if v := query.Get(k); v != "" {
			values.Set(k, v)
		}
	}
	return values
}

// TitleID is the form's title: a new quote's or a draft's.
func (v QuoteFormView) TitleID() string {
	if v.IsNew {
		return "quote.form.new"
	}
	return "quote.form.edit_title"
}
