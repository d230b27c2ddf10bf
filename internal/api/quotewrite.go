package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// The data API's market writes (docs/RULES.md §19.4): quotes, proposals,
// reference prices and exchange rates, read from JSON through the very
// readers of the pages (quote.Read, market.ReadReferencePrice,
// market.ReadFXRate) and stored by the same store functions, audited in
// the same transaction.

// writeShape is what JSON values a write body's field takes; every one
// also takes null, meaning "not given" (an empty form field).
type writeShape int

const (
	// writeText is a JSON string: text, a choice, a currency, a date.
	writeText writeShape = iota
	// writeDecimal is a decimal as a JSON string, never a JSON number
	// (docs/RULES.md §19.1).
	writeDecimal
	// writeInt is a whole number, as a JSON integer or a string.
	writeInt
	// writeFlag is true or false, or a string the forms read ("true").
	writeFlag
	// writeRef is a platform or GPU model: its id (an integer) or a name.
	writeRef
)

// problem is the catalog id of a value of the wrong JSON type.
func (w writeShape) problem() string {
	switch w {
	case writeDecimal:
		return "api.write.error.decimal"
	case writeInt:
		return "api.write.error.integer"
	case writeFlag:
		return "api.write.error.flag"
	case writeRef:
		return "api.write.error.ref"
	}
	return "api.write.error.text"
}

// jsonInteger is a JSON number without fraction or exponent.
var jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// quoteFieldShape is the JSON shape of a quote field, from its kind.
func quoteFieldShape(f quote.Field) writeShape {
	switch f.Kind {
	case quote.KindRef:
		return writeRef
	case quote.KindDecimal:
		return writeDecimal
	case quote.KindInt:
		return writeInt
	case quote.KindYesNo, quote.KindBool:
		return writeFlag
	}
	return writeText
}

// lineFieldShape is the JSON shape of a field of one of the twelve lines.
func lineFieldShape(name string) writeShape {
	switch name {
	case "unit_price", "free_allowance":
		return writeDecimal
	case "in_writing":
		return writeFlag
	}
	return writeText
}

// writeValues are the fields of a write body as the text a form would
// post (name → value), and the fields whose JSON value had the wrong type.
type writeValues struct {
	vals map[string]string
	errs form.Errors
}

func newWriteValues() *writeValues {
	return &writeValues{vals: map[string]string{}, errs: form.Errors{}}
}

// get is the form getter the pages' readers take.
func (w *writeValues) get(name string) string { return w.vals[name] }

// set reads raw, the JSON value of field name, as shape: a value of
// another type is a problem of that field; text the database cannot store
// refuses the request as the input guard refuses a form's (400).
func (w *writeValues) set(name string, raw json.RawMessage, shape writeShape) error {
	raw = bytes.TrimSpace(raw)
	s, ok := "", false
	switch {
	case string(raw) == "null":
		ok = true
	case len(raw) > 0 && raw[0] == '"':
		ok = json.Unmarshal(raw, &s) == nil
	case string(raw) == "true" || string(raw) == "false":
		s, ok = string(raw), shape == writeFlag
	case shape == writeInt || shape == writeRef:
		s, ok = string(raw), jsonInteger.Match(raw)
	}
	if !ok {
		w.errs.Set(name, shape.problem())
		return nil
	}
	if !server.StorableText(s) {
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(server.ErrUnstorableText)
	}
	w.vals[name] = s
	return nil
}

// apiReadFields reads a flat write body whose fields are those of shapes;
// any other field is errAPIJSON.
func apiReadFields(c echo.Context, shapes map[string]writeShape) (*writeValues, error) {
	var body map[string]json.RawMessage
	if err := apiReadJSON(c, &body); err != nil {
		return nil, err
	}
	w := newWriteValues()
	for k, raw := range body {
		shape, ok := shapes[k]
		if !ok {
			return nil, errAPIJSON
		}
		if err := w.set(k, raw, shape); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// apiQuoteLinesField is the body field holding the twelve lines, an object
// keyed by item whose values hold the line's fields (quote.LineFields);
// each maps onto the form's "<item>.<field>".
const apiQuoteLinesField = "lines"

// apiReadQuoteBody reads a quote's write body: the quote's fields by their
// form and CSV names (quote.Fields), the lines, and extra fields of the
// endpoint. Unknown fields, items or line fields are errAPIJSON.
func apiReadQuoteBody(c echo.Context, extra map[string]writeShape) (*writeValues, error) {
	var body map[string]json.RawMessage
	if err := apiReadJSON(c, &body); err != nil {
		return nil, err
	}
	w := newWriteValues()
	for k, raw := range body {
		if f, ok := quote.FieldByName(k); ok {
			if err := w.set(k, raw, quoteFieldShape(f)); err != nil {
				return nil, err
			}
			continue
		}
		if shape, ok := extra[k]; ok {
			if err := w.set(k, raw, shape); err != nil {
				return nil, err
			}
			continue
		}
		if k != apiQuoteLinesField {
			return nil, errAPIJSON
		}
		var lines map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &lines); err != nil {
			return nil, errAPIJSON
		}
		for item, fields := range lines {
			if _, ok := catalog.LookupItem(catalog.ItemKey(item)); !ok {
				return nil, errAPIJSON
			}
			for name, raw := range fields {
				if !isLineField(name) {
					return nil, errAPIJSON
				}
				if err := w.set(item+"."+name, raw, lineFieldShape(name)); err != nil {
					return nil, err
				}
			}
		}
	}
	return w, nil
}

func isLineField(name string) bool {
	for _, f := range quote.LineFields {
		if f == name {
			return true
		}
	}
	return false
}

// apiReadQuote reads and checks a quote through quote.Read, the one
// validation of the entry form and the CSV import. errs name the body's
// fields: a line's "<item>.<field>" is "lines.<item>.<field>".
func (s *Handlers) apiReadQuote(c echo.Context, extra map[string]writeShape) (quote.Quote, *writeValues, web.Errors, error) {
	w, err := apiReadQuoteBody(c, extra)
	if err != nil {
		return quote.Quote{}, nil, nil, err
	}
	refs, err := s.QuoteRefs(c.Request().Context())
	if err != nil {
		return quote.Quote{}, nil, nil, err
	}
	q, readErrs := quote.Read(w.get, refs, s.LatestDay())
	for k, m := range w.errs {
		readErrs.Set(k, m.ID, m.Args...) // the wrong type, rather than "required"
	}
	errs := web.Errors{}
	for k, m := range readErrs {
		if strings.Contains(k, ".") {
			k = apiQuoteLinesField + "." + k
		}
		errs[k] = m
	}
	return q, w, errs, nil
}

// apiQuoteRef is the answer to a quote written through the API: where it
// is and what it became.
type apiQuoteRef struct {
	ID       int64  `json:"id"`
	SeriesID int64  `json:"series_id"`
	Version  int    `json:"version"`
	State    string `json:"state"`
	URL      string `json:"url"`
}

// apiQuoteCreated answers 201 with q's reference and its Location.
func apiQuoteCreated(c echo.Context, q quote.Quote) error {
	u := "/api/v1/quotes/" + strconv.FormatInt(q.ID, 10)
	c.Response().Header().Set(echo.HeaderLocation, u)
	return apiJSON(c, http.StatusCreated, apiQuoteRef{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, State: q.State, URL: u})
}

// apiWriteFailed answers a reader's error: the body's 422, else err.
func apiWriteFailed(c echo.Context, err error) error {
	if errors.Is(err, errAPIJSON) {
		return apiBadJSON(c)
	}
	return err
}

// QuoteCreate is POST /api/v1/quotes: a new quote published at once
// (docs/RULES.md §19.4).
func (s *Handlers) QuoteCreate(c echo.Context) error {
	q, _, errs, err := s.apiReadQuote(c, nil)
	if err != nil {
		return apiWriteFailed(c, err)
	}
	if len(errs) > 0 {
		return apiFormErrors(c, errs)
	}
	out, err := s.Store.CreatePublishedQuote(c.Request().Context(), s.Actor(c), q)
	if err != nil {
		return err
	}
	return apiQuoteCreated(c, out)
}

// QuoteNewVersion is POST /api/v1/quotes/{id}/versions: the next
// published version of the series whose published version is {id}
// (docs/RULES.md §19.4). 404 for an unknown id, 409 when {id} is not the
// current published version or the series has a draft in progress.
func (s *Handlers) QuoteNewVersion(c echo.Context) error {
	cur, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	if cur.State != quote.Published {
		return apiFail(c, http.StatusConflict, "conflict", "quote.flash.not_current")
	}
	q, _, errs, err := s.apiReadQuote(c, nil)
	if err != nil {
		return apiWriteFailed(c, err)
	}
	if len(errs) > 0 {
		return apiFormErrors(c, errs)
	}
	out, err := s.Store.PublishQuoteVersion(c.Request().Context(), s.Actor(c), cur.ID, q)
	var exists store.DraftExistsError
	switch {
	case errors.As(err, &exists):
		return apiFail(c, http.StatusConflict, "conflict", "api.write.error.draft_exists", "ID", exists.DraftID)
	case errors.Is(err, store.ErrNotDraft), errors.Is(err, store.ErrConflict):
		return apiFail(c, http.StatusConflict, "conflict", "quote.flash.not_current")
	case errors.Is(err, store.ErrNotFound):
		return echo.ErrNotFound
	case err != nil:
		return err
	}
	return apiQuoteCreated(c, out)
}

// apiProposalField is the vendor's message of a proposal, by the proposal
// form's name.
const apiProposalField = "vendor_message"

// ProposalCreate is POST /api/v1/proposals: a quote proposed as the
// proposal form proposes it, with the vendor's message and no file
// (docs/RULES.md §18.1, §19.4); the editors are told.
func (s *Handlers) ProposalCreate(c echo.Context) error {
	q, w, errs, err := s.apiReadQuote(c, map[string]writeShape{apiProposalField: writeText})
	if err != nil {
		return apiWriteFailed(c, err)
	}
	msg := w.get(apiProposalField)
	if !w.errs.Has(apiProposalField) {
		if p := proposal.CheckMessage(msg); p != "" {
			errs.Set(apiProposalField, p, "Max", strconv.Itoa(proposal.MaxMessageChars))
		}
	}
	if len(errs) > 0 {
		return apiFormErrors(c, errs)
	}
	out, err := s.Store.CreateProposal(c.Request().Context(), s.Actor(c), q, msg, nil, s.ProposalQuota(), s.Now())
	var rate *proposal.RateError
	switch {
	case errors.As(err, &rate):
		// One person's proposals an hour are bounded (docs/RULES.md §18.1).
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(rate.RetryAfter.Seconds())+1))
		id := "proposal.error.rate_api.other"
		if rate.RetryMinutes() == 1 {
			id = "proposal.error.rate_api.one"
		}
		return apiFail(c, http.StatusTooManyRequests, server.APIStatusCode(http.StatusTooManyRequests), id, "Limit", rate.Limit,
			"Count", rate.RetryMinutes())
	case err != nil:
		return err
	}
	return apiQuoteCreated(c, out)
}

// ReferencePriceCreate is POST /api/v1/reference-prices: the prices
// page's reader and store call (docs/RULES.md §19.4); a price already
// there for the item, currency, unit and day is the page's problem of
// as_of.
func (s *Handlers) ReferencePriceCreate(c echo.Context) error {
	w, err := apiReadFields(c, map[string]writeShape{"item": writeText, "currency": writeText, "unit": writeText,
		"unit_price": writeDecimal, "as_of": writeText, "source": writeText})
	if err != nil {
		return apiWriteFailed(c, err)
	}
	r := form.NewReader(w.get)
	p := market.ReadReferencePrice(r, s.LatestDay())
	for k, m := range w.errs {
		r.Errs.Set(k, m.ID, m.Args...)
	}
	if !r.OK() {
		return apiFormErrors(c, r.Errs)
	}
	out, err := s.Store.CreateReferencePrice(c.Request().Context(), s.Actor(c), p)
	switch {
	case errors.Is(err, store.ErrReferencePriceExists):
		return apiFormErrors(c, web.Errors{"as_of": {ID: "prices.reference.exists"}})
	case err != nil:
		return err
	}
	return apiJSON(c, http.StatusCreated, newAPIReferencePrice(out))
}

// FXRateCreate is POST /api/v1/fx-rates: the prices page's reader and
// store call (docs/RULES.md §19.4); a rate already there for the pair and
// day is the page's problem of as_of.
func (s *Handlers) FXRateCreate(c echo.Context) error {
	w, err := apiReadFields(c, map[string]writeShape{"base": writeText, "quote": writeText, "rate": writeDecimal,
		"as_of": writeText, "source": writeText})
	if err != nil {
		return apiWriteFailed(c, err)
	}
	r := form.NewReader(w.get)
	fx := market.ReadFXRate(r, s.LatestDay())
	for k, m := range w.errs {
		r.Errs.Set(k, m.ID, m.Args...)
	}
	if !r.OK() {
		return apiFormErrors(c, r.Errs)
	}
	out, err := s.Store.CreateFXRate(c.Request().Context(), s.Actor(c), fx)
	switch {
	case errors.Is(err, store.ErrFXRateExists):
		return apiFormErrors(c, web.Errors{"as_of": {ID: "prices.fx.exists"}})
	case err != nil:
		return err
	}
	return apiJSON(c, http.StatusCreated, newAPIFXRate(out))
}
