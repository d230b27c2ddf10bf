package server

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/web"
)

// The CSV format of quotes (docs/CSV.md): one row per quote, the columns
// of the entry form (QuoteFields, then "<item>.<field>" for the twelve
// lines in catalog order), values as quoteValues writes them and
// parseQuote reads them. An export starts with four identifying columns
// that an import ignores, so an exported file imports as it is.

const (
	// importBodyLimit is the upload limit of the import route (the global
	// request limit is much smaller).
	importBodyLimit = 20 << 20
	// importMaxRows bounds one file so an import finishes well within the
	// request deadline.
	importMaxRows = 10000
	// importMaxErrors is how many row problems the page lists.
	importMaxErrors = 200
)

// csvIdentity are the export's leading columns, ignored on import.
var csvIdentity = []string{"id", "series_id", "version", "state"}

// csvDataColumns are the columns an import reads, in export order.
var csvDataColumns = func() []string {
	cols := append([]string(nil), QuoteFields...)
	for _, it := range catalog.Items {
		for _, f := range LineFields {
			cols = append(cols, string(it.Key)+"."+f)
		}
	}
	return cols
}()

// CSVHeader is the header row of an export.
var CSVHeader = append(append([]string(nil), csvIdentity...), csvDataColumns...)

const utf8BOM = "\ufeff"

// Spreadsheets run a cell that starts with = + - @ (or a tab or carriage
// return) as a formula. An export guards such text with a leading
// apostrophe and an import removes it, so the round trip is exact: a value
// is guarded when it starts with one of those characters, or with an
// apostrophe followed by one of them or by another apostrophe (so that
// removing exactly one apostrophe is always right).
func formulaStart(b byte) bool {
	return b == '=' || b == '+' || b == '-' || b == '@' || b == '\t' || b == '\r'
}

func guardCell(s string) string {
	if s == "" {
		return s
	}
	if formulaStart(s[0]) || s[0] == '\'' && len(s) > 1 && (formulaStart(s[1]) || s[1] == '\'') {
		return "'" + s
	}
	return s
}

func unguardCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && (formulaStart(s[1]) || s[1] == '\'') {
		return s[1:]
	}
	return s
}

// exportNames maps platform and GPU model ids to the name an export
// writes: the platform's Chinese name (else English) and the GPU's
// "Vendor Name", each only when it resolves back to the same id on import;
// otherwise the id, which always does.
func exportNames(platforms, gpus []market.RefName) (platformName, gpuName map[int64]string) {
	refs := newQuoteRefs(platforms, gpus)
	pick := func(dst map[int64]string, byName map[string]int64, list []market.RefName) {
		for _, r := range list {
			dst[r.ID] = strconv.FormatInt(r.ID, 10)
			for _, n := range r.Names {
				if id, ok := byName[strings.ToLower(strings.TrimSpace(n))]; ok && id == r.ID && strings.TrimSpace(n) != "" {
					dst[r.ID] = strings.TrimSpace(n)
					break
				}
			}
		}
	}
	platformName, gpuName = map[int64]string{}, map[int64]string{}
	pick(platformName, refs.platforms, platforms)
	pick(gpuName, refs.gpus, gpus)
	return platformName, gpuName
}

// exportQuotesCSV streams the quotes matching the quote list's filters as
// CSV: UTF-8 with a BOM (so spreadsheets detect the encoding), CRLF line
// ends, one row per quote. Only editors may export drafts or archived
// versions.
func (s *Server) exportQuotesCSV(c echo.Context) error {
	ctx := c.Request().Context()
	f, _ := s.quoteFilter(c)
	platforms, gpus, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	platformName, gpuName := exportNames(platforms, gpus)

	res := c.Response()
	w := csv.NewWriter(res)
	w.UseCRLF = true
	// The response starts with the first row, so a failure before it (the
	// database is down) is still an ordinary error page.
	started := false
	start := func() error {
		started = true
		h := res.Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, `attachment; filename="quotes-`+s.today().Format("20060102")+`.csv"`)
		h.Set("Cache-Control", "no-store")
		res.WriteHeader(http.StatusOK)
		if _, err := io.WriteString(res, utf8BOM); err != nil {
			return err
		}
		return w.Write(CSVHeader)
	}
	row := make([]string, len(CSVHeader))
	err = s.store.ExportQuotes(ctx, f, func(qt quote.Quote) error {
		if !started {
			if err := start(); err != nil {
				return err
			}
		}
		v := quoteValues(qt)
		v.Set("platform", platformName[qt.PlatformID])
		v.Set("gpu_model", gpuName[qt.GPUModelID])
		row[0], row[1], row[2], row[3] = strconv.FormatInt(qt.ID, 10), strconv.FormatInt(qt.SeriesID, 10), strconv.Itoa(qt.Version), qt.State
		for i, col := range csvDataColumns {
			row[len(csvIdentity)+i] = guardCell(v.Get(col))
		}
		return w.Write(row)
	})
	if err == nil && !started {
		err = start()
	}
	if err != nil {
		if started {
			// Too late for an error page: the client gets a cut-off file.
			s.log.ErrorContext(ctx, "csv export failed midway", "request_id", res.Header().Get(echo.HeaderXRequestID), "err", err.Error())
			return nil
		}
		return err
	}
	w.Flush()
	return w.Error()
}

// importForm shows the upload form.
func (s *Server) importForm(c echo.Context) error {
	v := s.importView(c)
	return s.render(c, http.StatusOK, v.Page, web.Importer(v))
}

func (s *Server) importView(c echo.Context) web.ImportView {
	return web.ImportView{Page: s.page(c, "import.title"), MaxRows: importMaxRows, QuoteColumns: QuoteFields,
		LineColumns: LineFields, Items: catalogItemKeys()}
}

func catalogItemKeys() []string {
	out := make([]string, len(catalog.Items))
	for i, it := range catalog.Items {
		out[i] = string(it.Key)
	}
	return out
}

// importProblems is what is wrong with an uploaded file: problems with
// the file as a whole, or with single rows.
type importProblems struct {
	file []string
	rows []web.ImportError
	// badRows counts rows with at least one problem.
	badRows int
}

// importQuotesCSV validates every row of an uploaded CSV with parseQuote
// and imports all rows or none: any problem → 422 listing each (row,
// column, message); success → 303 to the quote list.
func (s *Server) importQuotesCSV(c echo.Context) error {
	ctx := c.Request().Context()
	fh, err := c.FormFile("file")
	if err != nil {
		return s.renderImportProblems(c, importProblems{file: []string{t(c).T("import.error.no_file")}})
	}
	file, err := fh.Open()
	if err != nil {
		return err
	}
	defer file.Close()
	refs, err := s.quoteRefs(ctx)
	if err != nil {
		return err
	}
	quotes, problems := s.readQuotesCSV(c, file, refs)
	if len(problems.file) > 0 || len(problems.rows) > 0 {
		return s.renderImportProblems(c, problems)
	}
	ids, err := s.store.ImportQuotes(ctx, s.actor(c), quotes)
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/quotes", "ok", "import.done", "Count", strconv.Itoa(len(ids)))
}

func (s *Server) renderImportProblems(c echo.Context, p importProblems) error {
	v := s.importView(c)
	v.FileErrors = p.file
	v.BadRows = p.badRows
	v.RowErrors = p.rows
	if len(p.rows) > importMaxErrors {
		v.RowErrors, v.MoreErrors = p.rows[:importMaxErrors], len(p.rows)-importMaxErrors
	}
	return s.render(c, http.StatusUnprocessableEntity, v.Page, web.Importer(v))
}

// readQuotesCSV reads and validates the whole file. Row numbers are the
// spreadsheet's: the header is row 1.
func (s *Server) readQuotesCSV(c echo.Context, r io.Reader, refs quoteRefs) ([]quote.Quote, importProblems) {
	tr := t(c)
	var p importProblems
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, err := br.Peek(len(utf8BOM)); err == nil && string(bom) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM))
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		p.file = append(p.file, tr.T("import.error.empty"))
		return nil, p
	}
	if err != nil {
		p.file = append(p.file, csvFileError(c, err))
		return nil, p
	}

	// Header: every column known, none twice.
	known := map[string]bool{}
	for _, col := range csvIdentity {
		known[col] = true
	}
	for _, col := range csvDataColumns {
		known[col] = true
	}
	index := map[string]int{}
	var unknown, dup []string
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case !utf8.ValidString(h) || !known[h]:
			unknown = append(unknown, strconv.Quote(h))
		case index[h] > 0:
			dup = append(dup, h)
		default:
			index[h] = i + 1 // 0 means absent
		}
	}
	if len(unknown) > 0 {
		p.file = append(p.file, tr.T("import.error.unknown_columns", "Columns", strings.Join(unknown, ", ")))
	}
	if len(dup) > 0 {
		p.file = append(p.file, tr.T("import.error.duplicate_columns", "Columns", strings.Join(dup, ", ")))
	}
	if len(index) == 0 {
		p.file = append(p.file, tr.T("import.error.no_header"))
	}
	if len(p.file) > 0 {
		return nil, p
	}

	// Rows: each validated on its own by parseQuote; every problem kept.
	today := s.today()
	order := map[string]int{}
	for i, col := range csvDataColumns {
		order[col] = i
	}
	missing := map[string]bool{}
	var quotes []quote.Quote
	for rowNum := 2; ; rowNum++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			p.badRows++
			p.rows = append(p.rows, web.ImportError{Row: rowNum,
				Message: tr.T("import.error.field_count", "Row", rowNum, "Got", len(rec), "Want", len(header))})
			continue
		}
		if err != nil {
			p.file = append(p.file, csvFileError(c, err))
			return nil, p
		}
		if rowNum-1 > importMaxRows {
			p.file = append(p.file, tr.T("import.error.too_many_rows", "Max", importMaxRows))
			return nil, p
		}
		blank := true
		for _, f := range rec {
			if strings.TrimSpace(f) != "" {
				blank = false
				break
			}
		}
		if blank {
			continue
		}
		if !validText(rec) {
			p.badRows++
			p.rows = append(p.rows, web.ImportError{Row: rowNum, Message: tr.T("import.error.encoding", "Row", rowNum)})
			continue
		}
		get := func(name string) string {
			if i := index[name]; i > 0 {
				return unguardCell(rec[i-1])
			}
			return ""
		}
		q, errs := parseQuote(get, refs, today)
		if len(errs) == 0 {
			quotes = append(quotes, q)
			continue
		}
		fields := make([]string, 0, len(errs))
		for f := range errs {
			if index[f] == 0 {
				// A problem in a column the file does not have is one
				// problem with the header, not one per row.
				missing[f] = true
				continue
			}
			fields = append(fields, f)
		}
		if len(fields) == 0 {
			continue
		}
		sort.Slice(fields, func(i, j int) bool { return order[fields[i]] < order[fields[j]] })
		p.badRows++
		for _, f := range fields {
			p.rows = append(p.rows, web.ImportError{Row: rowNum, Column: f, Message: tr.T(errs[f])})
		}
	}
	if len(missing) > 0 {
		cols := make([]string, 0, len(missing))
		for f := range missing {
			cols = append(cols, f)
		}
		sort.Slice(cols, func(i, j int) bool { return order[cols[i]] < order[cols[j]] })
		p.file = append(p.file, tr.T("import.error.missing_columns", "Columns", strings.Join(cols, ", ")))
	}
	if len(quotes) == 0 && len(p.rows) == 0 && len(p.file) == 0 {
		p.file = append(p.file, tr.T("import.error.empty"))
	}
	return quotes, p
}

// validText reports whether every field is UTF-8 without NUL bytes
// (PostgreSQL text cannot hold NUL).
func validText(rec []string) bool {
	for _, f := range rec {
		if !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 {
			return false
		}
	}
	return true
}

// csvFileError words a CSV syntax error with its line.
func csvFileError(c echo.Context, err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return t(c).T("import.error.csv", "Line", pe.StartLine)
	}
	return t(c).T("import.error.csv", "Line", "?")
}
