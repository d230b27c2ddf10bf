package server

import (
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// The export files both doors send: the quote list as CSV and a saved
// report as CSV or XLSX, the same bytes from the page's link and from the
// data API (docs/RULES.md §14.5, §19.5).

// WriteQuotesCSV streams the quotes f keeps as CSV: UTF-8 with a BOM (so
// spreadsheets detect the encoding), CRLF line ends, one row per quote.
// The answer starts with the first row, so a failure before it (the
// database is down) is still an ordinary error answer.
func (s *Server) WriteQuotesCSV(c echo.Context, f store.QuoteFilter) error {
	ctx := c.Request().Context()
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	platformName, gpuName := quote.ExportNames(platforms, gpus)

	res := c.Response()
	w := csv.NewWriter(res)
	w.UseCRLF = true
	started := false
	start := func() error {
		started = true
		h := res.Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, `attachment; filename="quotes-`+s.Today().Format("20060102")+`.csv"`)
		h.Set("Cache-Control", "no-store")
		res.WriteHeader(http.StatusOK)
		if _, err := io.WriteString(res, quote.UTF8BOM); err != nil {
			return err
		}
		return w.Write(quote.CSVHeader)
	}
	row := make([]string, len(quote.CSVHeader))
	err = s.Store.ExportQuotes(ctx, f, func(qt quote.Quote) error {
		if !started {
			if err := start(); err != nil {
				return err
			}
		}
		quote.CSVRow(row, qt, platformName[qt.PlatformID], gpuName[qt.GPUModelID])
		return w.Write(row)
	})
	if err == nil && !started {
		err = start()
	}
	if err != nil {
		if started {
			// Too late for an error answer: the client gets a cut-off file.
			s.Log.ErrorContext(ctx, "csv export failed midway", "request_id", res.Header().Get(echo.HeaderXRequestID), "err", err.Error())
			return nil
		}
		return err
	}
	w.Flush()
	return w.Error()
}

// SendReportExport answers with report r's export file in format ("csv"
// or "xlsx"), read by the reader's language. A file is written
// once per report, language and state and kept with the report's other
// frozen parts: the figures come from the immutable snapshot, and the
// state key holds everything else the file shows that may change (the
// status, its last change, the names of the people). It is built in
// memory, so a failure is still an error answer, never half a file.
func (s *Server) SendReportExport(c echo.Context, r report.Report, snap report.Snapshot, format string) error {
	write, contentType := report.WriteCSV, "text/csv; charset=utf-8"
	if format == "xlsx" {
		write, contentType = report.WriteXLSX, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	k := FrozenKey{ID: r.ID, Kind: format, Lang: string(Translator(c).Lang),
		State: strings.Join([]string{r.Status, r.UpdatedAt.UTC().Format(time.RFC3339Nano), r.AuthorName, r.DecidedByName, r.Title, r.Purpose}, "\x00")}
	body, ok := s.Frozen.Get(k)
	if !ok {
		var buf bytes.Buffer
		if err := write(&buf, web.ReportDocument(Translator(c), r, snap)); err != nil {
			return err
		}
		s.Frozen.Put(k, buf.Bytes())
		body = buf.Bytes()
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+report.Filename(r.Number, r.Revision, format)+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, contentType, body.([]byte))
}
