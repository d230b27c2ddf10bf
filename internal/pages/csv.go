package pages

import (
	"encoding/csv"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// ExportQuotesCSV streams the quotes matching the quote list's filters as
// CSV: UTF-8 with a BOM (so spreadsheets detect the encoding), CRLF line
// ends, one row per quote. Only editors may export drafts or archived
// versions.
func (s *Handlers) ExportQuotesCSV(c echo.Context) error {
	ctx := c.Request().Context()
	f, _ := s.QuoteFilter(c)
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	platformName, gpuName := quote.ExportNames(platforms, gpus)

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
			// Too late for an error page: the client gets a cut-off file.
			s.Log.ErrorContext(ctx, "csv export failed midway", "request_id", res.Header().Get(echo.HeaderXRequestID), "err", err.Error())
			return nil
		}
		return err
	}
	w.Flush()
	return w.Error()
}

// ImportForm shows the upload form.
func (s *Handlers) ImportForm(c echo.Context) error {
	v := web.NewImportView()
	v.Page = s.Page(c, "import.title")
	return s.Render(c, http.StatusOK, v.Page, web.Importer(v))
}

// ImportQuotesCSV validates every row of an uploaded CSV (quote.ReadCSV)
// and imports all rows or none: any problem → 422 listing each (row,
// column, message); success → 303 to the quote list.
func (s *Handlers) ImportQuotesCSV(c echo.Context) error {
	ctx := c.Request().Context()
	fh, err := c.FormFile("file")
	if err != nil {
		return s.renderImportProblems(c, quote.CSVProblems{File: []form.Message{{ID: "import.error.no_file"}}})
	}
	file, err := fh.Open()
	if err != nil {
		return err
	}
	defer file.Close()
	refs, err := s.QuoteRefs(ctx)
	if err != nil {
		return err
	}
	quotes, problems := quote.ReadCSV(file, refs, s.LatestDay())
	if problems.Any() {
		return s.renderImportProblems(c, problems)
	}
	ids, err := s.Store.ImportQuotes(ctx, s.Actor(c), quotes)
	if err != nil {
		return err
	}
	done := "import.done.other"
	if len(ids) == 1 {
		done = "import.done.one"
	}
	return s.RedirectWithFlash(c, "/quotes", "ok", done, "Count", strconv.Itoa(len(ids)))
}

// renderImportProblems shows the upload form with the problems p of a
// rejected file (422).
func (s *Handlers) renderImportProblems(c echo.Context, p quote.CSVProblems) error {
	v := web.NewImportView().WithProblems(server.Translator(c), p)
	v.Page = s.Page(c, "import.title")
	return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Importer(v))
}
