package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/report"
	"gpuquote/internal/vendorq"
)

// The bill check's pages (docs/RULES.md §23.8–§23.10): the form that
// checks a bill on an approved report, the checked bill, its letter to
// the vendor, and the report's bills by month.

// BillsPath is the list of a report's bills (the form posts here).
func BillsPath(reportID int64) string { return ReportURL(reportID) + "/bills" }

// BillPath is a stored bill's page.
func BillPath(reportID, billID int64) string {
	return BillsPath(reportID) + "/" + strconv.FormatInt(billID, 10)
}

// BillItemLabelID is the message ID of a bill item's name.
func BillItemLabelID(it billcheck.Item) string { return it.LabelID() }

// BillBudget is a month's bill against the approved budget (§23.5).
type BillBudget struct {
	// Known is false when the bill's currency has no rate into the
	// report's; the verdict is then not given.
	Known                     bool
	Confirmed, Pessimistic    decimal.Decimal
	Total                     decimal.Decimal
	Currency                  string
	Verdict                   billcheck.Budget
	Rate                      decimal.Decimal
	RateDate                  time.Time
	Converted                 bool
	BillCurrency, BillTotalAt string
}

// BillRecords is what a bill's page is drawn from.
type BillRecords struct {
	Report    report.Report
	Row       report.Row
	Record    bill.Record
	Result    billcheck.Result
	Budget    BillBudget
	Revisions []bill.Record
	// CanCheck says the reader may store a corrected revision.
	CanCheck bool
}

// BillLineView is one checked line as shown.
type BillLineView struct {
	N           int
	Item        string
	Description string
	Quantity    string
	Billed      string
	Expected    string
	Allowance   string
	Variance    string
	Verdict     string
	VerdictText string
	// Rule is the quote's rule that priced the line; Question the one to
	// the vendor that would have caught a hidden cost; Reference what a
	// reference price would have charged.
	Rule      string
	Question  string
	Reference string
}

// BillTotalsView are the five totals as shown.
type BillTotalsView struct {
	Billed, Expected, Overcharge, Undercharge, Unquoted string
	HasOver, HasUnder, HasUnquoted                      bool
}

// BillView is a checked bill's page.
type BillView struct {
	Page        Page
	ReportID    int64
	BillID      int64
	Report      ReportLink
	ReportTitle string
	Quote       string
	QuoteAsOf   string
	Month       string
	Revision    int
	Latest      bool
	LatestHref  string
	Source      string
	Filename    string
	Author      string
	CreatedAt   string
	Note        string
	Currency    string
	Instances   int
	Days        int
	// Basis says how the quote's prices were put on the bill's currency
	// and tax basis; empty when nothing was converted.
	Basis     []string
	Totals    BillTotalsView
	Budget    BillBudget
	BudgetFig [3]string // confirmed, pessimistic, the bill in the report currency
	Lines     []BillLineView
	// Counts of the lines by verdict, in Verdicts order, for the summary.
	Counts    []BillCount
	Revisions []BillRevisionLink
	CanCheck  bool
	// HasLetter is whether there is anything to write to the vendor.
	HasLetter bool
	// Letters are the letter in Chinese and in English.
	Letters []BillLetter
}

// BillCount is how many lines got one verdict.
type BillCount struct {
	Verdict string
	Text    string
	N       int
}

// BillRevisionLink is one revision of a month's bill.
type BillRevisionLink struct {
	Href     string
	Revision int
	At       string
	Current  bool
}

// BillLetter is the letter to the vendor in one language.
type BillLetter struct {
	Lang  string
	Label string
	Text  string
}

func billMoney(tr *i18n.Translator, d decimal.Decimal, currency string) string {
	return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), currency)
}

func billNullMoney(tr *i18n.Translator, d decimal.NullDecimal, currency string) string {
	return FormatMoney(tr.Lang, d, currency)
}

// nullSigned is signedMoney of a variance that may be absent ("").
func nullSigned(tr *i18n.Translator, d decimal.NullDecimal, currency string) string {
	if !d.Valid {
		return ""
	}
	return signedMoney(tr, d.Decimal, currency)
}

// BillRule is the quote's rule that priced a checked line, in words:
// "¥0.01 per GB per day, 50 free per instance" (docs/RULES.md §23.10).
func BillRule(tr *i18n.Translator, l billcheck.LineResult, currency string) string {
	price := func(p decimal.Decimal) string { return billMoney(tr, p, currency) }
	if l.Item.Compute() {
		if !l.UnitPrice.Valid {
			return tr.T("bill.rule.mode_not_quoted")
		}
		return tr.T("bill.rule."+string(l.Item), "Price", price(l.UnitPrice.Decimal))
	}
	if l.Item == billcheck.ItemOther {
		return tr.T("bill.rule.other")
	}
	it, _ := catalog.LookupItem(catalog.ItemKey(l.Item))
	unit := ""
	if l.Unit != "" {
		unit = tr.T(it.UnitLabelID(l.Unit))
	}
	switch l.Status {
	case catalog.StatusCharged:
		s := tr.T("bill.rule.charged", "Price", price(l.UnitPrice.Decimal), "Unit", unit)
		if l.FreeAllowance.Sign() > 0 {
			s += tr.T("bill.rule.free", "Free", specNumber(l.FreeAllowance))
		}
		return s
	case catalog.StatusIncluded, catalog.StatusNotApplicable:
		return tr.T("bill.rule." + string(l.Status))
	}
	return tr.T("bill.rule.unconfirmed")
}

// NewBillView draws a checked bill.
func NewBillView(tr *i18n.Translator, in BillRecords) BillView {
	r, rec, res := in.Report, in.Record, in.Result
	q := in.Row.Quote
	v := BillView{ReportID: r.ID, BillID: rec.ID, Report: *NewReportLink(r.ID, r.Number, r.Revision, r.Status),
		ReportTitle: r.Title, Quote: QuoteName(tr, q.AsQuote(in.Row.GPU)), QuoteAsOf: q.AsOf,
		Month: billcheck.MonthText(rec.Month), Revision: rec.Revision, Latest: rec.Latest,
		Source: tr.T("bill.source." + rec.Source), Filename: rec.Filename, Author: rec.AuthorName,
		CreatedAt: ReportTime(tr, rec.CreatedAt), Note: rec.Note, Currency: rec.Currency, Instances: rec.Instances,
		Days: res.Days, Budget: in.Budget, CanCheck: in.CanCheck}
	cur := rec.Currency
	if res.TaxAdjust != "none" {
		v.Basis = append(v.Basis, tr.T("bill.basis."+res.TaxAdjust, "Rate", specNumber(q.TaxRate.Mul(decimal.New(100, 0)))))
	}
	if q.Currency != rec.Currency {
		date := ""
		if !rec.FXDate.IsZero() {
			date = FormatDate(rec.FXDate)
		}
		v.Basis = append(v.Basis, tr.T("bill.basis.fx", "From", q.Currency, "To", rec.Currency,
			"Rate", money.String(res.FXRate), "Date", date))
	}
	v.Totals = BillTotalsView{Billed: billMoney(tr, res.BilledTotal, cur), Expected: billMoney(tr, res.ExpectedTotal, cur),
		Overcharge: billMoney(tr, res.OverchargeTotal, cur), Undercharge: signedMoney(tr, res.UnderchargeTotal, cur),
		Unquoted: billMoney(tr, res.UnquotedTotal, cur), HasOver: res.OverchargeTotal.Sign() > 0,
		HasUnder: res.UnderchargeTotal.Sign() < 0, HasUnquoted: res.UnquotedTotal.Sign() != 0}
	if in.Budget.Known {
		v.BudgetFig = [3]string{billMoney(tr, in.Budget.Confirmed, in.Budget.Currency),
			billMoney(tr, in.Budget.Pessimistic, in.Budget.Currency), billMoney(tr, in.Budget.Total, in.Budget.Currency)}
	}
	counts := map[billcheck.Verdict]int{}
	for i, l := range res.Lines {
		counts[l.Verdict]++
		lv := BillLineView{N: i + 1, Item: tr.T(BillItemLabelID(l.Item)), Description: l.Description,
			Quantity: specNumber(l.Quantity), Billed: billMoney(tr, l.Billed, cur), Expected: billNullMoney(tr, l.Expected, cur),
			Variance: nullSigned(tr, l.Variance, cur), Verdict: string(l.Verdict), VerdictText: tr.T(l.Verdict.LabelID()),
			Rule: BillRule(tr, l, q.Currency)}
		if l.Allowance.Valid && l.Allowance.Decimal.Sign() > 0 {
			lv.Allowance = specNumber(l.Allowance.Decimal)
		}
		if l.Verdict == billcheck.VerdictHiddenCostAppeared {
			lv.Question = vendorq.Render(vendorq.UnconfirmedQuestion(catalog.ItemKey(l.Item)), tr.TMap)
		}
		if l.ReferenceExpected.Valid {
			lv.Reference = tr.T("bill.reference", "Amount", billMoney(tr, l.ReferenceExpected.Decimal, cur))
		}
		v.Lines = append(v.Lines, lv)
	}
	for _, vd := range billcheck.Verdicts {
		if counts[vd] > 0 {
			v.Counts = append(v.Counts, BillCount{Verdict: string(vd), Text: tr.T(vd.LabelID()), N: counts[vd]})
		}
	}
	for _, o := range in.Revisions {
		v.Revisions = append(v.Revisions, BillRevisionLink{Href: BillPath(r.ID, o.ID), Revision: o.Revision,
			At: ReportTime(tr, o.CreatedAt), Current: o.ID == rec.ID})
		if o.Latest && o.ID != rec.ID {
			v.LatestHref = BillPath(r.ID, o.ID)
		}
	}
	v.HasLetter = res.OverchargeTotal.Sign() > 0
	return v
}

// WithLetters adds the letter to the vendor in both languages.
func (v BillView) WithLetters(zh, en *i18n.Translator, in BillRecords) BillView {
	v.Letters = []BillLetter{
		{Lang: "zh-CN", Label: "中文", Text: BillLetterText(zh, in)},
		{Lang: "en", Label: "English", Text: BillLetterText(en, in)},
	}
	return v
}

// BillLetterText is the letter to the vendor (docs/RULES.md §23.10): the
// overcharges, then the charges for items the quote gives as included,
// each with the quote's written answer, and the sum to refund or correct.
func BillLetterText(tr *i18n.Translator, in BillRecords) string {
	rec, res, q := in.Record, in.Result, in.Row.Quote
	cur := rec.Currency
	lines := map[string]report.QuoteLine{}
	for _, l := range q.Lines {
		lines[l.Item] = l
	}
	var b strings.Builder
	platform := DisplayName(tr.Lang, q.PlatformNameZH, q.PlatformNameEN)
	b.WriteString(tr.T("bill.letter.greeting", "Platform", platform))
	b.WriteString("\n\n")
	b.WriteString(tr.T("bill.letter.lead", "Month", billcheck.MonthText(rec.Month), "Quote", QuoteName(tr, q.AsQuote(in.Row.GPU)),
		"Version", strconv.Itoa(q.Version), "AsOf", q.AsOf))
	b.WriteString("\n")
	write := func(titleID string, pick func(billcheck.LineResult) bool, line func(billcheck.LineResult) string) {
		n := 0
		for _, l := range res.Lines {
			if !pick(l) {
				continue
			}
			if n == 0 {
				b.WriteString("\n" + tr.T(titleID) + "\n")
			}
			n++
			b.WriteString(strconv.Itoa(n) + ". " + line(l) + "\n")
		}
	}
	name := func(l billcheck.LineResult) string {
		s := tr.T(BillItemLabelID(l.Item))
		if l.Description != "" {
			s += tr.T("bill.letter.described", "Description", l.Description)
		}
		return s
	}
	write("bill.letter.over_title", func(l billcheck.LineResult) bool { return l.Verdict == billcheck.VerdictOvercharged },
		func(l billcheck.LineResult) string {
			return tr.T("bill.letter.over_line", "Item", name(l), "Quantity", specNumber(l.Quantity),
				"Billed", billMoney(tr, l.Billed, cur), "Rule", BillRule(tr, l, q.Currency),
				"Expected", billNullMoney(tr, l.Expected, cur), "Variance", billNullMoney(tr, l.Variance, cur))
		})
	write("bill.letter.included_title", func(l billcheck.LineResult) bool { return l.Verdict == billcheck.VerdictChargedThoughIncluded },
		func(l billcheck.LineResult) string {
			ql := lines[string(l.Item)]
			answer := tr.T("status." + ql.Status)
			if strings.TrimSpace(ql.Note) != "" {
				answer = tr.T("bill.letter.answer_note", "Answer", answer, "Note", strings.TrimSpace(ql.Note))
			}
			return tr.T("bill.letter.included_line", "Item", name(l), "Answer", answer,
				"Billed", billMoney(tr, l.Billed, cur))
		})
	b.WriteString("\n")
	b.WriteString(tr.T("bill.letter.total", "Amount", billMoney(tr, res.OverchargeTotal, cur)))
	b.WriteString("\n\n")
	b.WriteString(tr.T("bill.letter.closing"))
	b.WriteString("\n")
	return b.String()
}

// BillMonthRow is one month of a report's bills: its latest revision.
type BillMonthRow struct {
	Href      string
	Month     string
	Quote     string
	Revision  int
	Billed    string
	Expected  string
	Over      string
	Unquoted  string
	HasOver   bool
	Budget    string
	BudgetKey string
}

// BillsSection is the report page's list of bills by month.
type BillsSection struct {
	ReportID int64
	Months   []BillMonthRow
	CanCheck bool
	// Approved is false while the report cannot take bills yet.
	Approved bool
}

// NewBillFormView is the blank "check a bill" form for a report.
func NewBillFormView(tr *i18n.Translator, r report.Report, snap report.Snapshot, today time.Time) BillFormView {
	v := BillFormView{ReportID: r.ID, Report: *NewReportLink(r.ID, r.Number, r.Revision, r.Status), ReportTitle: r.Title,
		Errors: Errors{}, Values: url.Values{}, Rows: billFormRows}
	for _, row := range snap.Rows {
		if !row.Eligible() {
			continue
		}
		v.Quotes = append(v.Quotes, Option{Value: strconv.FormatInt(row.Quote.ID, 10), Label: QuoteName(tr, row.Quote.AsQuote(row.GPU))})
	}
	last := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
	v.Values.Set("month", billcheck.MonthText(last))
	v.Values.Set("instances", strconv.Itoa(max(1, snap.Profile.Instances)))
	v.Values.Set("prices_include_tax", "yes")
	if len(v.Quotes) > 0 {
		v.Values.Set("quote", v.Quotes[0].Value)
		for _, row := range snap.Rows {
			if strconv.FormatInt(row.Quote.ID, 10) == v.Quotes[0].Value {
				v.Values.Set("currency", row.Quote.Currency)
				if !row.Quote.PricesIncludeTax {
					v.Values.Set("prices_include_tax", "no")
				}
			}
		}
	}
	return v
}

// billFormRows is how many blank line rows the form offers at first;
// "more rows" adds as many again.
const billFormRows = 6

// BillFormView is the form that checks a bill.
type BillFormView struct {
	Page        Page
	ReportID    int64
	Report      ReportLink
	ReportTitle string
	Quotes      []Option
	Values      url.Values
	Errors      Errors
	// Rows is the number of line rows shown.
	Rows int
	// Unmapped are a FOCUS file's SKUs and descriptions no mapping names,
	// asked for before the file is checked; File carries the file back.
	Unmapped []BillUnmapped
	File     string
	FileName string
	// Problems are a refused file's.
	Problems []string
	// Items are the bill items offered for a line.
	Items []Option
	// Correcting names the bill a new revision corrects.
	Correcting int64
}

// BillUnmapped is one unmapped key of a FOCUS file.
type BillUnmapped struct {
	Field       string
	Kind        string
	Key         string
	Description string
	Rows        int
	Billed      string
}

// Value is the form's value of a field.
func (v BillFormView) Value(name string) string { return v.Values.Get(name) }

// LineField names the form field of a line's column.
func LineField(i int, col string) string { return "line-" + strconv.Itoa(i) + "-" + col }

// RowNumbers are 0 … Rows−1.
func (v BillFormView) RowNumbers() []int {
	out := make([]int, v.Rows)
	for i := range out {
		out[i] = i
	}
	return out
}

// BillItemOptions are the bill items as choices, named in the reader's
// language.
func BillItemOptions(tr *i18n.Translator) []Option {
	var out []Option
	for _, it := range billcheck.Items() {
		out = append(out, Option{Value: string(it), Label: tr.T(BillItemLabelID(it))})
	}
	return out
}

// BillFormRowsFor is the rows the form shows for n lines: all of them and
// a few blank ones.
func BillFormRowsFor(n int) int { return max(billFormRows, n+3) }

// NewBillMonthRow is one month of the report's bills section.
func NewBillMonthRow(tr *i18n.Translator, reportID int64, b bill.Record, row report.Row, bud BillBudget) BillMonthRow {
	cur := b.Currency
	m := BillMonthRow{Href: BillPath(reportID, b.ID), Month: billcheck.MonthText(b.Month), Quote: QuoteName(tr, row.Quote.AsQuote(row.GPU)),
		Revision: b.Revision, Billed: billMoney(tr, b.Totals.Billed, cur), Expected: billMoney(tr, b.Totals.Expected, cur),
		Over: billMoney(tr, b.Totals.Overcharge, cur), Unquoted: billMoney(tr, b.Totals.Unquoted, cur), HasOver: b.Totals.Overcharge.Sign() > 0}
	if bud.Known {
		m.BudgetKey, m.Budget = string(bud.Verdict), tr.T(bud.Verdict.LabelID())
	} else {
		m.Budget = tr.T("bill.budget.unknown", "From", cur, "To", bud.Currency)
	}
	return m
}

// BillFilename is the download name of a bill's export: the report's
// number, the month and the revision ("R-2026-0003-2026-11-r1.csv").
func BillFilename(in BillRecords, kind string) string {
	ext := kind
	if kind == "focus" {
		ext = "focus.csv"
	}
	return in.Report.Number + "-" + billcheck.MonthText(in.Record.Month) + "-r" + strconv.Itoa(in.Record.Revision) + "." + ext
}

// BillFileProblems are a refused bill file's problems as sentences: the
// file's, then each row's with its line, then how many more there are.
// refused is false when err is not a refusal (nil, or a failure to read).
func BillFileProblems(tr *i18n.Translator, rows []billfile.RowError, err error) (out []string, refused bool) {
	var r *billfile.Refused
	if !errors.As(err, &r) {
		return nil, false
	}
	for _, m := range r.File {
		out = append(out, tr.T(m.ID, m.Args...))
	}
	for _, e := range rows {
		msg := tr.T(e.Message.ID, e.Message.Args...)
		if e.Column != "" {
			out = append(out, tr.T("bill.file.row_column", "Line", strconv.Itoa(e.Line), "Column", e.Column, "Problem", msg))
		} else {
			out = append(out, tr.T("bill.file.row", "Line", strconv.Itoa(e.Line), "Problem", msg))
		}
	}
	if r.Omitted > 0 {
		out = append(out, tr.T("bill.file.more", "Count", strconv.Itoa(r.Omitted)))
	}
	return out, true
}

// BillDocument is a checked bill as the CSV and workbook exports write it.
func BillDocument(tr *i18n.Translator, in BillRecords) report.Document {
	number := in.Report.Number
	if in.Report.Revision > 1 {
		number += " " + tr.T("report.revision", "Revision", strconv.Itoa(in.Report.Revision))
	}
	return billfile.Document(in.Result, billfile.DocumentMeta{ReportNumber: number,
		Quote: QuoteName(tr, in.Row.Quote.AsQuote(in.Row.GPU)), Instances: in.Record.Instances}, tr.TMap)
}

// BillFocusMeta names who billed a checked bill, for its FOCUS export: the
// platform (its English name, FOCUS being read by tools), billed to the
// report's number.
func BillFocusMeta(in BillRecords) billfile.FocusMeta {
	q := in.Row.Quote
	name := q.PlatformNameEN
	if name == "" {
		name = q.PlatformNameZH
	}
	return billfile.FocusMeta{ProviderName: name, BillingAccountID: in.Report.Number}
}

// BillMappingsView is the editors' page of a platform's FOCUS mappings
// (docs/RULES.md §23.9): every remembered answer, to change or forget, and
// one to add.
type BillMappingsView struct {
	Page       Page
	PlatformID int64
	Platform   string
	Rows       []BillMappingRow
	Items      []Option
	Kinds      []Option
	// Form holds the values of a refused addition; Errors its problems.
	Form   url.Values
	Errors Errors
}

// BillMappingRow is one remembered answer.
type BillMappingRow struct {
	Field string
	Kind  string
	Key   string
	Item  string
	By    string
	At    string
}

// BillMappingsPath is a platform's mapping page.
func BillMappingsPath(platformID int64) string {
	return "/platforms/" + strconv.FormatInt(platformID, 10) + "/bill-mappings"
}

// NewBillMappingsView draws a platform's mappings.
func NewBillMappingsView(tr *i18n.Translator, platformID int64, platform string, ms []bill.Mapping) BillMappingsView {
	v := BillMappingsView{PlatformID: platformID, Platform: platform, Items: BillItemOptions(tr), Form: url.Values{}, Errors: Errors{},
		Kinds: []Option{{Value: bill.MappingSKU, Label: tr.T("bill.form.unmapped.sku")},
			{Value: bill.MappingDescription, Label: tr.T("bill.form.unmapped.description")}}}
	for i, m := range ms {
		v.Rows = append(v.Rows, BillMappingRow{Field: "item-" + strconv.Itoa(i), Kind: m.Kind, Key: m.Key, Item: string(m.Item),
			By: m.UpdatedByName, At: ReportTime(tr, m.UpdatedAt)})
	}
	return v
}
