package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/catalog"
	"gpuquote/internal/extract"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// The reading API (docs/RULES.md §22.10): a vendor's message read by
// extract.Read and answered as the quote it states, in the shape a quote
// is sent to the API (POST /api/v1/quotes), with where each value was read
// and what was left out. Nothing is stored.

// apiExtractField is the one field of the body: the vendor's message.
const apiExtractField = "text"

// apiMember is one member of an apiObject.
type apiMember struct {
	Key   string
	Value any
}

// apiObject is a JSON object whose members are written in the order
// given, so that the same message always gives the same bytes.
type apiObject []apiMember

// MarshalJSON writes the members in order.
func (o apiObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// apiExtract is the answer: the quote as the message states it, the
// evidence of each value, the phrases skipped with their reasons, and the
// sentences holding a price that gave no value.
type apiExtract struct {
	Quote    apiObject            `json:"quote"`
	Evidence []apiExtractEvidence `json:"evidence"`
	Skipped  []apiExtractSkip     `json:"skipped"`
	Unread   []string             `json:"unread"`
}

// apiExtractEvidence is where one value was read: Start and End are
// character (rune) offsets into the text, End exclusive.
type apiExtractEvidence struct {
	Field string `json:"field"`
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// apiExtractSkip is a phrase holding a price that gave no value, with its
// reason (a catalog id) and that reason in the request's language.
type apiExtractSkip struct {
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
	Field   *string `json:"field"`
	Text    string  `json:"text"`
	Start   int     `json:"start"`
	End     int     `json:"end"`
}

// apiExtractName is the body's name of a field extract names: a line's
// "<item>.<field>" is "lines.<item>.<field>", as the API's errors name it.
func apiExtractName(field string) string {
	if strings.Contains(field, ".") {
		return apiQuoteLinesField + "." + field
	}
	return field
}

// apiExtractValue is a value extract read, as the JSON value of its shape
// in a quote sent to the API (null when not read): decimals, text, names
// and choices strings, counts integers, flags booleans.
func apiExtractValue(field, v string, read bool, shape writeShape) (any, error) {
	if !read {
		return nil, nil
	}
	switch shape {
	case writeInt, writeID:
		if !jsonInteger.MatchString(v) {
			return nil, fmt.Errorf("api: extract read %s as %q, not a whole number", field, v)
		}
		return json.Number(v), nil
	case writeFlag:
		b, err := strconv.ParseBool(v)
		if err != nil || v != strconv.FormatBool(b) {
			return nil, fmt.Errorf("api: extract read %s as %q, not true or false", field, v)
		}
		return b, nil
	}
	return v, nil
}

// apiExtractQuote is the quote r states in the shape of the API's quote
// body (quote.Fields, each reference by name beside its id, then the
// twelve lines in table order with every line field): every field
// present, null where the message does not state it.
func apiExtractQuote(r extract.Result) (apiObject, error) {
	out := make(apiObject, 0, len(quote.Fields)+3)
	add := func(o *apiObject, key, field string, shape writeShape) error {
		v, read := r.Get(field)
		val, err := apiExtractValue(field, v, read, shape)
		if err != nil {
			return err
		}
		*o = append(*o, apiMember{key, val})
		return nil
	}
	for _, f := range quote.Fields {
		if err := add(&out, f.Name, f.Name, quoteFieldShape(f)); err != nil {
			return nil, err
		}
		if f.Kind == quote.KindRef {
			// The message names the platform and the GPU model; which
			// records they are is the caller's to resolve.
			out = append(out, apiMember{f.Name + apiRefIDSuffix, nil})
		}
	}
	lines := make(apiObject, 0, len(catalog.Items))
	for _, it := range catalog.Items {
		line := make(apiObject, 0, len(quote.LineFields))
		for _, lf := range quote.LineFields {
			if err := add(&line, lf, string(it.Key)+"."+lf, lineFieldShape(lf)); err != nil {
				return nil, err
			}
		}
		lines = append(lines, apiMember{string(it.Key), line})
	}
	return append(out, apiMember{apiQuoteLinesField, lines}), nil
}

// newAPIExtract is the answer to what extract read, the skipped reasons
// worded by tr.
func newAPIExtract(r extract.Result, tr func(id string) string) (apiExtract, error) {
	q, err := apiExtractQuote(r)
	if err != nil {
		return apiExtract{}, err
	}
	out := apiExtract{Quote: q, Evidence: make([]apiExtractEvidence, 0, len(r.Evidence)),
		Skipped: make([]apiExtractSkip, 0, len(r.Skipped)), Unread: make([]string, 0, len(r.Unread))}
	for _, e := range r.Evidence {
		out.Evidence = append(out.Evidence, apiExtractEvidence{Field: apiExtractName(e.Field), Text: e.Text, Start: e.Start, End: e.End})
	}
	for _, s := range r.Skipped {
		sk := apiExtractSkip{Reason: s.Reason, Message: tr(s.Reason), Text: s.Text, Start: s.Start, End: s.End}
		if s.Field != "" {
			f := apiExtractName(s.Field)
			sk.Field = &f
		}
		out.Skipped = append(out.Skipped, sk)
	}
	out.Unread = append(out.Unread, r.Unread...)
	return out, nil
}

// QuoteExtract is POST /api/v1/quotes/extract: a vendor's message read by
// the rules of docs/RULES.md §22 and answered as the quote it states, with
// the evidence of each value; nothing is stored (docs/RULES.md §22.10).
// The text is bounded as a proposal's vendor message is (1 to
// proposal.MaxMessageChars characters after trimming); it is read as sent,
// so the offsets are into the text as sent.
func (s *Handlers) QuoteExtract(c echo.Context) error {
	w, err := apiReadFields(c, map[string]writeShape{apiExtractField: writeText})
	if err != nil {
		return apiReadError(c, err)
	}
	errs := web.Errors{}
	for k, m := range w.errs {
		errs.Set(k, m.ID, m.Args...)
	}
	text := w.get(apiExtractField)
	if !w.errs.Has(apiExtractField) {
		if p := proposal.CheckMessage(text); p != "" {
			errs.Set(apiExtractField, p, "Max", strconv.Itoa(proposal.MaxMessageChars))
		}
	}
	if len(errs) > 0 {
		return apiFormErrors(c, errs)
	}
	tr := server.Translator(c)
	out, err := newAPIExtract(extract.Read(text), func(id string) string { return tr.T(id) })
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, out)
}
