package server

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/money"
	"gpuquote/internal/report"
	"gpuquote/web"
)

// reportDocument lays a report out for export, from its row and snapshot
// only: the facts a reader of the file needs (number, dates, people,
// currency, rules, the recommendation), then the snapshot's figures.
func (s *Server) reportDocument(c echo.Context, r report.Report, snap report.Snapshot) report.Document {
	tr := translator(c)
	number := r.Number
	if r.Revision > 1 {
		number += " " + tr.T("report.revision", "Revision", strconv.Itoa(r.Revision))
	}
	meta := [][2]string{
		{tr.T("report.col.number"), number},
		{tr.T("report.field.title"), r.Title},
		{tr.T("report.field.purpose"), r.Purpose},
		{tr.T("report.col.status"), tr.T(web.ReportStatusLabelID(r.Status))},
		{tr.T("report.col.author"), r.AuthorName},
		{tr.T("report.col.created"), web.ReportTime(translator(c), r.CreatedAt)},
	}
	if r.SubmittedAt != nil {
		meta = append(meta, [2]string{tr.T("report.col.submitted"), web.ReportTime(translator(c), *r.SubmittedAt)})
	}
	if r.DecidedAt != nil {
		who, when := "report.fact.approver", "report.fact.approved_at"
		if r.Status == report.Returned {
			who, when = "report.fact.returned_by", "report.fact.returned_at"
		}
		meta = append(meta, [2]string{tr.T(who), r.DecidedByName}, [2]string{tr.T(when), web.ReportTime(translator(c), *r.DecidedAt)},
			[2]string{tr.T("report.fact.comment"), r.DecisionComment})
	}
	meta = append(meta,
		[2]string{tr.T("report.fact.figures_date"), snap.FiguresDate},
		[2]string{tr.T("report.fact.currency"), snap.ReportCurrency},
		[2]string{tr.T("report.fact.rules"), snap.RulesVersion})
	for _, fx := range snap.FXRates {
		date := fx.Date
		if date == "" {
			date = tr.T("compare.fx.undated")
		}
		meta = append(meta, [2]string{tr.T("report.col.fx_rate"),
			tr.T("compare.fx", "From", fx.Base, "To", fx.Quote, "Rate", money.String(fx.Rate), "Date", date)})
	}
	for _, f := range web.ReportProfile(translator(c), snap) {
		meta = append(meta, [2]string{f.Label, f.Value})
	}
	if sum := snap.Summary(); sum.Recommended >= 0 {
		rec := snap.Rows[sum.Recommended]
		meta = append(meta, [2]string{tr.T("report.summary.recommended"), web.QuoteName(translator(c), rec.Quote.AsQuote(rec.GPU))},
			[2]string{tr.T("calc.result.tco"), money.Fixed(rec.Result.TCO, 2)},
			[2]string{tr.T("calc.result.tco_pessimistic"), money.Fixed(rec.Result.TCOPessimistic, 2)})
		if sum.Savings.Valid {
			meta = append(meta, [2]string{tr.T("report.summary.savings"), money.Fixed(sum.Savings.Decimal, 2)})
		}
	}
	name := func(row report.Row) string { return web.QuoteName(translator(c), row.Quote.AsQuote(row.GPU)) }
	return report.BuildDocument(snap, meta, tr.TMap, name)
}

// reportExportCSV downloads the report as CSV (UTF-8 with a BOM).
func (s *Server) reportExportCSV(c echo.Context) error {
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

// reportExportXLSX downloads the report as an Excel workbook.
func (s *Server) reportExportXLSX(c echo.Context) error {
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
func (s *Server) reportFile(c echo.Context, r report.Report, snap report.Snapshot, kind string,
	write func(io.Writer, report.Document) error) ([]byte, error) {
	k := frozenKey{id: r.ID, kind: kind, lang: string(translator(c).Lang),
		state: strings.Join([]string{r.Status, r.UpdatedAt.UTC().Format(time.RFC3339Nano), r.AuthorName, r.DecidedByName, r.Title, r.Purpose}, "\x00")}
	if cached, ok := s.frozen.get(k); ok {
		return cached.([]byte), nil
	}
	var buf bytes.Buffer
	if err := write(&buf, s.reportDocument(c, r, snap)); err != nil {
		return nil, err
	}
	s.frozen.put(k, buf.Bytes())
	return buf.Bytes(), nil
}

// download sends a file built in memory (so a failure is still an error
// page, never half a file).
func (s *Server) download(c echo.Context, contentType, filename string, body []byte) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, contentType, body)
}
