package pages

import "github.com/labstack/echo/v4"

// ReportExportCSV downloads the report as CSV (UTF-8 with a BOM), the
// file the data API sends too (server.SendReportExport).
func (s *Handlers) ReportExportCSV(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	return s.SendReportExport(c, r, snap, "csv")
}

// ReportExportXLSX downloads the report as an Excel workbook.
func (s *Handlers) ReportExportXLSX(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	return s.SendReportExport(c, r, snap, "xlsx")
}
