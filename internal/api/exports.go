package api

import "github.com/labstack/echo/v4"

// The export files through the data API (docs/RULES.md §19.5): the same
// files the pages' links download, for a token holding read (a page's
// link answers a token with the sign-in page).

// QuotesExportCSV is GET /api/v1/quotes/export.csv: the quotes the quote
// list's filters keep, as the quote list's "Export CSV" writes them.
// Filters are checked as GET /api/v1/quotes checks them (400 naming the
// field).
func (s *Handlers) QuotesExportCSV(c echo.Context) error {
	for _, k := range []string{"platform", "gpu"} {
		if _, ok := apiQueryID(c, k); !ok {
			return apiMarketFilterError(c, k, "api.market.error.id")
		}
	}
	if _, ok := apiQueryCurrency(c, "currency"); !ok {
		return apiMarketFilterError(c, "currency", "api.market.error.currency")
	}
	f, _ := s.QuoteFilter(c)
	return s.WriteQuotesCSV(c, f)
}

// ReportExportCSV is GET /api/v1/reports/{id}/export.csv: the report's
// CSV, as its page's link downloads it (404 when the caller may not see
// the report).
func (s *Handlers) ReportExportCSV(c echo.Context) error { return s.reportExport(c, "csv") }

// ReportExportXLSX is GET /api/v1/reports/{id}/export.xlsx: the report's
// workbook.
func (s *Handlers) ReportExportXLSX(c echo.Context) error { return s.reportExport(c, "xlsx") }

func (s *Handlers) reportExport(c echo.Context, format string) error {
	r, err := s.apiReportHeadFor(c)
	if err != nil {
		return err
	}
	snap, err := s.ReportSnapshot(c.Request().Context(), r.ID)
	if err != nil {
		return err
	}
	return s.SendReportExport(c, r, snap, format)
}
