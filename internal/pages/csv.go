package pages

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// ExportQuotesCSV streams the quotes matching the quote list's filters as
// CSV (server.WriteQuotesCSV, the data API's export too). Only editors may
// export drafts or archived versions.
func (s *Handlers) ExportQuotesCSV(c echo.Context) error {
	f, _ := s.QuoteFilter(c)
	return s.WriteQuotesCSV(c, f)
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
