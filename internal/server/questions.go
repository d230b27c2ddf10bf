package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
	"gpuquote/internal/vendorq"
	"gpuquote/web"
)

// questionsURL links to the questions one quote raises for the profile in
// values (the team's volumes make them exact).
func questionsURL(values url.Values, quoteID int64) string {
	q := url.Values{}
	for k, vs := range values {
		if strings.HasPrefix(k, "profile.") && len(vs) > 0 && vs[0] != "" {
			q[k] = vs
		}
	}
	q.Set("quote", strconv.FormatInt(quoteID, 10))
	return "/compare/questions?" + q.Encode()
}

// quoteQuestions shows the questions to send one quote's vendor, as plain
// text to copy: its open lines and missing terms, grouped as the guides'
// five written confirmations and six SLA clauses, with the profile's
// volumes. The comparison page links here per quote (and loads it in place
// with htmx), so a comparison of 20 quotes does not render 20 letters.
func (s *Server) quoteQuestions(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.QueryParam("quote"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	q, err := s.store.QuoteByID(ctx, id)
	if err != nil {
		return err
	}
	if q.State == store.QuoteDraft && !isEditor(c) {
		return echo.ErrNotFound
	}
	tr := t(c)
	profile, perrs := tcoapi.ProfileFromForm(c.QueryParams())
	qc := vendorq.Context{}
	if len(perrs) == 0 {
		p := profile
		qc = vendorq.Context{Mbps: p.Mbps, EgressGBPerMonth: p.EgressGBPerMonth, MigrationGB: p.MigrationGB, PublicIPs: p.PublicIPs,
			SystemDiskGB: p.SystemDiskGB, DataDiskGB: p.DataDiskGB, ObjectStorageGB: p.ObjectStorageGB, SnapshotGB: p.SnapshotGB,
			ImageGB: p.ImageGB, StartsPerMonth: p.StartsPerMonth}
		// The stopped hours are the engine's (730 − billable hours when the
		// instance is kept stopped in an hourly mode).
		gpu := store.GPUModel{Vendor: q.GPUVendor, Name: q.GPUName}
		if res, err := tco.Evaluate(compare.EngineQuote(q, gpu), p, tco.Options{ReportCurrency: q.Currency, Today: s.today()}); err == nil {
			for _, l := range res.Lines {
				if l.Item == catalog.ItemStoppedRetention {
					qc.StoppedHoursPerMonth = l.Quantity
				}
			}
		}
	}
	name := compareCandidateName(c, q)
	title := name + " · " + tr.T("quote.version_short", "Version", strconv.Itoa(q.Version)) + " · " + web.FormatDate(q.AsOf)
	v := web.QuestionsView{ID: strconv.FormatInt(q.ID, 10), Name: name, QuoteURL: "/quotes/" + strconv.FormatInt(q.ID, 10),
		PlainText: vendorq.PlainText(title, vendorq.For(q, qc), tr.TMap)}
	v.Page = s.page(c, "compare.questions.title")
	return s.render(c, http.StatusOK, v.Page, web.Questions(v))
}
