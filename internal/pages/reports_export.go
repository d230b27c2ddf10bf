package pages

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// ReportExportCSV downloads the report as CSV (UTF-8 with a BOM).
func (s *Handlers) ReportExportCSV(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	body, err := s.reportFile(c, r, snap, "csv", report.WriteCSV)
	if err != nil {
		return err
	}
	return s.download(c, "text/csv; charset=utf-8", report.Filename(r.Number, r.Revision, "csv"), body)
}

// ReportExportXLSX downloads the report as an Excel workbook.
func (s *Handlers) ReportExportXLSX(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	body, err := s.reportFile(c, r, snap, "xlsx", report.WriteXLSX)
	if err != nil {
		return err
	}
	return s.download(c, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		report.Filename(r.Number, r.Revision, "xlsx"), body)
}

// reportFile is a report's export file, written once per report, language
// and state: the figures come from the immutable snapshot, and the state
// key holds everything else the file shows that may change (the status,
// its last change, the names of the people).
func (s *Handlers) reportFile(c echo.Context, r report.Report, snap report.Snapshot, kind string,
	write func(io.Writer, report.Document) error) ([]byte, error) {
	k := server.FrozenKey{ID: r.ID, Kind: kind, Lang: string(server.Translator(c).Lang),
		State: strings.Join([]string{r.Status, r.UpdatedAt.UTC().Format(time.RFC3339Nano), r.AuthorName, r.DecidedByName, r.Title, r.Purpose}, "\x00")}
	if cached, ok := s.Frozen.Get(k); ok {
		return cached.([]byte), nil
	}
	var buf bytes.Buffer
	if err := write(&buf, web.ReportDocument(server.Translator(c), r, snap)); err != nil {
		return nil, err
	}
	s.Frozen.Put(k, buf.Bytes())
	return buf.Bytes(), nil
}

// download sends a file built in memory (so a failure is still an error
// page, never half a file).
func (s *Handlers) download(c echo.Context, contentType, filename string, body []byte) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, contentType, body)
}
