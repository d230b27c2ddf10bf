package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// Kind says how a cell's value is written: text, or a number with a fixed
// number of places (the same digits in every format).
type Kind int

// The kinds of cell.
const (
	Text   Kind = iota
	Money       // 2 places, grouped in spreadsheets
	Rate4       // 4 places (cost per GPU-hour)
	Share       // a fraction with 4 places, a percentage in spreadsheets
	Hours       // 2 places
	Number      // as exact as stored (quantities, unit prices, rates)
)

// Cell is one value of an exported table.
type Cell struct {
	Kind Kind
	Text string
	Num  decimal.Decimal
}

// String is the cell as written to CSV, and as the digits of a spreadsheet
// number: money and hours to 2 places, per-hour rates and shares to 4,
// other numbers exactly.
func (c Cell) String() string {
	switch c.Kind {
	case Money, Hours:
		return money.Fixed(c.Num, 2)
	case Rate4, Share:
		return money.Fixed(c.Num, 4)
	case Number:
		return money.String(c.Num)
	default:
		return c.Text
	}
}

func text(s string) Cell                 { return Cell{Kind: Text, Text: s} }
func num(k Kind, d decimal.Decimal) Cell { return Cell{Kind: k, Num: d} }

func nullNum(k Kind, d decimal.NullDecimal) Cell {
	if !d.Valid {
		return text("")
	}
	return num(k, d.Decimal)
}

// Table is a header and rows of cells.
type Table struct {
	Header []string
	Rows   [][]Cell
}

// Document is a report laid out for export: facts about the report, one
// summary row per compared quote, and every hidden-cost line.
type Document struct {
	// SummaryName and LinesName name the spreadsheet's two sheets.
	SummaryName, LinesName string
	// Meta are label/value pairs (number, dates, people, currency…).
	Meta [][2]string
	// MetaKinds, when set, say how each of Meta's values is written in a
	// spreadsheet (by index; missing or Text: a text cell). The values are
	// the digits a number kind writes, so the CSV is the same either way.
	MetaKinds []Kind
	// SharePercent writes shares to the CSV as percentages with 2 places
	// ("6.67%", as the page shows them and as spreadsheets read them)
	// rather than as fractions; set from rules 2027.1 on.
	SharePercent bool
	Summary      Table
	Lines        Table
	// OwnName names the spreadsheet's third sheet, which holds Own and
	// OwnCrossings: the own-hardware options and their crossing with each
	// rental (docs/RULES.md §11.7). A report without own options has
	// neither, nor the sheet.
	OwnName          string
	Own, OwnCrossing Table
	// AvailabilityName names the sheet of Availability, each compared
	// platform × GPU model's recorded attempts (docs/RULES.md §18.2); a
	// report without them has neither the table nor the sheet.
	AvailabilityName string
	Availability     Table
}

// Translate renders a catalog message in the reader's language
// ((*i18n.Translator).TMap).
type Translate func(id string, args map[string]any) string

// BuildDocument lays a snapshot out for export. name gives a quote's name
// as the report view shows it; meta are the report's facts, translated.
// Every figure comes from the snapshot, so the exports show exactly what
// the view shows.
func BuildDocument(s Snapshot, meta [][2]string, tr Translate, name func(Row) string) Document {
	t := func(id string) string { return tr(id, nil) }
	d := Document{SummaryName: t("report.sheet.summary"), LinesName: t("report.sheet.lines"), Meta: meta}
	d.Summary.Header = []string{t("report.col.rank"), t("compare.col.quote"), t("report.col.version"), t("calc.quote.as_of"),
		t("calc.quote.currency"), t("report.col.fx_rate"), t("report.col.fx_date"), t("report.col.eligible"),
		t("compare.col.chosen"), t("calc.result.compute"), t("calc.result.hidden"), t("calc.result.one_off"),
		t("calc.result.tco"), t("calc.result.tco_pessimistic"), t("calc.result.hidden_share"), t("calc.result.effective"),
		t("calc.result.break_even_hours"), t("calc.result.flags"), t("report.col.reasons")}
	d.Lines.Header = []string{t("compare.col.quote"), t("report.col.line_no"), t("calc.line.item"), t("calc.line.status"),
		t("report.col.quantity"), t("calc.line.unit"), t("report.col.unit_price"), t("calc.line.free_allowance"),
		t("report.col.amount"), t("report.col.reference_unit_price"), t("report.col.reference_amount")}
	// Rules 2027.1 added the pessimistic hidden share, the items the
	// pessimistic TCO leaves out and whose reference priced a line; a report
	// saved under older rules exports the columns it had, byte for byte.
	incomplete := s.NamesUnpriced()
	if incomplete {
		// From rules 2027.1 on the export's labels are column names, never
		// a sentence's lead-in: no trailing colon; shares read as on the page.
		d.SharePercent = true
		d.Meta = make([][2]string, len(meta))
		for i, m := range meta {
			d.Meta[i] = [2]string{ExportLabel(m[0]), m[1]}
		}
		d.Summary.Header = slices.Insert(d.Summary.Header, sharePessimisticCol, t("calc.result.hidden_share_pessimistic"),
			t("report.col.pessimistic_unpriced"))
		d.Lines.Header = append(d.Lines.Header, t("calc.result.reference_source"))
	}
	if s.ScenarioB != nil {
		b := func(id string) string { return tr("report.col.scenario_b", map[string]any{"Column": t(id)}) }
		d.Summary.Header = append(d.Summary.Header, b("compare.col.chosen"), b("calc.result.tco"), b("calc.result.tco_pessimistic"),
			t("report.col.diff_tco"), t("report.col.diff_tco_pessimistic"))
	}
	rank := map[int]int{}
	for n, i := range s.Ranking() {
		rank[i] = n + 1
	}
	yes, no := t("report.yes"), t("report.no")
	for i, r := range s.Rows {
		q := r.Quote
		nm := name(r)
		row := make([]Cell, 0, len(d.Summary.Header))
		if n, ok := rank[i]; ok {
			row = append(row, num(Number, decimal.NewFromInt(int64(n))))
		} else {
			row = append(row, text(""))
		}
		row = append(row, text(nm), text(tr("report.quote_version", map[string]any{"ID": strconv.FormatInt(q.ID, 10),
			"Version": strconv.Itoa(q.Version)})), text(q.AsOf), text(q.Currency))
		if rate, date, ok := s.Rate(q.Currency); ok {
			row = append(row, num(Number, rate), text(date))
		} else {
			row = append(row, text(""), text(""))
		}
		if r.Eligible() {
			row = append(row, text(yes))
		} else {
			row = append(row, text(no))
		}
		var reasons []string
		for _, m := range r.Reasons {
			reasons = append(reasons, tr(m.ID, m.ArgsMap()))
		}
		if res := r.Result; r.Priced && res != nil {
			var flags []string
			for _, f := range res.Flags {
				flags = append(flags, t(catalog.Flag(f).LabelID()))
			}
			row = append(row, text(t(catalog.Mode(res.ChosenMode).LabelID())), num(Money, res.ComputeTotal), num(Money, res.HiddenTotal),
				num(Money, res.OneOffTotal), num(Money, res.TCO), num(Money, res.TCOPessimistic), nullNum(Share, res.HiddenShare))
			if incomplete {
				var items []string
				for _, it := range res.PessimisticUnpriced {
					items = append(items, t(itemLabel(it)))
				}
				row = append(row, nullNum(Share, res.HiddenSharePessimistic), text(strings.Join(items, t("export.separator"))))
			}
			row = append(row, num(Rate4, res.EffectivePerGPUHour), nullNum(Hours, res.BreakEvenHours), text(strings.Join(flags, t("export.separator"))))
			for n, l := range res.Lines {
				lr := []Cell{text(nm), num(Number, decimal.NewFromInt(int64(n+1))), text(t(itemLabel(l.Item))),
					text(t(catalog.Status(l.Status).LabelID())), num(Number, l.Quantity), text(unitLabel(t, l.Item, l.Unit, incomplete)),
					nullNum(Number, l.UnitPrice), num(Number, l.FreeAllowance), num(Money, l.Amount),
					nullNum(Number, l.ReferenceUnitPrice), nullNum(Money, l.ReferenceAmount)}
				if incomplete {
					lr = append(lr, text(ReferenceSourceText(tr, l.ReferenceSource, l.ReferenceQuoteID)))
				}
				d.Lines.Rows = append(d.Lines.Rows, lr)
			}
		} else {
			row = append(row, text(t("compare.not_priced")))
			for len(row) < len(d.Summary.Header)-1 {
				row = append(row, text(""))
			}
		}
		row = append(row, text(strings.Join(reasons, t("export.separator"))))
		if s.ScenarioB != nil {
			row = append(row, scenarioCells(s, r, t)...)
		}
		d.Summary.Rows = append(d.Summary.Rows, row)
	}
	if incomplete {
		for _, tb := range []*Table{&d.Summary, &d.Lines} {
			for i, h := range tb.Header {
				tb.Header[i] = ExportLabel(h)
			}
		}
	}
	if d.Own, d.OwnCrossing = ownTables(s, tr, name); len(d.Own.Header) > 0 {
		d.OwnName = t("report.sheet.own")
	}
	if d.Availability = availabilityTable(s, tr); len(d.Availability.Header) > 0 {
		d.AvailabilityName = t("availability.csv.table")
	}
	return d
}

// tables are the document's tables in the order the CSV writes them: the
// own-hardware ones only when the report has own options.
func (d Document) tables() []Table {
	out := []Table{d.Summary, d.Lines}
	if len(d.Own.Header) > 0 {
		out = append(out, d.Own, d.OwnCrossing)
	}
	if len(d.Availability.Header) > 0 {
		out = append(out, d.Availability)
	}
	return out
}

// scenarioCells are a quote's figures under usage profile B and B − A.
func scenarioCells(s Snapshot, r Row, t func(string) string) []Cell {
	b, ok := s.ScenarioRowOf(r.Quote.ID)
	if !ok || !b.Priced || b.Result == nil {
		return []Cell{text(t("compare.not_priced")), text(""), text(""), text(""), text("")}
	}
	out := []Cell{text(t(catalog.Mode(b.Result.ChosenMode).LabelID())), num(Money, b.Result.TCO), num(Money, b.Result.TCOPessimistic)}
	if r.Priced && r.Result != nil {
		return append(out, num(Money, b.Result.TCO.Sub(r.Result.TCO)), num(Money, b.Result.TCOPessimistic.Sub(r.Result.TCOPessimistic)))
	}
	return append(out, text(""), text(""))
}

// ExportLabel is a label as an export writes it from rules 2027.1 on:
// without a trailing colon (full-width or not) or space.
func ExportLabel(s string) string {
	return strings.TrimRight(s, ":： ")
}

// sharePessimisticCol is where the summary's 2027.1 columns go: after the
// hidden share.
const sharePessimisticCol = 15

// ReferenceSourceText names whose reference priced a line: the editors',
// or the market's with its quote; "" for a line no reference priced.
func ReferenceSourceText(tr Translate, source string, quoteID int64) string {
	switch source {
	case "editor":
		return tr("reference_source.editor", nil)
	case "market":
		return tr("reference_source.market", map[string]any{"QuoteID": strconv.FormatInt(quoteID, 10)})
	}
	return ""
}

func itemLabel(key string) string {
	if it, ok := catalog.LookupItem(catalog.ItemKey(key)); ok {
		return it.LabelID
	}
	return key
}

// unitLabel names a line's unit: what it is a rate of ("per GB per month")
// for reports under current rules; a report of rules 2026.1 keeps the
// generic label it was exported with ("per unit per month").
func unitLabel(t func(string) string, item, u string, current bool) string {
	if u == "" {
		return ""
	}
	if it, ok := catalog.LookupItem(catalog.ItemKey(item)); ok && current {
		return t(it.UnitLabelID(catalog.Unit(u)))
	}
	return t(catalog.Unit(u).LabelID())
}

// utf8BOM starts the CSV so spreadsheets detect UTF-8.
const utf8BOM = "\ufeff"

// guardText keeps a spreadsheet from running text as a formula: text that
// starts with = + - @ (or a tab or carriage return) gets a leading
// apostrophe, as the quote export does. Numbers are never guarded.
func guardText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteCSV writes the document as one CSV file (UTF-8 with a BOM, CRLF
// line ends): the facts as label/value rows, a blank row, the summary
// table, a blank row, the lines table. Numbers are plain digits with a
// point and no grouping, exactly as in the spreadsheet.
func WriteCSV(w io.Writer, d Document) error {
	if _, err := io.WriteString(w, utf8BOM); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	for _, m := range d.Meta {
		if err := cw.Write([]string{guardText(m[0]), guardText(m[1])}); err != nil {
			return err
		}
	}
	rec := make([]string, 0, 32)
	for _, tb := range d.tables() {
		if err := cw.Write([]string{}); err != nil {
			return err
		}
		if err := cw.Write(tb.Header); err != nil {
			return err
		}
		for _, row := range tb.Rows {
			rec = rec[:0]
			for _, c := range row {
				switch {
				case c.Kind == Text:
					rec = append(rec, guardText(c.Text))
				case c.Kind == Share && d.SharePercent:
					rec = append(rec, money.Fixed(c.Num.Mul(decimal.NewFromInt(100)), 2)+"%")
				default:
					rec = append(rec, c.String())
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Number formats of the spreadsheet, by kind, in the order their styles
// are made: a fixed order, so the workbook's styles and the cells' style
// numbers are the same bytes every time (a map's order changes per run).
var numFmts = []struct {
	kind Kind
	code string
}{
	{Money, "#,##0.00"},
	{Rate4, "#,##0.0000"},
	{Share, "0.00%"},
	{Hours, "#,##0.00"},
	{Number, "General"},
}

// WriteXLSX writes the document as a workbook of two sheets: the facts and
// the summary table, then the lines. Numbers are numeric cells written from
// their exact decimal digits (never through a float) with 2-decimal number
// formats for money, so the workbook sums what the CSV shows.
func WriteXLSX(w io.Writer, d Document) error {
	f := excelize.NewFile()
	defer f.Close()
	styles := map[Kind]int{}
	for _, nf := range numFmts {
		c := nf.code
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &c})
		if err != nil {
			return err
		}
		styles[nf.kind] = id
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	summary, lines := sheetName(d.SummaryName, "Summary"), sheetName(d.LinesName, "Lines")
	if err := f.SetSheetName("Sheet1", summary); err != nil {
		return err
	}
	if _, err := f.NewSheet(lines); err != nil {
		return err
	}
	row := 1
	for i, m := range d.Meta {
		if err := setText(f, summary, 1, row, m[0], bold); err != nil {
			return err
		}
		if i < len(d.MetaKinds) && d.MetaKinds[i] != Text && m[1] != "" {
			ref, err := excelize.CoordinatesToCellName(2, row)
			if err != nil {
				return err
			}
			// The digits as they are, a numeric cell in its kind's format.
			if err := f.SetCellDefault(summary, ref, m[1]); err != nil {
				return err
			}
			if err := f.SetCellStyle(summary, ref, ref, styles[d.MetaKinds[i]]); err != nil {
				return err
			}
		} else if err := setText(f, summary, 2, row, m[1], 0); err != nil {
			return err
		}
		row++
	}
	row++
	if err := writeTable(f, summary, row, d.Summary, styles, bold); err != nil {
		return err
	}
	if err := writeTable(f, lines, 1, d.Lines, styles, bold); err != nil {
		return err
	}
	widths := []struct {
		sheet string
		cols  int
	}{{summary, len(d.Summary.Header)}, {lines, len(d.Lines.Header)}}
	if len(d.Own.Header) > 0 {
		own := sheetName(d.OwnName, "Own hardware")
		if _, err := f.NewSheet(own); err != nil {
			return err
		}
		if err := writeTable(f, own, 1, d.Own, styles, bold); err != nil {
			return err
		}
		if err := writeTable(f, own, len(d.Own.Rows)+3, d.OwnCrossing, styles, bold); err != nil {
			return err
		}
		widths = append(widths, struct {
			sheet string
			cols  int
		}{own, max(len(d.Own.Header), len(d.OwnCrossing.Header))})
	}
	for _, s := range widths {
		last, _ := excelize.ColumnNumberToName(s.cols)
		if err := f.SetColWidth(s.sheet, "A", last, 14); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(summary, "B", "B", 36); err != nil {
		return err
	}
	if err := f.SetColWidth(lines, "A", "A", 36); err != nil {
		return err
	}
	if len(widths) > 2 {
		if err := f.SetColWidth(widths[2].sheet, "A", "A", 36); err != nil {
			return err
		}
	}
	if err := writeAvailabilitySheet(f, d, styles, bold); err != nil {
		return err
	}
	f.SetActiveSheet(0)
	_, err = f.WriteTo(w)
	return err
}

// sheetName keeps a translated sheet name within Excel's rules.
func sheetName(name, fallback string) string {
	if name == "" || len([]rune(name)) > 31 || strings.ContainsAny(name, `[]:*?/\`) {
		return fallback
	}
	return name
}

func setText(f *excelize.File, sheet string, col, row int, v string, style int) error {
	ref, err := excelize.CoordinatesToCellName(col, row)
	if err != nil {
		return err
	}
	if err := f.SetCellStr(sheet, ref, v); err != nil {
		return err
	}
	if style != 0 {
		return f.SetCellStyle(sheet, ref, ref, style)
	}
	return nil
}

func writeTable(f *excelize.File, sheet string, row int, tb Table, styles map[Kind]int, bold int) error {
	for i, h := range tb.Header {
		if err := setText(f, sheet, i+1, row, h, bold); err != nil {
			return err
		}
	}
	for _, r := range tb.Rows {
		row++
		for i, c := range r {
			ref, err := excelize.CoordinatesToCellName(i+1, row)
			if err != nil {
				return err
			}
			if c.Kind == Text {
				if c.Text != "" {
					if err := f.SetCellStr(sheet, ref, c.Text); err != nil {
						return err
					}
				}
				continue
			}
			// SetCellDefault stores the digits as a numeric cell as they are.
			if err := f.SetCellDefault(sheet, ref, c.String()); err != nil {
				return err
			}
			if err := f.SetCellStyle(sheet, ref, ref, styles[c.Kind]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Filename is the export's file name: the report number, its revision
// after the first, and the extension.
func Filename(number string, revision int, ext string) string {
	if revision > 1 {
		return fmt.Sprintf("%s-r%d.%s", number, revision, ext)
	}
	return number + "." + ext
}
