package pages

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/web"
)

// The bill check's pages (docs/RULES.md §23.8–§23.11): on an approved
// report, finance and the report's author check a month's bill against
// the quote it was rented under; every stored bill has its page, its
// letter to the vendor and its exports.

// maxUnmapped bounds the answers to a FOCUS file's unmapped SKUs read
// from one form.
const maxUnmapped = 500

// maxBillFormRows bounds the line rows the typed form takes.
const maxBillFormRows = 300

// mayCheckBills reports whether the reader may store a bill beside r:
// the report is approved and the reader is its author, finance or an
// admin (the store decides again inside its transaction).
func (s *Handlers) mayCheckBills(c echo.Context, r report.Report) bool {
	cur := auth.CurrentUser(c)
	return cur != nil && r.Status == report.Approved && bill.MayStore(cur.UserID, string(cur.Role), r.AuthorID)
}

// billOf reads the bill named in the path, which must belong to the
// report in the path (404 otherwise).
func (s *Handlers) billOf(c echo.Context, r report.Report) (bill.Record, error) {
	raw := c.Param("bill")
	if server.IDOutOfRange(raw) {
		return bill.Record{}, server.BadID()
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return bill.Record{}, echo.ErrNotFound
	}
	rec, err := s.Store.Bill(c.Request().Context(), id)
	if errors.Is(err, store.ErrNotFound) || err == nil && rec.ReportID != r.ID {
		return bill.Record{}, echo.ErrNotFound
	}
	return rec, err
}

// BillNewForm is GET /reports/:id/bills/new: the blank form, or with
// ?correct=<bill> the form filled with that bill, to store its correction.
func (s *Handlers) BillNewForm(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	if !s.mayCheckBills(c, r) {
		return echo.ErrForbidden
	}
	tr := server.Translator(c)
	v := s.billForm(c, r, snap)
	if raw := c.QueryParam("correct"); raw != "" {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			return echo.ErrNotFound
		}
		prev, err := s.Store.Bill(c.Request().Context(), id)
		if errors.Is(err, store.ErrNotFound) || err == nil && prev.ReportID != r.ID {
			return echo.ErrNotFound
		}
		if err != nil {
			return err
		}
		v.Correcting = prev.ID
		v.Values = billValues(prev)
		v.Rows = max(web.BillFormRowsFor(len(prev.Lines)), v.Rows)
	}
	_ = tr
	return s.Render(c, http.StatusOK, v.Page, web.BillForm(v))
}

// billForm is the blank form of report r.
func (s *Handlers) billForm(c echo.Context, r report.Report, snap report.Snapshot) web.BillFormView {
	tr := server.Translator(c)
	v := web.NewBillFormView(tr, r, snap, s.Today())
	v.Items = web.BillItemOptions(tr)
	v.Page = s.Page(c, "bill.form.title")
	return v
}

// billValues are a stored bill as the form's values.
func billValues(b bill.Record) url.Values {
	v := url.Values{}
	v.Set("quote", strconv.FormatInt(b.QuoteID, 10))
	v.Set("month", billcheck.MonthText(b.Month))
	v.Set("currency", b.Currency)
	v.Set("instances", strconv.Itoa(b.Instances))
	v.Set("prices_include_tax", yesNo(b.PricesIncludeTax))
	if b.FXDate.IsZero() && b.FXRate.Sign() > 0 && !b.FXRate.Equal(decimal.New(1, 0)) {
		v.Set("fx_rate", money.String(b.FXRate))
	}
	for i, l := range b.Lines {
		v.Set(web.LineField(i, "item"), string(l.Item))
		v.Set(web.LineField(i, "quantity"), money.String(l.Quantity))
		v.Set(web.LineField(i, "amount"), money.String(l.Amount))
		v.Set(web.LineField(i, "description"), l.Description)
	}
	return v
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// billSettings are the form's settings of a bill, read and checked.
type billSettings struct {
	quoteID   int64
	row       report.Row
	bill      billcheck.Bill
	fx        decimal.Decimal
	fxDate    time.Time
	note      string
	correct   int64
	quoteCur  string
	platform  int64
	fxMissing bool
}

// readBillSettings reads everything but the lines from the form.
func (s *Handlers) readBillSettings(c echo.Context, snap report.Snapshot, values url.Values, errs web.Errors) (billSettings, error) {
	r := form.Values(values)
	var st billSettings
	st.quoteID, _ = strconv.ParseInt(values.Get("quote"), 10, 64)
	row, ok := snap.RowOf(st.quoteID)
	if !ok || !row.Eligible() {
		errs.Add("quote", "bill.form.unknown_quote")
	} else {
		st.row, st.quoteCur, st.platform = row, row.Quote.Currency, row.Quote.PlatformID
	}
	if m, ok := billcheck.ParseMonth(strings.TrimSpace(values.Get("month"))); ok {
		st.bill.Month = m
	} else {
		errs.Add("month", tco.MessagePrefix+tco.CodeInvalidMonth)
	}
	st.bill.Currency = r.Currency("currency", true)
	n, _ := r.Int("instances", 1, tco.MaxInstances, true)
	st.bill.Instances = n
	switch values.Get("prices_include_tax") {
	case "yes":
		st.bill.PricesIncludeTax = true
	case "no":
	default:
		errs.Add("prices_include_tax", form.MsgRequired)
	}
	fx := r.Decimal("fx_rate", form.Decimal{Max: decimal.NewNullDecimal(tco.MaxFXRate), Places: tco.MaxFXPlaces})
	st.note = r.Text("note", 1000)
	st.correct, _ = strconv.ParseInt(values.Get("correct"), 10, 64)
	for k, m := range r.Errs {
		errs.Add(k, m.ID, m.Args...)
	}
	if errs.Has("quote") || errs.Has("currency") || errs.Has("month") || errs.Has("fx_rate") {
		return st, nil
	}
	st.fx = decimal.New(1, 0)
	if st.bill.Currency != st.quoteCur {
		if fx.Valid && fx.Decimal.Sign() > 0 {
			st.fx = fx.Decimal
			return st, nil
		}
		held, ok, err := s.FXLookup(c.Request().Context())(st.quoteCur, st.bill.Currency, billcheck.MonthEnd(st.bill.Month))
		if err != nil {
			return st, err
		}
		if !ok {
			errs.Add("fx_rate", tco.MessagePrefix+tco.CodeFXRateRequired, "From", st.quoteCur, "To", st.bill.Currency)
			return st, nil
		}
		st.fx, st.fxDate = held.Rate, held.Date
	}
	return st, nil
}

// readTypedLines reads the form's line rows: a row left blank is skipped;
// rows holds the form row of each line read, for its errors.
func readTypedLines(values url.Values, rows int, errs web.Errors) (lines []billcheck.Line, at []int) {
	for i := 0; i < rows; i++ {
		item := strings.TrimSpace(values.Get(web.LineField(i, "item")))
		q := strings.TrimSpace(values.Get(web.LineField(i, "quantity")))
		a := strings.TrimSpace(values.Get(web.LineField(i, "amount")))
		d := strings.TrimSpace(values.Get(web.LineField(i, "description")))
		if item == "" && q == "" && a == "" && d == "" {
			continue
		}
		var l billcheck.Line
		l.Item, l.Description = billcheck.Item(item), d
		if item == "" {
			errs.Add(web.LineField(i, "item"), form.MsgRequired)
		}
		for _, f := range []struct {
			col, text string
			to        *decimal.Decimal
		}{{"quantity", q, &l.Quantity}, {"amount", a, &l.Amount}} {
			if f.text == "" {
				errs.Add(web.LineField(i, f.col), form.MsgRequired)
				continue
			}
			v, err := money.ParseDecimal(f.text)
			if err != nil {
				errs.Add(web.LineField(i, f.col), form.NumberProblem(f.text, false))
				continue
			}
			*f.to = v
		}
		lines = append(lines, l)
		at = append(at, i)
	}
	return lines, at
}

// fieldArgs turns an engine error's arguments into a form message's.
func fieldArgs(m map[string]any) []any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		out = append(out, k, m[k])
	}
	return out
}

// BillCreate is POST /reports/:id/bills: "more rows" shows the form again
// with six more; "typed" checks the lines typed in; "import" reads the
// file (or the one carried back with the answers to its unmapped SKUs).
// Any problem shows the form again (422) with every value kept and
// nothing written; a checked bill is stored and its page follows (303).
func (s *Handlers) BillCreate(c echo.Context) error {
	ctx := c.Request().Context()
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	if !s.mayCheckBills(c, r) {
		return echo.ErrForbidden
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	for k, vs := range values {
		for _, x := range append([]string{k}, vs...) {
			if !server.StorableText(x) {
				return echo.NewHTTPError(http.StatusBadRequest).SetInternal(server.ErrUnstorableText)
			}
		}
	}
	tr := server.Translator(c)
	v := s.billForm(c, r, snap)
	v.Values = values
	rows, _ := strconv.Atoi(values.Get("rows"))
	rows = min(max(rows, 1), maxBillFormRows)
	v.Rows = rows
	v.Correcting, _ = strconv.ParseInt(values.Get("correct"), 10, 64)
	action := values.Get("action")
	if action == "more" {
		v.Rows = min(rows+6, maxBillFormRows)
		return s.Render(c, http.StatusOK, v.Page, web.BillForm(v))
	}
	errs := web.Errors{}
	st, err := s.readBillSettings(c, snap, values, errs)
	if err != nil {
		return err
	}
	var lines []billcheck.Line
	var at []int
	source, filename := bill.SourceTyped, ""
	if action == "import" {
		var done bool
		lines, source, filename, done, err = s.importBillFile(c, &v, &st, values, errs)
		if err != nil || done {
			return err
		}
	} else {
		lines, at = readTypedLines(values, rows, errs)
		if len(lines) == 0 && len(errs) == 0 {
			errs.Add("lines", "bill.form.no_lines")
		}
	}
	if len(errs) > 0 || len(v.Problems) > 0 {
		v.Errors = errs
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.BillForm(v))
	}
	st.bill.Lines = lines
	fieldErrs, err := bill.Validate(snap, st.quoteID, st.bill, st.fx)
	if err != nil {
		return err
	}
	for _, fe := range fieldErrs {
		if fe.Field == "quote.tax_rate" {
			// A quote with tax, whose rate it does not state, against a
			// bill without (docs/RULES.md §23.2).
			errs.Add("prices_include_tax", "bill.form.quote_tax_rate")
			continue
		}
		field := billFormField(fe.Field, at)
		if field == "" {
			v.Problems = append(v.Problems, fe.Field+": "+tr.TMap(fe.MessageID, fe.Args))
			continue
		}
		errs.Add(field, fe.MessageID, fieldArgs(fe.Args)...)
	}
	if len(errs) > 0 || len(v.Problems) > 0 {
		v.Errors = errs
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.BillForm(v))
	}
	res, _, err := bill.Check(snap, st.quoteID, st.bill, st.fx)
	if err != nil {
		return err
	}
	rec, err := s.Store.CreateBill(ctx, s.Actor(c), s.Now(), bill.New{ReportID: r.ID, QuoteID: st.quoteID, Month: st.bill.Month,
		Currency: st.bill.Currency, PricesIncludeTax: st.bill.PricesIncludeTax, Instances: st.bill.Instances, FXRate: st.fx,
		FXDate: st.fxDate, Source: source, Filename: filename, Note: st.note, Lines: lines, Totals: bill.TotalsOf(res)})
	var be *store.BillError
	switch {
	case errors.Is(err, store.ErrNotAllowed):
		return echo.ErrForbidden
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrReportNotApproved):
		// Moved or corrected by someone else since the form was read.
		return echo.NewHTTPError(http.StatusConflict)
	case errors.Is(err, store.ErrBillQuote):
		v.Errors = web.Errors{"quote": {ID: "bill.form.unknown_quote"}}
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.BillForm(v))
	case errors.As(err, &be):
		// The form and the engine check what the store does; a problem
		// only the store finds is shown as the form's.
		v.Problems = append(v.Problems, server.Translator(c).T("bill.form.refused", "Field", be.Field))
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.BillForm(v))
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, web.BillPath(r.ID, rec.ID), "ok", "bill.flash.saved",
		"Month", billcheck.MonthText(rec.Month), "Revision", strconv.Itoa(rec.Revision))
}

// billFormField is the form field of an engine error's path: a typed
// line's column, or a setting; "" for a path the form has no field for.
func billFormField(path string, at []int) string {
	switch path {
	case "bill.month":
		return "month"
	case "bill.currency":
		return "currency"
	case "bill.instances":
		return "instances"
	case "fx_rate":
		return "fx_rate"
	case "bill.lines":
		return "lines"
	}
	rest, ok := strings.CutPrefix(path, "bill.lines[")
	if !ok {
		return ""
	}
	idx, col, ok := strings.Cut(rest, "].")
	if !ok {
		return ""
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(at) {
		return ""
	}
	return web.LineField(at[i], col)
}

// importBillFile reads the bill's lines from the uploaded file, or from
// the file carried back with answers to its unmapped SKUs, whose answers
// are remembered first (docs/RULES.md §23.9). done says the form was
// answered (the unmapped SKUs asked for).
func (s *Handlers) importBillFile(c echo.Context, v *web.BillFormView, st *billSettings, values url.Values, errs web.Errors) (lines []billcheck.Line, source, filename string, done bool, err error) {
	ctx := c.Request().Context()
	tr := server.Translator(c)
	var data []byte
	up := server.UploadFile(c)
	switch {
	case up != nil && up.Present && up.TooLarge:
		errs.Add("file", billfile.MsgTooLarge, "Max", strconv.Itoa(billfile.MaxBytes>>20))
		return nil, "", "", false, nil
	case up != nil && up.Present && !up.Malformed:
		data, filename = up.Data, fileName(up.Name)
	case values.Get("file_text") != "":
		data, err = base64.StdEncoding.DecodeString(values.Get("file_text"))
		if err != nil || len(data) > billfile.MaxBytes {
			return nil, "", "", false, echo.NewHTTPError(http.StatusBadRequest)
		}
		filename = fileName(values.Get("file_name"))
	default:
		errs.Add("file", "bill.form.no_file")
		return nil, "", "", false, nil
	}
	if errs.Has("quote") || errs.Has("month") {
		return nil, "", "", false, nil
	}
	if values.Get("format") != "focus" {
		ls, rowErrs, err := billfile.ReadCSV(bytes.NewReader(data))
		if p, refused := web.BillFileProblems(tr, rowErrs, err); refused {
			v.Problems = append(v.Problems, p...)
			return nil, "", "", false, nil
		}
		if err != nil {
			return nil, "", "", false, err
		}
		return ls, bill.SourceCSV, filename, false, nil
	}
	// The answers to the unmapped SKUs of the file carried back.
	var answers []bill.Mapping
	n, _ := strconv.Atoi(values.Get("unmapped"))
	for i := 0; i < min(n, maxUnmapped); i++ {
		f := "map-" + strconv.Itoa(i)
		item := billcheck.Item(values.Get(f))
		if !item.Valid() {
			errs.Add(f, form.MsgRequired)
			continue
		}
		answers = append(answers, bill.Mapping{PlatformID: st.platform, Kind: values.Get(f + "-kind"), Key: values.Get(f + "-key"), Item: item})
	}
	if len(errs) > 0 {
		return nil, "", "", false, nil
	}
	if len(answers) > 0 {
		if err := s.Store.SaveBillMappings(ctx, s.Actor(c), s.Now(), st.platform, answers); err != nil {
			return nil, "", "", false, err
		}
	}
	known, err := s.Store.BillMappings(ctx, st.platform)
	if err != nil {
		return nil, "", "", false, err
	}
	lookup := map[[2]string]billcheck.Item{}
	for _, m := range known {
		lookup[[2]string{m.Kind, m.Key}] = m.Item
	}
	fr, rowErrs, err := billfile.ReadFOCUS(bytes.NewReader(data), st.bill.Month, func(kind, key string) (billcheck.Item, bool) {
		it, ok := lookup[[2]string{kind, key}]
		return it, ok
	})
	if p, refused := web.BillFileProblems(tr, rowErrs, err); refused {
		v.Problems = append(v.Problems, p...)
		return nil, "", "", false, nil
	}
	if err != nil {
		return nil, "", "", false, err
	}
	if len(fr.Unmapped) > 0 {
		v.File, v.FileName = base64.StdEncoding.EncodeToString(data), filename
		for i, u := range fr.Unmapped {
			v.Unmapped = append(v.Unmapped, web.BillUnmapped{Field: "map-" + strconv.Itoa(i), Kind: u.Kind, Key: u.Key,
				Description: u.Description, Rows: u.Rows, Billed: web.FormatMoney(tr.Lang, decimal.NewNullDecimal(u.Billed), fr.Currency)})
		}
		v.Errors = errs
		v.Values.Set("format", "focus")
		return nil, "", "", true, s.Render(c, http.StatusOK, v.Page, web.BillForm(*v))
	}
	if fr.Currency != "" {
		st.bill.Currency = fr.Currency
	}
	return fr.Lines, bill.SourceFOCUS, filename, false, nil
}

// billPage reads the report and bill of the path and checks the bill.
func (s *Handlers) billPage(c echo.Context) (web.BillRecords, error) {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return web.BillRecords{}, err
	}
	rec, err := s.billOf(c, r)
	if err != nil {
		return web.BillRecords{}, err
	}
	res, row, err := bill.Check(snap, rec.QuoteID, rec.Bill(), rec.FXRate)
	if err != nil {
		return web.BillRecords{}, err
	}
	in := web.BillRecords{Report: r, Row: row, Record: rec, Result: res, CanCheck: s.mayCheckBills(c, r)}
	if in.Budget, err = s.billBudget(c, snap, row, rec.Month, rec.Currency, res.BilledTotal); err != nil {
		return web.BillRecords{}, err
	}
	all, err := s.Store.ReportBills(c.Request().Context(), r.ID)
	if err != nil {
		return web.BillRecords{}, err
	}
	for _, o := range all {
		if o.QuoteID == rec.QuoteID && o.Month.Equal(rec.Month) {
			in.Revisions = append(in.Revisions, o)
		}
	}
	slices.SortFunc(in.Revisions, func(a, b bill.Record) int { return a.Revision - b.Revision })
	return in, nil
}

// billBudget sets a month's billed total against the report's monthly
// budget for the quote (docs/RULES.md §23.5).
func (s *Handlers) billBudget(c echo.Context, snap report.Snapshot, row report.Row, month time.Time, currency string, total decimal.Decimal) (web.BillBudget, error) {
	b := web.BillBudget{Currency: snap.ReportCurrency, BillCurrency: currency}
	confirmed, pessimistic, ok := bill.MonthlyBudget(snap, row)
	if !ok {
		return b, nil
	}
	b.Confirmed, b.Pessimistic = confirmed, pessimistic
	if currency == snap.ReportCurrency {
		b.Total = money.Round2(total)
	} else {
		fx, ok, err := s.FXLookup(c.Request().Context())(currency, snap.ReportCurrency, billcheck.MonthEnd(month))
		if err != nil || !ok {
			return b, err
		}
		b.Total = money.MulRound([]decimal.Decimal{total, fx.Rate}, 2)
		b.Converted, b.Rate, b.RateDate = true, fx.Rate, fx.Date
	}
	b.Known = true
	b.Verdict = billcheck.BudgetOf(b.Total, b.Confirmed, b.Pessimistic)
	return b, nil
}

// BillShow is GET /reports/:id/bills/:bill: the checked bill.
func (s *Handlers) BillShow(c echo.Context) error {
	in, err := s.billPage(c)
	if err != nil {
		return err
	}
	v := web.NewBillView(server.Translator(c), in)
	v.Page = s.Page(c, "bill.page.title")
	v.Page.Title = in.Report.Number + " · " + v.Month
	return s.Render(c, http.StatusOK, v.Page, web.BillPage(v))
}

// BillLetter is GET /reports/:id/bills/:bill/letter: the letter to the
// vendor in Chinese and English.
func (s *Handlers) BillLetter(c echo.Context) error {
	in, err := s.billPage(c)
	if err != nil {
		return err
	}
	v := web.NewBillView(server.Translator(c), in).WithLetters(s.Catalog.Translator(i18n.ZH), s.Catalog.Translator(i18n.EN), in)
	v.Page = s.Page(c, "bill.action.letter")
	v.Page.Title = in.Report.Number + " · " + v.Month
	return s.Render(c, http.StatusOK, v.Page, web.BillLetterPage(v))
}

// BillExportCSV, BillExportXLSX and BillExportFOCUS are the bill's
// exports (docs/RULES.md §23.11): the same bytes for the same bill.
func (s *Handlers) BillExportCSV(c echo.Context) error   { return s.billExport(c, "csv") }
func (s *Handlers) BillExportXLSX(c echo.Context) error  { return s.billExport(c, "xlsx") }
func (s *Handlers) BillExportFOCUS(c echo.Context) error { return s.billExport(c, "focus") }

func (s *Handlers) billExport(c echo.Context, kind string) error {
	in, err := s.billPage(c)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	var buf bytes.Buffer
	name := web.BillFilename(in, kind)
	ctype := "text/csv; charset=utf-8"
	switch kind {
	case "csv":
		err = report.WriteCSV(&buf, web.BillDocument(tr, in))
	case "xlsx":
		ctype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		err = report.WriteXLSX(&buf, web.BillDocument(tr, in))
	default:
		err = billfile.WriteFOCUS(&buf, in.Result, web.BillFocusMeta(in))
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, ctype, buf.Bytes())
}

// reportBills is the report page's section of bills by month: each
// month's latest revision with its budget verdict.
func (s *Handlers) reportBills(c echo.Context, r report.Report, snap report.Snapshot) (web.BillsSection, error) {
	sec := web.BillsSection{ReportID: r.ID, Approved: r.Status == report.Approved, CanCheck: s.mayCheckBills(c, r)}
	if !sec.Approved {
		return sec, nil
	}
	all, err := s.Store.ReportBills(c.Request().Context(), r.ID)
	if err != nil {
		return sec, err
	}
	tr := server.Translator(c)
	for _, b := range all {
		if !b.Latest {
			continue
		}
		row, ok := snap.RowOf(b.QuoteID)
		if !ok {
			continue
		}
		bud, err := s.billBudget(c, snap, row, b.Month, b.Currency, b.Totals.Billed)
		if err != nil {
			return sec, err
		}
		m := web.NewBillMonthRow(tr, r.ID, b, row, bud)
		sec.Months = append(sec.Months, m)
	}
	return sec, nil
}

// BillMappingsPage is GET /platforms/:id/bill-mappings: the editors' page
// of a platform's FOCUS mappings (docs/RULES.md §23.9).
func (s *Handlers) BillMappingsPage(c echo.Context) error {
	return s.renderBillMappings(c, http.StatusOK, nil, nil)
}

func (s *Handlers) renderBillMappings(c echo.Context, status int, form url.Values, errs web.Errors) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := s.Store.PlatformByID(ctx, id)
	if err != nil {
		return err
	}
	ms, err := s.Store.BillMappings(ctx, id)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	v := web.NewBillMappingsView(tr, id, web.DisplayName(tr.Lang, p.NameZH, p.NameEN), ms)
	if form != nil {
		v.Form, v.Errors = form, errs
	}
	v.Page = s.Page(c, "bill.mappings.title")
	return s.Render(c, status, v.Page, web.BillMappings(v))
}

// BillMappingSave is POST /platforms/:id/bill-mappings: one mapping added
// or changed, audited; a refusal shows the page again with what was typed.
func (s *Handlers) BillMappingSave(c echo.Context) error {
	id, values, err := pathForm(c)
	if err != nil {
		return err
	}
	errs := web.Errors{}
	kind, key, item := values.Get("kind"), strings.TrimSpace(values.Get("key")), billcheck.Item(values.Get("item"))
	if kind != bill.MappingSKU && kind != bill.MappingDescription {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	if key == "" {
		errs.Add("key", form.MsgRequired)
	}
	if !item.Valid() {
		errs.Add("item", form.MsgRequired)
	}
	if len(errs) == 0 {
		err = s.Store.SaveBillMappings(c.Request().Context(), s.Actor(c), s.Now(), id, []bill.Mapping{{PlatformID: id, Kind: kind, Key: key, Item: item}})
		var be *store.BillError
		switch {
		case errors.As(err, &be):
			errs.Add("key", "bill.form.refused", "Field", be.Field)
		case err != nil:
			return err
		}
	}
	if len(errs) > 0 {
		return s.renderBillMappings(c, http.StatusUnprocessableEntity, values, errs)
	}
	return s.RedirectWithFlash(c, web.BillMappingsPath(id), "ok", "bill.mappings.flash.saved")
}

// BillMappingDelete is POST /platforms/:id/bill-mappings/delete: one
// mapping forgotten, audited (404 when there is none).
func (s *Handlers) BillMappingDelete(c echo.Context) error {
	id, values, err := pathForm(c)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteBillMapping(c.Request().Context(), s.Actor(c), s.Now(), id, values.Get("kind"), values.Get("key")); err != nil {
		var be *store.BillError
		if errors.As(err, &be) {
			return echo.NewHTTPError(http.StatusBadRequest)
		}
		return err
	}
	return s.RedirectWithFlash(c, web.BillMappingsPath(id), "ok", "bill.mappings.flash.deleted")
}
