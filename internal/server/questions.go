package server

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/facts"
	"gpuquote/internal/tcoapi"
	"gpuquote/internal/vendorq"
	"gpuquote/web"
)

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
	// Who may read which version: quote.MayRead (docs/RULES.md §18.1).
	uid, role := viewer(c)
	q, err := s.store.QuoteFor(ctx, id, uid, role)
	if err != nil {
		return err
	}
	tr := translator(c)
	profile, perrs := tcoapi.ProfileFromForm(c.QueryParams())
	qc := vendorq.Context{}
	if len(perrs) == 0 {
		qc = vendorq.ContextFor(q, profile, s.today())
	}
	// The platform's answers to the SLA clauses and written confirmations:
	// those missing or not in writing are asked too.
	terms, err := s.store.PlatformTerms(ctx, q.PlatformID)
	if err != nil {
		return err
	}
	qc.Terms = vendorq.TermsOf(terms)
	// The platform's facts still unknown are asked too (docs/RULES.md §18.3).
	records, err := s.store.PlatformFacts(ctx, q.PlatformID)
	if err != nil {
		return err
	}
	qc.UnknownFacts = facts.Unknowns(facts.InForce(records, s.today()))
	name := web.QuoteName(translator(c), q)
	title := name + " · " + tr.T("quote.version_short", "Version", strconv.Itoa(q.Version)) + " · " + web.FormatDate(q.AsOf)
	v := web.QuestionsView{ID: strconv.FormatInt(q.ID, 10), Name: name, QuoteURL: "/quotes/" + strconv.FormatInt(q.ID, 10),
		PlainText: vendorq.PlainText(title, vendorq.For(q, qc), tr.TMap)}
	v.Page = s.page(c, "compare.questions.title")
	return s.render(c, http.StatusOK, v.Page, web.Questions(v))
}
