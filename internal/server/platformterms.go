package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/vendorq"
	"gpuquote/web"
)

// termMaxAnswer bounds an answer (the column's CHECK says the same).
const termMaxAnswer = 2000

// termClause is one of the eleven terms every platform is asked about: the
// six SLA clauses, then the five written confirmations.
type termClause struct {
	kind   string
	clause catalog.Clause
}

// termClauses lists the eleven in the order the pages show them.
func termClauses() []termClause {
	out := make([]termClause, 0, len(catalog.SLAClauses)+len(catalog.WrittenConfirmations))
	for _, c := range catalog.SLAClauses {
		out = append(out, termClause{market.TermKindSLA, c})
	}
	for _, c := range catalog.WrittenConfirmations {
		out = append(out, termClause{market.TermKindConfirmation, c})
	}
	return out
}

// termHintID explains a term on the form where it needs it: the first
// written confirmation is answered per quote, line by line.
func termHintID(kind, key string) string {
	if kind == market.TermKindConfirmation && key == "hidden_items" {
		return "terms.hint.hidden_items"
	}
	return ""
}

// termsByKey indexes stored terms.
func termsByKey(terms []market.PlatformTerm) map[string]market.PlatformTerm {
	out := make(map[string]market.PlatformTerm, len(terms))
	for _, t := range terms {
		out[t.Kind+"."+t.Key] = t
	}
	return out
}

// termState is how far a term is answered: "written", "unwritten" or
// "missing".
func termState(t market.PlatformTerm) string {
	switch {
	case t.Answered():
		return "written"
	case strings.TrimSpace(t.Answer) != "":
		return "unwritten"
	}
	return "missing"
}

// platformTermsView is the platform page's section on its terms.
func (s *Server) platformTermsView(c echo.Context, platformID int64) (web.PlatformTermsView, error) {
	terms, err := s.store.PlatformTerms(c.Request().Context(), platformID)
	if err != nil {
		return web.PlatformTermsView{}, err
	}
	byKey := termsByKey(terms)
	v := web.PlatformTermsView{PlatformID: platformID, CanEdit: canEditSpecs(c)}
	for _, tc := range termClauses() {
		t := byKey[tc.kind+"."+tc.clause.Key]
		r := web.PlatformTermRow{Kind: tc.kind, Key: tc.clause.Key, Number: tc.clause.Number, LabelID: tc.clause.LabelID,
			Answer: t.Answer, State: termState(t)}
		if t.AnsweredOn != nil {
			r.AnsweredOn = web.FormatDate(*t.AnsweredOn)
		}
		if t.LockVersion > 0 {
			r.UpdatedBy, r.UpdatedAt = t.UpdatedByName, trialTime(t.UpdatedAt)
		}
		if r.State != "written" && !(tc.kind == market.TermKindConfirmation && tc.clause.Key == "hidden_items") {
			v.Open++
		}
		if tc.kind == market.TermKindSLA {
			v.SLA = append(v.SLA, r)
		} else {
			v.Confirmations = append(v.Confirmations, r)
		}
	}
	return v, nil
}

// vendorTerms are a platform's terms as vendorq reads them: every one of
// the eleven, answered or not (so the questions know they were looked up).
func vendorTerms(terms []market.PlatformTerm) []vendorq.Term {
	byKey := termsByKey(terms)
	out := make([]vendorq.Term, 0, 11)
	for _, tc := range termClauses() {
		t := byKey[tc.kind+"."+tc.clause.Key]
		kind := vendorq.KindSLA
		if tc.kind == market.TermKindConfirmation {
			kind = vendorq.KindConfirmation
		}
		vt := vendorq.Term{Kind: kind, Key: tc.clause.Key, Answer: t.Answer, InWriting: t.InWriting}
		if t.AnsweredOn != nil {
			vt.Date = web.FormatDate(*t.AnsweredOn)
		}
		out = append(out, vt)
	}
	return out
}

// termFields fills the form's eleven terms from stored ones.
func termFields(terms []market.PlatformTerm) (sla, confirmations []web.PlatformTermField) {
	byKey := termsByKey(terms)
	for _, tc := range termClauses() {
		t := byKey[tc.kind+"."+tc.clause.Key]
		f := web.PlatformTermField{Kind: tc.kind, Key: tc.clause.Key, Number: tc.clause.Number, LabelID: tc.clause.LabelID,
			HintID: termHintID(tc.kind, tc.clause.Key), Answer: t.Answer, InWriting: t.InWriting, LockVersion: t.LockVersion}
		if t.AnsweredOn != nil {
			f.AnsweredOn = web.FormatDate(*t.AnsweredOn)
		}
		if tc.kind == market.TermKindSLA {
			sla = append(sla, f)
		} else {
			confirmations = append(confirmations, f)
		}
	}
	return sla, confirmations
}

// platformTermsEdit is GET /platforms/:id/terms/edit.
func (s *Server) platformTermsEdit(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := s.store.PlatformByID(ctx, id)
	if err != nil {
		return err
	}
	terms, err := s.store.PlatformTerms(ctx, id)
	if err != nil {
		return err
	}
	f := web.PlatformTermsForm{PlatformID: id, PlatformName: web.PlatformName(ctx, p.NameZH, p.NameEN), Errors: web.Errors{}}
	f.SLA, f.Confirmations = termFields(terms)
	f.Page = s.page(c, "terms.title")
	return s.render(c, http.StatusOK, f.Page, web.PlatformTermsFormPage(f))
}

// platformTermsUpdate is POST /platforms/:id/terms: saves the eleven
// answers. Every problem is named beside its field (422, input kept); a
// save that lost to someone else's comes back (409) with the input and the
// current versions, so saving again is a deliberate overwrite.
func (s *Server) platformTermsUpdate(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := s.store.PlatformByID(ctx, id)
	if err != nil {
		return err
	}
	errs := web.Errors{}
	f := web.PlatformTermsForm{PlatformID: id, PlatformName: web.PlatformName(ctx, p.NameZH, p.NameEN), Errors: errs}
	var terms []market.PlatformTerm
	for _, tc := range termClauses() {
		fld := web.PlatformTermField{Kind: tc.kind, Key: tc.clause.Key, Number: tc.clause.Number, LabelID: tc.clause.LabelID,
			HintID: termHintID(tc.kind, tc.clause.Key)}
		lv, err := strconv.Atoi(c.FormValue(fld.Name("lock_version")))
		if err != nil || lv < 0 {
			return echo.NewHTTPError(http.StatusBadRequest)
		}
		fld.LockVersion = lv
		fld.Answer = trialText(c.FormValue(fld.Name("answer")), errs, fld.Name("answer"), termMaxAnswer)
		switch c.FormValue(fld.Name("in_writing")) {
		case "":
		case "true":
			fld.InWriting = true
		default:
			errs.Set(fld.Name("in_writing"), "spec.error.choice")
		}
		if fld.InWriting && fld.Answer == "" {
			errs.Set(fld.Name("in_writing"), "terms.error.in_writing_without_answer")
		}
		t := market.PlatformTerm{Kind: tc.kind, Key: tc.clause.Key, Answer: fld.Answer, InWriting: fld.InWriting, LockVersion: lv}
		fld.AnsweredOn = strings.TrimSpace(c.FormValue(fld.Name("answered_on")))
		if fld.AnsweredOn != "" {
			d, err := time.Parse(time.DateOnly, fld.AnsweredOn)
			switch {
			case err != nil || d.Year() < 2000:
				errs.Set(fld.Name("answered_on"), "form.date.invalid")
			case d.After(s.latestDay()):
				errs.Set(fld.Name("answered_on"), "terms.error.answered_on_future")
			default:
				t.AnsweredOn = &d
			}
		}
		terms = append(terms, t)
		if tc.kind == market.TermKindSLA {
			f.SLA = append(f.SLA, fld)
		} else {
			f.Confirmations = append(f.Confirmations, fld)
		}
	}
	status := http.StatusUnprocessableEntity
	if len(errs) == 0 {
		err := s.store.SavePlatformTerms(ctx, s.actor(c), id, terms)
		switch {
		case errors.Is(err, store.ErrConflict):
			cur, err := s.store.PlatformTerms(ctx, id)
			if err != nil {
				return err
			}
			// Keep the input; take the current versions.
			versions := map[string]int{}
			for _, t := range cur {
				versions[t.Kind+"."+t.Key] = t.LockVersion
			}
			for i := range f.SLA {
				f.SLA[i].LockVersion = versions[f.SLA[i].Kind+"."+f.SLA[i].Key]
			}
			for i := range f.Confirmations {
				f.Confirmations[i].LockVersion = versions[f.Confirmations[i].Kind+"."+f.Confirmations[i].Key]
			}
			f.Conflict, status = true, http.StatusConflict
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/platforms/"+strconv.FormatInt(id, 10)+"#terms", "ok", "terms.flash.saved")
		}
	}
	f.Page = s.page(c, "terms.title")
	return s.render(c, status, f.Page, web.PlatformTermsFormPage(f))
}
