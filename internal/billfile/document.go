package billfile

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/money"
	"gpuquote/internal/report"
)

// DocumentMeta are the facts of a checked bill that its result does not
// hold, as the bill's page shows them.
type DocumentMeta struct {
	// ReportNumber names the approved report the bill is checked beside
	// (with its revision, as the page writes it).
	ReportNumber string
	// Quote names the quote version the bill was checked against.
	Quote string
	// Instances is the bill's N; 0 leaves the row out.
	Instances int
}

// Document lays a checked bill out for report.WriteCSV and
// report.WriteXLSX: the facts (report, quote, month, currency, instances,
// exchange rate, tax basis), then one row per bill line (its number, the
// item and verdict in words, the description, quantity, billed, expected,
// allowance used, variance and reference expected), then the five totals.
//
// The report's document has two tables; a bill's first (Summary, on the
// first sheet under the facts) is its lines and its second (Lines, the
// second sheet) its totals, so the CSV reads facts, lines, totals.
// Expected and reference amounts are the check's, to the cent; billed
// amounts and variances are written to the cent when every billed amount
// is, else exactly as billed (a FOCUS file's costs carry more places).
func Document(res billcheck.Result, meta DocumentMeta, tr report.Translate) report.Document {
	t := func(id string) string { return tr(id, nil) }
	d := report.Document{SummaryName: t("billfile.sheet.lines"), LinesName: t("billfile.sheet.totals")}
	d.Meta = [][2]string{
		{t("billfile.meta.report"), meta.ReportNumber},
		{t("billfile.meta.quote"), meta.Quote},
		{t("billfile.meta.month"), billcheck.MonthText(res.Month)},
		{t("billfile.meta.currency"), res.Currency},
	}
	d.MetaKinds = []report.Kind{report.Text, report.Text, report.Text, report.Text}
	if meta.Instances > 0 {
		d.Meta = append(d.Meta, [2]string{t("billfile.meta.instances"), strconv.Itoa(meta.Instances)})
		d.MetaKinds = append(d.MetaKinds, report.Number)
	}
	tax := res.TaxAdjust
	if tax == "" {
		tax = "none"
	}
	d.Meta = append(d.Meta, [2]string{t("billfile.meta.fx_rate"), money.String(res.FXRate)},
		[2]string{t("billfile.meta.tax"), t("billfile.tax." + tax)})
	d.MetaKinds = append(d.MetaKinds, report.Number, report.Text)

	billed := report.Money
	for _, l := range res.Lines {
		if money.Places(l.Billed) > 2 {
			billed = report.Number
			break
		}
	}
	d.Summary.Header = []string{t("billfile.col.line"), t("billfile.col.item"), t("billfile.col.description"),
		t("billfile.col.quantity"), t("billfile.col.billed"), t("billfile.col.expected"), t("billfile.col.allowance"),
		t("billfile.col.variance"), t("billfile.col.verdict"), t("billfile.col.reference_expected")}
	for i, l := range res.Lines {
		d.Summary.Rows = append(d.Summary.Rows, []report.Cell{
			number(decimal.NewFromInt(int64(i + 1))), text(t(l.Item.LabelID())), text(l.Description),
			number(l.Quantity), cell(billed, l.Billed), nullCell(report.Money, l.Expected),
			nullCell(report.Number, l.Allowance), nullCell(billed, l.Variance), text(t(l.Verdict.LabelID())),
			nullCell(report.Money, l.ReferenceExpected),
		})
	}
	d.Lines.Header = []string{t("billfile.col.total"), t("billfile.col.amount")}
	for _, tot := range []struct {
		id   string
		kind report.Kind
		v    decimal.Decimal
	}{
		{"billfile.total.billed", billed, res.BilledTotal},
		{"billfile.total.expected", report.Money, res.ExpectedTotal},
		{"billfile.total.overcharge", billed, res.OverchargeTotal},
		{"billfile.total.undercharge", billed, res.UnderchargeTotal},
		{"billfile.total.unquoted", billed, res.UnquotedTotal},
	} {
		d.Lines.Rows = append(d.Lines.Rows, []report.Cell{text(t(tot.id)), cell(tot.kind, tot.v)})
	}
	return d
}

func text(s string) report.Cell { return report.Cell{Kind: report.Text, Text: s} }

func number(v decimal.Decimal) report.Cell { return cell(report.Number, v) }

func cell(k report.Kind, v decimal.Decimal) report.Cell { return report.Cell{Kind: k, Num: v} }

func nullCell(k report.Kind, v decimal.NullDecimal) report.Cell {
	if !v.Valid {
		return text("")
	}
	return cell(k, v.Decimal)
}
