package api

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/jsonbody"
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

// writeShape is the one JSON type a write body's field takes
// (docs/RULES.md §19.4); every one also takes null, meaning "not given"
// (an empty form field).
type writeShape int

const (
	// writeText is a JSON string: text, a choice, a currency, a date.
	writeText writeShape = iota
	// writeDecimal is a decimal as a JSON string, never a JSON number
	// (docs/RULES.md §19.1).
	writeDecimal
	// writeInt is a whole number, as a JSON integer.
	writeInt
	// writeFlag is true or false.
	writeFlag
	// writeName is a platform or GPU model by name or alias: a JSON string.
	writeName
	// writeID is a platform or GPU model by id: a JSON integer.
	writeID
)

// problem is the catalog id of a value of the wrong JSON type, and its
// arguments.
func (w writeShape) problem(name string) (string, []any) {
	switch w {
	case writeDecimal:
		return "api.write.error.decimal", nil
	case writeInt, writeID:
		return "api.write.error.integer", nil
	case writeFlag:
		return "api.write.error.flag", nil
	case writeName:
		return "api.write.error.ref", []any{"ID", name + apiRefIDSuffix}
	}
	return "api.write.error.text", nil
}

// jsonInteger is a JSON number without fraction or exponent.
var jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// apiRefIDSuffix names the id field beside a platform's or GPU model's
// name field: platform_id beside platform.
const apiRefIDSuffix = "_id"

// quoteFieldShape is the JSON shape of a quote field, from its kind: a
// platform or GPU model under its own name is named (platform, gpu_model);
// its id goes in the field beside it (platform_id, gpu_model_id).
func quoteFieldShape(f quote.Field) writeShape {
	switch f.Kind {
	case quote.KindRef:
		return writeName
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

// set reads n, the JSON value of field name, as shape: a value of another
// type is a problem of that field. Its text is storable: apiReadObject
// refused the body otherwise.
func (w *writeValues) set(name string, n *jsonbody.Node, shape writeShape) {
	s, ok := "", false
	switch n.Kind {
	case jsonbody.Null:
		ok = true
	case jsonbody.String:
		s, ok = n.Text, shape == writeText || shape == writeDecimal || shape == writeName
	case jsonbody.Bool:
		s, ok = strconv.FormatBool(n.Bool), shape == writeFlag
	case jsonbody.Number:
		s, ok = n.Text, (shape == writeInt || shape == writeID) && jsonInteger.MatchString(n.Text)
	}
	if !ok {
		id, args := shape.problem(name)
		w.errs.Set(name, id, args...)
		return
	}
	w.vals[name] = s
}

// apiReadFields reads a flat write body whose fields are those of shapes;
// any other field is named as unknown (a *bodyError).
func apiReadFields(c echo.Context, shapes map[string]writeShape) (*writeValues, error) {
	body, problems, err := apiReadObject(c)
	if err != nil {
		return nil, err
	}
	w := newWriteValues()
	for i, k := range body.Keys {
		shape, ok := shapes[k]
		if !ok {
			problems = append(problems, jsonbody.Problem{Path: k, Kind: jsonbody.Unknown})
			continue
		}
		w.set(k, body.Vals[i], shape)
	}
	return w, refused(problems)
}

// apiQuoteLinesField is the body field holding the twelve lines, an object
// keyed by item whose values hold the line's fields (quote.LineFields);
// each maps onto the form's "<item>.<field>".
const apiQuoteLinesField = "lines"

// apiReadQuoteBody reads a quote's write body: the quote's fields by their
// form and CSV names (quote.Fields), a platform or GPU model by name
// (platform, gpu_model) or by id (platform_id, gpu_model_id), the lines,
// and extra fields of the endpoint. Unknown fields, items or line fields,
// and lines or a line that is not an object, are named (a *bodyError):
// "lines.<item>.<field>". byID lists the references given by id.
func apiReadQuoteBody(c echo.Context, extra map[string]writeShape) (w *writeValues, byID map[string]bool, err error) {
	body, problems, err := apiReadObject(c)
	if err != nil {
		return nil, nil, err
	}
	w, byID = newWriteValues(), map[string]bool{}
	for i, k := range body.Keys {
		v := body.Vals[i]
		if f, ok := quote.FieldByName(k); ok {
			w.set(k, v, quoteFieldShape(f))
			continue
		}
		if ref, ok := strings.CutSuffix(k, apiRefIDSuffix); ok {
			if f, ok := quote.FieldByName(ref); ok && f.Kind == quote.KindRef {
				w.set(k, v, writeID)
				continue
			}
		}
		if shape, ok := extra[k]; ok {
			w.set(k, v, shape)
			continue
		}
		if k != apiQuoteLinesField {
			problems = append(problems, jsonbody.Problem{Path: k, Kind: jsonbody.Unknown})
			continue
		}
		switch v.Kind {
		case jsonbody.Null:
			continue
		case jsonbody.Object:
		default:
			problems = append(problems, jsonbody.Problem{Path: k, Kind: jsonbody.WrongType, Want: jsonbody.TypeObject})
			continue
		}
		for j, item := range v.Keys {
			path := jsonbody.Join(k, item)
			line := v.Vals[j]
			switch _, known := catalog.LookupItem(catalog.ItemKey(item)); {
			case !known:
				problems = append(problems, jsonbody.Problem{Path: path, Kind: jsonbody.Unknown})
				continue
			case line.Kind == jsonbody.Null:
				continue
			case line.Kind != jsonbody.Object:
				problems = append(problems, jsonbody.Problem{Path: path, Kind: jsonbody.WrongType, Want: jsonbody.TypeObject})
				continue
			}
			for f, name := range line.Keys {
				if !quote.IsLineField(name) {
					problems = append(problems, jsonbody.Problem{Path: jsonbody.Join(path, name), Kind: jsonbody.Unknown})
					continue
				}
				w.set(item+"."+name, line.Vals[f], lineFieldShape(name))
			}
		}
	}
	// A reference by id reads as the id the form posts; by name and by id
	// at once is the name field's problem.
	for _, f := range quote.Fields {
		if f.Kind != quote.KindRef {
			continue
		}
		idField := f.Name + apiRefIDSuffix
		id, hasID := w.vals[idField]
		delete(w.vals, idField)
		switch {
		case !hasID || id == "" || w.errs.Has(idField):
		case w.vals[f.Name] != "" || w.errs.Has(f.Name):
			w.errs.Set(f.Name, "api.write.error.ref_both", "Name", f.Name, "ID", idField)
		default:
			w.vals[f.Name] = id
			byID[f.Name] = true
		}
	}
	return w, byID, refused(problems)
}

// apiReadQuote reads and checks a quote through quote.Read, the one
// validation of the entry form and the CSV import. errs name the body's
// fields: a line's "<item>.<field>" is "lines.<item>.<field>", a platform
// given by id is platform_id.
func (s *Handlers) apiReadQuote(c echo.Context, extra map[string]writeShape) (quote.Quote, *writeValues, web.Errors, error) {
	w, byID, err := apiReadQuoteBody(c, extra)
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
		if ref, ok := strings.CutSuffix(k, apiRefIDSuffix); ok && w.vals[ref] == "" {
			delete(readErrs, ref) // the id's type is the problem, not a missing name
		}
	}
	errs := web.Errors{}
	for k, m := range readErrs {
		switch {
		case strings.Contains(k, "."):
			k = apiQuoteLinesField + "." + k
		case byID[k]:
			k += apiRefIDSuffix // an unknown id is its field's problem
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
func apiWriteFailed(c echo.Context, err error) error { return apiReadError(c, err) }

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
