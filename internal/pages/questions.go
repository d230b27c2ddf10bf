package pages

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/facts"
	"gpuquote/internal/server"
	"gpuquote/internal/tcoapi"
	"gpuquote/internal/vendorq"
	"gpuquote/web"
)

// QuoteQuestions shows the questions to send one quote's vendor, as plain
// text to copy: its open lines and missing terms, grouped as the guides'
// five written confirmations and six SLA clauses, with the profile's
// volumes. The comparison page links here per quote (and loads it in place
// with htmx), so a comparison of 20 quotes does not render 20 letters.
func (s *Handlers) QuoteQuestions(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.QueryParam("quote"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	// Who may read which version: quote.MayRead (docs/RULES.md §18.1).
	uid, role := server.Viewer(c)
	q, err := s.Store.QuoteFor(ctx, id, uid, role)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	profile, perrs := tcoapi.ProfileFromForm(c.QueryParams())
	qc := vendorq.Context{}
	if len(perrs) == 0 {
		qc = vendorq.ContextFor(q, profile, s.Today())
	}
	// The platform's answers to the SLA clauses and written confirmations:
	// those missing or not in writing are asked too.
	terms, err := s.Store.PlatformTerms(ctx, q.PlatformID)
	if err != nil {
		return err
	}
	qc.Terms = vendorq.TermsOf(terms)
	// The platform's facts still unknown are asked too (docs/RULES.md §18.3).
	records, err := s.Store.PlatformFacts(ctx, q.PlatformID)
	if err != nil {
		return err
	}
	qc.UnknownFacts = facts.Unknowns(facts.InForce(records, s.Today()))
	v := web.NewQuestionsView(tr, q, qc)
	v.Page = s.Page(c, "compare.questions.title")
	return s.Render(c, http.StatusOK, v.Page, web.Questions(v))
}
